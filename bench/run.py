"""Run every bench script and print one summary table of their figures.

    python bench/run.py [--quick] [--only NAME ...]

Each script runs in its own process (its output is shown as it comes); its figures are the lines
after its last "figures:" line. Exit status: 0 unless a script crashed (non-zero exit, a timeout,
or no figures) — a missed target is reported, not a failure, since timings on a shared CI machine
are noise.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
SCRIPTS = [
    "synth",
    "token_error",
    "overhead",
    "cache",
    "compaction_time",
    "tiers",
    "background",
    "memory",
    "startup",
    "streaming",
    "session_cost",
    "fuzz",
    "subagent",
    "sandbox",
    "fetch_bounds",
    "mcp_answers",
    "probe_eval",
]
# Too long for the full suite's per-script timeout at their default size: run with --quick (or alone).
QUICK_ONLY = {"fuzz"}
FIGURE = re.compile(r"^(?P<name>[A-Za-z0-9_.-]+): (?P<value>.+?) \((?P<target>[^()]*(?:\([^()]*\)[^()]*)*)\)$")


def parse_figures(output: str) -> list[dict[str, str]]:
    lines = output.splitlines()
    try:
        start = len(lines) - 1 - lines[::-1].index("figures:")
    except ValueError:
        return []
    rows = []
    for line in lines[start + 1 :]:
        m = FIGURE.match(line.strip())
        if not m:
            continue
        target, verdict = m.group("target"), ""
        if target == "no target":
            target = "-"
        else:
            target = target.removeprefix("target ")
            if target.endswith(": PASS") or target.endswith(": MISS"):
                target, verdict = target[:-6], target[-4:]
        rows.append({"name": m.group("name"), "value": m.group("value"), "target": target, "verdict": verdict})
    return rows


def run_script(name: str, quick: bool, timeout: float) -> tuple[int, str, float]:
    cmd = [sys.executable, str(BENCH / f"{name}.py")] + (["--quick"] if quick else [])
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, bufsize=1)
    # A script that hangs without printing must be killed too, not only one that prints late.
    killer = threading.Timer(timeout, proc.kill)
    killer.start()
    out: list[str] = []
    assert proc.stdout is not None
    try:
        for line in proc.stdout:
            sys.stdout.write(line)
            sys.stdout.flush()
            out.append(line)
        code = proc.wait()
    finally:
        killer.cancel()
    if time.perf_counter() - t0 >= timeout:
        print(f"!! {name} timed out after {timeout:.0f} s", flush=True)
        code = -9
    return code, "".join(out), time.perf_counter() - t0


def main() -> int:
    p = argparse.ArgumentParser(description="Run the bench suite.")
    p.add_argument("--quick", action="store_true", help="the small version of every script (CI)")
    p.add_argument("--only", nargs="*", choices=SCRIPTS, help="run only these scripts")
    args = p.parse_args()
    timeout = 300.0 if args.quick else 1500.0
    names = args.only or [n for n in SCRIPTS if args.quick or n not in QUICK_ONLY]
    summary: list[list[str]] = []
    crashed: list[str] = []
    durations: list[tuple[str, float, int]] = []
    t_all = time.perf_counter()
    for name in names:
        print(f"\n######## bench/{name}.py{' --quick' if args.quick else ''}", flush=True)
        code, output, seconds = run_script(name, args.quick, timeout)
        figures = parse_figures(output)
        durations.append((name, seconds, code))
        if code != 0 or not figures:
            crashed.append(name)
            summary.append([name, "(crashed)" if code else "(no figures)", f"exit {code}", "", "CRASH"])
            continue
        for f in figures:
            summary.append([name, f["name"], f["value"], f["target"], f["verdict"]])
    total = time.perf_counter() - t_all

    headers = ["script", "figure", "value", "target", "verdict"]
    widths = [max(len(r[i]) for r in [headers, *summary]) for i in range(len(headers))]
    print(f"\n======== summary{' (quick)' if args.quick else ''} ========")
    print("  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)))
    print("  ".join("-" * w for w in widths))
    for row in summary:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)))
    print(
        "\n"
        + "  ".join(f"{n} {s:.0f}s" + ("" if c == 0 else f" (exit {c})") for n, s, c in durations)
        + f"  | total {total:.0f}s"
    )
    misses = sum(1 for r in summary if r[4] == "MISS")
    passes = sum(1 for r in summary if r[4] == "PASS")
    print(f"targets: {passes} PASS, {misses} MISS; scripts crashed: {', '.join(crashed) or 'none'}")
    return 1 if crashed else 0


if __name__ == "__main__":
    sys.exit(main())
