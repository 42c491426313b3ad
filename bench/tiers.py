"""The cheap tier: tokens saved by clearing old tool results alone, and how often that spares the
LLM call.

1. One shot: agent.compaction.tiers.clear_tool_results on the large session, keeping the newest results up
   to a quarter of the threshold (what compact.run_compact(trigger="auto") does first).
2. Replay: each synthetic session is replayed message by message into a state with the given
   window; before every user turn, as auto_compact_if_needed does, a context at or over the
   threshold is compacted with compact.run_compact(state, trigger="auto"), and result.tier says
   whether clearing alone was enough ("cheap": no LLM call) or a summary was written. Usage on
   replayed responses is recomputed for the replayed (compacted) history.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import Any

sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench import common  # noqa: E402


def configs(quick: bool) -> list[tuple[int, int]]:
    """(messages, context window)"""
    if quick:
        return [(1_000, 32_768), (2_000, 131_072)]
    return [(1_000, 32_768), (8_000, 131_072), (8_000, 1_000_000)]


async def replay(server: Any, ws: Path, s: Any, window: int) -> dict[str, Any]:
    from pydantic_ai.messages import ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart, UserPromptPart
    from pydantic_ai.usage import RequestUsage

    import compact
    from agent import compaction, errors
    from agent.compaction.watermark import fixed_prefix_tokens
    from agent.tokens import count as tokens
    from bench import synth
    from tests.fake_openai import Text

    state = common.make_state(server.base_url, ws, window)
    synth.write_project(s, ws)
    fixed = fixed_prefix_tokens(state)
    running = fixed
    summary = common.summary_text()
    results: list[Any] = []
    failures = 0
    paths: dict[str, str] = {}
    for m in s.messages:
        if isinstance(m, ModelRequest) and any(isinstance(p, UserPromptPart) for p in m.parts):
            if compaction.context_tokens(state, [m]) >= compaction.threshold(state):
                if server.pending == 0:
                    server.script(Text(summary))
                try:
                    results.append(await compact.run_compact(state, trigger="auto"))
                except errors.CompactError:
                    failures += 1
                running = fixed + tokens.count_messages(state.history)
        if isinstance(m, ModelResponse):
            m = dataclasses.replace(m, usage=RequestUsage(input_tokens=running, output_tokens=m.usage.output_tokens))
            for p in m.parts:
                if isinstance(p, ToolCallPart) and p.tool_name == "read_file":
                    paths[p.tool_call_id] = str(p.args_as_dict().get("path"))
        else:
            for p in m.parts:
                if isinstance(p, ToolReturnPart) and p.tool_call_id in paths:
                    state.read_file_state.record(ws / paths.pop(p.tool_call_id))
        state.transcript.update([*state.history, m])
        running += tokens.count_message(m)
    cheap = [r for r in results if r.tier == "cheap"]
    summ = [r for r in results if r.tier != "cheap"]
    return {
        "threshold": compaction.threshold(state),
        "compactions": len(results),
        "cheap": len(cheap),
        "summary": len(summ),
        "failures": failures,
        "cheap_saved": state.stats.cheap_tier_saved,
        "cheap_share": common.median([1 - r.tokens_after / r.tokens_before for r in cheap]) if cheap else 0.0,
        "summary_share": common.median([1 - r.tokens_after / r.tokens_before for r in summ]) if summ else 0.0,
    }


async def run(quick: bool) -> None:
    from agent.compaction import rebuild
    from agent.compaction.rebuild import clear_tool_results
    from agent.compaction.watermark import compact_threshold

    report = common.Report("tiers: the cheap tier (clearing old tool results)")
    report.note((__doc__ or "").strip())
    cache: dict[int, Any] = {}
    rows = []
    with common.workdir("tiers-") as ws, common.server() as server:
        # 1. one shot on the large session at 1M
        n = common.large(quick)
        state = common.make_state(server.base_url, ws)
        cache[n] = s = common.synth_session(state, n)
        # The full run's large session is ~920k tokens in a 1M window; a smaller one gets a window
        # scaled to put it at the same point relative to its threshold.
        window = common.WINDOW if not quick else int(common.WINDOW * s.tokens / 950_000)
        keep = int(compact_threshold(window) * rebuild.CHEAP_TIER_KEEP)
        _, saved = clear_tool_results(s.messages, keep)
        one_shot = saved / s.tokens
        report.table(
            ["session", "tokens", "window", "kept (newest results)", "cleared", "share of tokens"],
            [[f"{n:,} messages", s.tokens, f"{window:,}", keep, saved, f"{100 * one_shot:.1f}%"]],
            title="1. clear_tool_results on the large session",
        )
        # 2. replay
        totals = {"compactions": 0, "cheap": 0}
        for n, window in configs(quick):
            if n not in cache:
                cache[n] = common.synth_session(common.make_state(server.base_url, ws), n)
            sub = ws / f"replay-{n}-{window}"
            sub.mkdir()
            r = await replay(server, sub, cache[n], window)
            totals["compactions"] += r["compactions"]
            totals["cheap"] += r["cheap"]
            rows.append(
                [
                    f"{n:,}",
                    cache[n].tokens,
                    f"{window:,}",
                    r["threshold"],
                    r["compactions"],
                    r["cheap"],
                    r["summary"],
                    r["failures"],
                    f"{100 * r['cheap_share']:.0f}%",
                    f"{100 * r['summary_share']:.0f}%",
                    r["cheap_saved"],
                ]
            )
    report.table(
        [
            "messages",
            "session tokens",
            "window",
            "threshold",
            "compactions",
            "cheap",
            "summary",
            "failed",
            "cheap: cut",
            "summary: cut",
            "cheap tier saved",
        ],
        rows,
        title="2. replay with automatic compaction before each user turn (cut = median share removed)",
    )
    spared = totals["cheap"] / totals["compactions"] if totals["compactions"] else 0.0
    report.figure("cheap_tier_one_shot_saved_share", round(100 * one_shot, 1), "%")
    report.figure("cheap_tier_spared_llm_calls", round(100 * spared, 1), "%")
    report.figure("cheap_tier_spared_llm_calls_count", f"{totals['cheap']}/{totals['compactions']}", "compactions")
    report.finish()


if __name__ == "__main__":
    common.main(run, __doc__)
