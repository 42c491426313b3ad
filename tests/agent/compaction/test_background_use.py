"""Background summaries that get used: mid-turn too, and counted when they are given up."""

from __future__ import annotations

import asyncio

from agent.compaction.background import cancel_background
from agent.events import CompactionFinished
from main import on_submit
from tests.builders import big_files, is_compaction, note, responder, script_forever
from tests.fake_openai import Text, ToolCalls


async def _until_background(state) -> None:
    n = 0
    while state.compaction.background is None:
        await on_submit(state, note(n, 200))
        n += 1
    await asyncio.wait_for(asyncio.shield(state.compaction.background.task), 10)


async def test_a_mid_turn_compaction_uses_the_background_summary(make_state, workspace, server):
    state = make_state(context_window=32_000)
    script_forever(server, responder([]))
    await _until_background(state)
    compactions = sum(is_compaction(r["body"]) for r in server.requests)
    assert compactions == 1 and not state.emit.of(CompactionFinished)
    # One turn that reads until the context is over the threshold in the middle of the turn.
    big_files(workspace, 4, lines=90)
    calls = [ToolCalls([("read_file", {"path": f"big{i}.txt"})]) for i in range(4)]
    script_forever(server, responder(calls + [Text("Read them all.")]))
    await on_submit(state, "read the four big files")

    finished = state.emit.of(CompactionFinished)
    assert [f.trigger for f in finished] == ["background"]  # no summary was asked for and waited on
    assert state.stats.background_used == 1 and state.stats.background_discarded == {}
    assert state.history[-1].parts[-1].content == "Read them all."  # after the reasoning


async def test_given_up_background_summaries_are_counted_by_reason(make_state, workspace, server):
    state = make_state(context_window=16_000)
    script_forever(server, responder([]))
    await _until_background(state)
    cancel_background(state)
    assert state.stats.background_started == 1
    assert state.stats.background_discarded == {"cancelled": 1}
    from ui.status import status_lines

    text = "\n".join(str(line) for line in status_lines(state))
    assert "Background summaries: 1 started, 0 used; given up: cancelled 1" in text


async def test_no_background_summary_where_clearing_will_be_chosen(make_state, workspace, server):
    # Reads only: clearing is enough and cheaper (see test_pressure), so no summary is written ahead.
    state = make_state(context_window=16_000)
    big_files(workspace, 14, lines=50)
    script_forever(server, responder([]))
    for i in range(14):
        await on_submit(state, f"read big{i}.txt")
    assert state.stats.background_started == 0
    assert not any(is_compaction(r["body"]) for r in server.requests)
    assert [f.tier for f in state.emit.of(CompactionFinished)] == ["cheap"]
    # With --cheap-tier off a summary is what comes, and it is written ahead.
    other = make_state(context_window=16_000, cheap_tier="off")
    for i in range(14):
        await on_submit(other, f"read big{i}.txt")
    assert other.stats.background_started >= 1


async def test_a_long_turn_writes_its_summary_while_it_runs(make_state, workspace, server):
    # The turn starts below the lower mark and crosses both it and the threshold: the summary is
    # started mid-turn, swapped in at the threshold, and the user's request stays verbatim. (With
    # reads only, auto would clear instead and write no summary ahead: see above.)
    state = make_state(context_window=32_000, cheap_tier="off")
    big_files(workspace, 14, lines=90)
    calls = [ToolCalls([("read_file", {"path": f"big{i}.txt"})]) for i in range(14)]
    script_forever(server, responder(calls + [Text("Read them all.")]))
    request = "read all fourteen files"
    await on_submit(state, request)
    finished = state.emit.of(CompactionFinished)
    assert finished and finished[0].trigger == "background"
    assert state.stats.background_used >= 1
    prompts = [
        p.content for m in state.history[1:] if m.kind == "request" for p in m.parts if p.part_kind == "user-prompt"
    ]
    assert request in prompts
    assert state.history[-1].parts[-1].content == "Read them all."  # after the reasoning
