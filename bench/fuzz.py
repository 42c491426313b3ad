"""The seeded session fuzzer, long: hundreds of generated sessions through the real turn path.

    python bench/fuzz.py [--quick] [--seeds 1-20] [--windows 4096,32768] [--turns 100] [--jobs 2]

Each session (tests/fuzz/plan.py) is generated from its seed and window: reads of files of random
sizes (some near or over the window; English, Chinese, code), re-reads, edits, long answers,
chatter in both languages, @-mentions, pastes, Ctrl-C at a random event, /compact [instructions],
/compact undo, --continue. It is played in-process through main.on_submit against the strict
emulator over real HTTP, counting with a skew (+15% system text and tool schemas, +10% CJK, -5% code)
and an LRU prefix cache of max(4 x window, 256k) tokens; every request is checked by an oracle
that reads only what the server received (tests/fuzz/oracle.py). Sessions run in --jobs processes.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench import common  # noqa: E402

WINDOWS = [4_096, 8_192, 16_384, 32_768, 131_072, 1_000_000]
# Sessions per window at the default size: 200 in all; fewer where a session costs more CPU
# (measured, 100 turns: 5-7.5 CPU s at 4k-32k, 13 s at 131k, 22 s at 1M; about 1,540 CPU s in all).
DEFAULT_SEEDS = {4_096: 45, 8_192: 45, 16_384: 40, 32_768: 35, 131_072: 20, 1_000_000: 15}
QUICK_SEEDS, QUICK_TURNS = 1, 25


def parse_seeds(text: str) -> list[int]:
    """ "7", "1-20" or "3,7,9-12"."""
    seeds: list[int] = []
    for part in filter(None, text.split(",")):
        low, _, high = part.partition("-")
        seeds.extend(range(int(low), int(high or low) + 1))
    return seeds


def label(window: int) -> str:
    return f"{window // 1000}k" if window < 1_000_000 else "1m"


def one(job: tuple[int, int, int]) -> tuple[int, object, float]:
    """Play one session in this worker; its figures (picklable) and the CPU seconds it took."""
    from tests.fuzz.figures import Figures
    from tests.fuzz.plan import generate
    from tests.fuzz.player import play

    seed, window, turns = job
    start = time.process_time()
    figures = Figures()
    figures.add(asyncio.run(play(generate(seed, window, turns))))
    return window, figures, time.process_time() - start


def arguments() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=(__doc__ or "").strip().splitlines()[0])
    p.add_argument("--quick", action="store_true", help=f"{QUICK_SEEDS} seed a window, {QUICK_TURNS} turns")
    p.add_argument("--seeds", help="the seeds of every window, e.g. 1-20 or 3,7 (default: per window, 200 in all)")
    p.add_argument("--windows", help="comma-separated windows in tokens (default: all six)")
    p.add_argument("--turns", type=int, help="turns a session (default 100)")
    p.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), help="worker processes")
    return p.parse_args()


def plan(args: argparse.Namespace) -> list[tuple[int, int, int]]:
    windows = [int(w) for w in args.windows.split(",")] if args.windows else WINDOWS
    turns = args.turns or (QUICK_TURNS if args.quick else 100)
    jobs = []
    for window in windows:
        if args.seeds:
            seeds = parse_seeds(args.seeds)
        else:
            seeds = list(range(1, (QUICK_SEEDS if args.quick else DEFAULT_SEEDS.get(window, 10)) + 1))
        jobs.extend((seed, window, turns) for seed in seeds)
    return jobs


def main() -> int:
    from tests.fuzz.figures import Figures
    from tests.fuzz.oracle import INVARIANTS

    args = arguments()
    jobs = plan(args)
    report = common.Report("fuzz: seeded sessions through the real turn path, skewed counting")
    report.note(f"{len(jobs)} sessions, {jobs[0][2]} turns each, {args.jobs} processes")
    totals: dict[int, Figures] = {}
    cpu: dict[int, float] = {}
    t0 = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(one, job): job for job in jobs}
        for done, future in enumerate(as_completed(futures), 1):
            window, figures, seconds = future.result()
            totals.setdefault(window, Figures()).merge(figures)
            cpu[window] = cpu.get(window, 0.0) + seconds
            found = ", ".join(f"{k} {v}" for k, v in figures.violations.items() if v) or "none"
            print(
                f"[{done}/{len(jobs)}] {label(window)} seed {futures[future][0]}: violations {found}; "
                f"{seconds:.1f} s cpu",
                file=sys.stderr,
                flush=True,
            )
    wall = time.perf_counter() - t0
    windows = sorted(totals)
    rows = []
    for window in windows:
        f = totals[window]
        rows.append(
            [
                label(window),
                *f.row().values(),
                *(f.violations[name] for name in INVARIANTS),
                f"{cpu[window] / f.sessions:.1f}",
            ]
        )
    report.table(
        ["window", *Figures().row().keys(), *INVARIANTS, "cpu s/session"],
        rows,
        title="per window (emulator, skewed counting, V4 flash off-peak prices)",
    )
    for window in windows:
        f = totals[window]
        for name in INVARIANTS:
            if f.violations[name]:
                seeds = sorted(set(f.failing_seeds[name]))
                report.note(
                    f"{label(window)} {name}: seeds {seeds[:12]}{' ...' if len(seeds) > 12 else ''}; "
                    f"e.g. {f.examples[name][0][:200]}"
                )
    everything = Figures()
    for f in totals.values():
        everything.merge(f)
    report.figure("fuzz_sessions", everything.sessions, "")
    report.figure("fuzz_violations", everything.total_violations, "", "0", everything.total_violations == 0)
    for window in windows:
        f, name = totals[window], label(window)
        report.figure(f"fuzz_violations_{name}", f.total_violations, "", "0", f.total_violations == 0)
        if f.summary_prompt:
            share = 100 * f.summary_hit / f.summary_prompt
            ok = share >= 90 if window >= 16_384 else None
            report.figure(
                f"fuzz_summary_cache_share_{name}", round(share, 1), "%", ">= 90%" if window >= 16_384 else None, ok
            )
        if f.after_prompt:
            share = round(100 * f.after_hit / f.after_prompt, 1)
            report.figure(f"fuzz_after_compaction_cache_share_{name}", share, "%")
        if f.turns:
            report.figure(f"fuzz_usd_per_100_turns_{name}", round(100 * f.dollars / f.turns, 4), "USD")
        if f.floor:
            report.figure(f"fuzz_miss_over_growth_floor_{name}", round(f.miss / f.floor, 2), "x")
    report.figure("fuzz_wall_time", round(wall), "s")
    report.finish()
    return 0


if __name__ == "__main__":
    sys.exit(main())
