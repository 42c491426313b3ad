"""Prefix-cache share and cost of one compaction request, ours vs the design's separate summarizer.

For each session size: the session is loaded as on --continue, one ordinary turn is run (the
request the user's last turn sent, which the provider has cached), then the compaction request is
sent both ways over the same history to the same local server, which simulates DeepSeek's prefix
cache in 64-token blocks and reports prompt_cache_hit_tokens:
  ours      compact.run_compact: the agent's own instructions, tools, tool_choice and messages, the
            compaction prompt appended; in thinking mode (the default) and with --thinking off
  baseline  the design's separate summarizer, Agent(model) without tools or instructions, run over
            the same history with the same compaction prompt
Both get the same scripted summary (~4k tokens). Cost at deepseek-flash's off-peak prices of the day
the bench runs (agent.provider.prices: genai-prices' data with our corrections).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench import common  # noqa: E402


async def measure(n: int, thinking: bool | None = None) -> dict:
    from pydantic_ai import Agent

    import compact
    from agent import compaction, errors
    from agent.compaction.summary import compaction_prompt
    from agent.turn.loop import get_agent
    from main import on_submit
    from tests.fake_openai import Text

    summary = common.summary_text()
    with common.workdir("cache-") as ws, common.server() as server:
        state = common.make_state(server.base_url, ws, thinking=thinking)
        s = common.synth_session(state, n)
        common.install_session(state, s)
        # The user's last turn: its request is what the provider has cached when compaction starts.
        state.config.auto_compact = False
        server.script(Text("Noted. The tests pass now; nothing else is pending."))
        await on_submit(state, "Where are we? One line, please.")

        # Baseline first (it cannot share a prefix with ours, so the order does not matter).
        history = list(state.history)
        server.script(Text(summary))
        bare = Agent(get_agent(state).model)
        await bare.run(compaction_prompt(state.lang), message_history=history)
        base = server.requests[-1]

        server.script(Text(summary))
        before = compaction.context_tokens(state)
        try:
            await compact.run_compact(state)
        except errors.CompactError:
            # A small (--quick) session can be smaller than this summary plus what it keeps: the
            # result is refused, but the request, which is what is measured here, was sent.
            pass
        ours = server.requests[-1]
        turn = server.requests[-3]["body"]  # the user's last turn, before the baseline
        assert ours["body"].get("tool_choice") == turn.get("tool_choice") == "auto"
        assert ours["body"].get("thinking") == turn.get("thinking")
        out = common.tokens_of(summary)
        rows = {}
        for name, rec in (("ours", ours), ("baseline", base)):
            prompt, hit = rec["prompt_tokens"], rec["cache_hit_tokens"]
            rows[name] = {
                "prompt": prompt,
                "hit": hit,
                "share": hit / prompt,
                "out": out,
                "cost": common.cost(hit, prompt - hit, out),
            }
        rows["session_tokens"] = before
        return rows


async def run(quick: bool) -> None:
    report = common.Report("cache: prefix-cache share and cost of a compaction request")
    report.note((__doc__ or "").strip())
    results = {}
    for n in common.sizes(quick):
        results[n] = await measure(n)
    rows = []
    for n, r in results.items():
        for name in ("ours", "baseline"):
            x = r[name]
            rows.append(
                [f"{n:,}", name, x["prompt"], x["hit"], f"{100 * x['share']:.1f}%", x["out"], f"${x['cost']:.5f}"]
            )
    report.table(
        ["messages", "method", "input tokens", "cache hit", "hit share", "output", "cost (flash, off-peak)"], rows
    )
    big = common.large(quick)
    r = results[big]
    ours, base = r["ours"], r["baseline"]
    label = f"{r['session_tokens'] / 1000:,.0f}k-token session ({big:,} messages)"
    report.note(f"\nlarge session: {label}; {common.prices_text()}")
    report.figure("cache_hit_share_ours", round(100 * ours["share"], 2), "%", ">= 90%", ours["share"] >= 0.9)
    report.figure("cache_hit_share_baseline", round(100 * base["share"], 2), "%")
    report.figure("compaction_cost_ours", round(ours["cost"], 5), "USD")
    report.figure("compaction_cost_baseline", round(base["cost"], 5), "USD")
    report.figure("compaction_cost_ratio_baseline_over_ours", round(base["cost"] / ours["cost"], 1), "x")
    off = (await measure(big, thinking=False))["ours"]
    report.figure("cache_hit_share_ours_thinking_off", round(100 * off["share"], 2), "%", ">= 90%", off["share"] >= 0.9)
    report.finish()


if __name__ == "__main__":
    common.main(run, __doc__)
