"""Issue 20, cases 10 and 11: a failed background summary picked up mid-turn still keeps the user's
request verbatim; background summaries that would be thrown away are not started."""

from __future__ import annotations

from agent.events import CompactionFinished
from main import on_submit
from tests.builders import SUMMARY, big_files, is_compaction
from tests.fake_openai import Error, Text, ToolCalls, smart_reply


def _prompts(state) -> list[str]:
    return [
        p.content
        for m in state.history
        if m.kind == "request" and not (m.metadata or {}).get("compact_summary")
        for p in m.parts
        if p.part_kind == "user-prompt"
    ]


async def test_a_failed_background_summary_mid_turn_keeps_the_request(make_state, workspace, server):
    state = make_state(context_window=32_000, cheap_tier="off")
    big_files(workspace, 14, lines=90)
    calls = [ToolCalls([("read_file", {"path": f"big{i}.txt"})]) for i in range(14)]
    summaries = 0

    def reply(body):
        nonlocal summaries
        if is_compaction(body):
            summaries += 1
            # The background one fails; the compaction that falls back to the usual path works.
            return Error(500, "the summary failed") if summaries == 1 else Text(SUMMARY)
        return (
            calls.pop(0)
            if calls
            else (Text("Read them all.") if body["messages"][-1]["role"] == "tool" else smart_reply(body))
        )

    server.script(*([reply] * 200))
    request = "read all fourteen files"
    await on_submit(state, request)
    assert state.stats.background_started >= 1 and state.stats.background_discarded.get("failed") == 1
    finished = state.emit.of(CompactionFinished)
    assert finished and finished[0].trigger == "mid-turn"
    assert request in _prompts(state)  # verbatim, not only inside the summary


async def test_no_background_summary_mid_turn_that_the_turn_would_outgrow(make_state, workspace, server):
    # Each read is larger than what a mid-turn swap keeps after the summary (at 16k): the step that
    # crosses the threshold outgrows it, and every summary started mid-turn was given up (3 of 3).
    state = make_state(context_window=16_000, cheap_tier="off")
    big_files(workspace, 16, lines=180)
    calls = [ToolCalls([("read_file", {"path": f"big{i}.txt"})]) for i in range(16)]

    def reply(body):
        if is_compaction(body):
            return Text(SUMMARY)
        return calls.pop(0) if calls else Text("Read them all.")

    server.script(*([reply] * 200))
    await on_submit(state, "read the sixteen files")
    assert state.emit.of(CompactionFinished)
    assert state.stats.background_discarded.get("mid-turn, turn too long", 0) == 0
    stats = state.stats
    # Every one started is used, given up (and counted), or still being written for the next threshold.
    pending = 1 if state.compaction.background is not None else 0
    assert stats.background_started == stats.background_used + sum(stats.background_discarded.values()) + pending
