"""User-visible wait at the threshold: blocking compaction vs background compaction.

The server answers every request after a fixed latency (2 s; quick: 0.3 s). A session sits between
the background mark (85% of the threshold) and the threshold; its old tool results are already
cleared (as after an earlier cheap-tier pass), so the cheap tier cannot spare the summary and both
modes need one. Two turns through main.on_submit:
  turn 1  a short question: the check finds the context past 85%; in background mode
          agent.compaction.background.maybe_start_background starts the summary request now, and it runs while
          turn 1's own request does
  turn 2  a long paste that takes the context over the threshold: compact.auto_compact_if_needed
          compacts before the turn; background mode swaps the finished summary in, blocking mode
          (maybe_start_background switched off) requests the summary now and waits for it
The figure is how long auto_compact_if_needed blocks turn 2, timed around the call. Turn 2 starts
the moment turn 1 ends (a user who types instantly: the least time for the background request).
"""

from __future__ import annotations

import dataclasses
import sys
import time
from pathlib import Path
from typing import Any

sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench import common  # noqa: E402

WINDOW = 65_536
START_SHARE = 0.9  # of the threshold, between the background mark (0.85) and the threshold


def build_history(s: Any, fixed: int, target: int) -> list:
    """Whole turns of `s` with old tool results cleared, up to `target` tokens; usage recomputed."""
    from pydantic_ai.messages import ModelRequest, ModelResponse, UserPromptPart
    from pydantic_ai.usage import RequestUsage

    from agent.compaction.rebuild import clear_tool_results
    from agent.tokens import count as tokens

    cleared, _ = clear_tool_results(s.messages, keep_tokens=0)
    out: list = []
    running = fixed
    for m in cleared:
        starts_turn = isinstance(m, ModelRequest) and any(isinstance(p, UserPromptPart) for p in m.parts)
        if starts_turn and running >= target:
            return out
        if isinstance(m, ModelResponse):
            m = dataclasses.replace(m, usage=RequestUsage(input_tokens=running, output_tokens=m.usage.output_tokens))
        out.append(m)
        running += tokens.count_message(m)
    raise RuntimeError(f"the session is too small: {running:,} < {target:,} tokens")


async def one(server: Any, ws: Path, s: Any, mode: str) -> dict[str, Any]:
    import compact
    from agent import compaction
    from agent.compaction import background
    from agent.compaction.watermark import fixed_prefix_tokens
    from agent.events import CompactionFinished
    from main import on_submit

    state = common.make_state(server.base_url, ws, WINDOW)
    fixed = fixed_prefix_tokens(state)
    limit = compaction.threshold(state)
    history = build_history(s, fixed, int(limit * START_SHARE))
    common.install_session(state, dataclasses.replace(s, messages=history), reload=False, files=0)
    paste = "\n".join(
        f"Log line {i}: worker {i % 7} finished batch {i * 13} in {i % 97} ms; 第{i}批完成。"
        for i in range(int(limit * 0.12) // 25)
    )

    blocked: list[float] = []
    original = compact.auto_compact_if_needed

    async def timed(st: Any, pending: Any = ()) -> None:
        t0 = time.perf_counter()
        try:
            await original(st, pending)
        finally:
            blocked.append(time.perf_counter() - t0)

    saved_start = background.maybe_start_background
    compact.auto_compact_if_needed = timed
    if mode == "blocking":
        background.maybe_start_background = lambda st, agent, used: None
    try:
        used0 = compaction.context_tokens(state)
        t0 = time.perf_counter()
        await on_submit(state, "Where are we? One line, please.")
        turn1 = time.perf_counter() - t0
        await on_submit(state, paste)
    finally:
        compact.auto_compact_if_needed = original
        background.maybe_start_background = saved_start
    finished = state.emit.of(CompactionFinished)
    assert len(finished) == 1, f"{mode}: expected one compaction, got {len(finished)}"
    return {
        "used0": used0,
        "limit": limit,
        "turn1": turn1,
        "block1": blocked[0],
        "block2": blocked[1],
        "trigger": finished[0].trigger,
        "before": finished[0].tokens_before,
        "after": finished[0].tokens_after,
    }


async def run(quick: bool) -> None:
    latency = 0.3 if quick else 2.0
    repeat = 2 if quick else 3
    report = common.Report(f"background: wait at the threshold, server latency {latency:g} s")
    report.note((__doc__ or "").strip())
    results: dict[str, list[dict[str, Any]]] = {"blocking": [], "background": []}
    with common.workdir("background-") as ws, common.server(latency) as server:
        s = common.synth_session(common.make_state(server.base_url, ws, WINDOW), 2_000)
        for _ in range(repeat):
            for mode in results:
                results[mode].append(await one(server, ws, s, mode))
    rows = []
    for mode, runs in results.items():
        r0 = runs[0]
        rows.append(
            [
                mode,
                f"{r0['used0']:,} / {r0['limit']:,}",
                f"{common.median([r['block1'] for r in runs]):.3f}",
                f"{common.median([r['turn1'] for r in runs]):.3f}",
                f"{common.median([r['block2'] for r in runs]):.3f}",
                r0["trigger"],
                f"{r0['before']:,} -> {r0['after']:,}",
            ]
        )
    report.table(
        [
            "mode",
            "context / threshold",
            "turn 1: check blocks (s)",
            "turn 1 (s)",
            "turn 2: compaction blocks (s)",
            "trigger",
            "tokens",
        ],
        rows,
        title=f"median of {repeat}; server latency {latency:g} s",
    )
    wait_block = common.median([r["block2"] for r in results["blocking"]])
    wait_bg = common.median([r["block2"] for r in results["background"]])
    report.figure("wait_at_threshold_blocking", round(wait_block, 3), "s")
    report.figure("wait_at_threshold_background", round(wait_bg, 3), "s")
    report.figure("wait_blocking_over_background", round(wait_block / wait_bg, 1) if wait_bg else "inf", "x")
    report.finish()


if __name__ == "__main__":
    common.main(run, __doc__)
