"""Cache share of the request right after a compaction, and of the summary requests.

A seeded scripted session (chatter, reads of real files of the repository, re-reads, long answers)
runs through the real turn path (main.on_submit) against the local emulator, which simulates
DeepSeek's prefix cache in 64-token blocks. For every summary request, the next turn request is
"the request after a compaction"; the figures are the weighted shares (cached tokens / prompt
tokens) over the session, per window.

  python bench/after_compaction.py            # 32k and 131k, 200 turns, seeds 1-2
  python bench/after_compaction.py --quick    # 32k, 120 turns, one seed
  python bench/after_compaction.py --seeds 6  # seeds 1-6 (a compaction's figures vary from run to run)
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench import common  # noqa: E402

FILES = [
    "agent/tokens/count.py",
    "agent/compaction/summary.py",
    "agent/compaction/rebuild.py",
    "agent/compaction/tiers.py",
    "compact.py",
    "agent/provider/prefix.py",
    "agent/turn/loop.py",
    "session.py",
]


def _turns(seed: int, n: int) -> list[str]:
    rng = random.Random(seed)
    words = "the parser should keep every token of the input and report where it stops".split()
    out = []
    for i in range(n):
        kind = rng.random()
        if kind < 0.6:
            out.append(f"read {rng.choice(FILES)}")
        else:
            out.append(f"note {i}: " + " ".join(rng.choice(words) for _ in range(rng.randint(5, 60))))
    return out


async def session(window: int, seed: int, n: int) -> tuple[list[dict], list[dict]]:
    import shutil

    from main import on_submit
    from tests.builders import is_compaction

    with common.workdir("after-") as ws, common.server() as server:
        for name in FILES:
            (ws / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(common.ROOT / name, ws / name)
        from agent.events import CompactionFinished

        state = common.make_state(server.base_url, ws, window)
        log, marks = state.emit, []

        def emit(event):
            if isinstance(event, CompactionFinished) and event.tier == "summary":
                marks.append(len(server.requests))  # the requests sent before the new history
            return log(event)

        state.emit = emit
        for text in _turns(seed, n):
            await on_submit(state, text)
        requests = server.requests
        summaries = [r for r in requests if r.get("billed") and is_compaction(r["body"])]
        after = [
            next((r for r in requests[i:] if r.get("billed") and not is_compaction(r["body"])), None) for i in marks
        ]
        if state.scratch.agent is not None:
            await state.scratch.agent.model.client.close()
        return summaries, [r for r in after if r is not None]


def share(requests: list[dict]) -> float:
    prompt = sum(r["prompt_tokens"] for r in requests)
    return 100 * sum(r["cache_hit_tokens"] for r in requests) / prompt if prompt else 0.0


async def run(quick: bool, seeds: int = 2) -> None:
    windows = [32_768] if quick else [32_768, 131_072]
    seeds = [1] if quick else list(range(1, seeds + 1))
    turns = 120 if quick else 200
    rows, figures = [], []
    for window in windows:
        summaries, after = [], []
        for seed in seeds:
            s, a = await session(window, seed, turns)
            summaries += s
            after += a
        rows.append((window, len(summaries), f"{share(summaries):.1f}%", f"{share(after):.1f}%"))
        figures.append((f"after_compaction_cache_{window // 1024}k", share(after)))
        figures.append((f"summary_cache_{window // 1024}k", share(summaries)))
    print(f"{'window':>8} {'summaries':>9} {'summary cached':>15} {'request after':>14}")
    for window, n, s, a in rows:
        print(f"{window:>8} {n:>9} {s:>15} {a:>14}")
    print("figures:")
    for name, value in figures:
        print(f"{name}: {value:.1f} % (no target)")


if __name__ == "__main__":
    import argparse
    import asyncio

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a small version (CI): 32k, one seed")
    parser.add_argument("--seeds", type=int, default=2, help="seeds 1..N a window (default 2)")
    args = parser.parse_args()
    asyncio.run(run(args.quick, args.seeds))
