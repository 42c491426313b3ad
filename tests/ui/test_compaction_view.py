"""Issue 20, case 9: what compaction did can be seen: /compact show prints the summary whole,
/status counts failures, left-out messages and refused requests, and /compact undo twice goes back
one compaction each time, saying which archive holds what; no stale line is left after it."""

from __future__ import annotations

import compact
import session
from agent import compaction
from agent.compaction.checks import check_thrashing
from agent.events import Notice
from agent.marks import is_summary
from main import on_submit
from tests.builders import long_answer, responder, script_forever
from ui.commands import dispatch
from ui.registry import CommandHost
from ui.status import status_lines

LONG = "<summary>1. " + " ".join(f"point {n} of the work so far." for n in range(80)) + " THE END\n6. ok</summary>"


def _said(state) -> list[str]:
    return [n.text for n in state.emit.of(Notice)]


def _prompts(state) -> list[str]:
    return [p.content for m in state.history for p in m.parts if p.part_kind == "user-prompt"]


async def test_compact_show_prints_the_summary_whole(make_state, server):
    state = make_state()
    host = CommandHost(state)
    await dispatch(host, "/compact show")
    assert "no summary" in _said(state)[-1]
    # Two long answers: a history the long summary is surely smaller than (one was about its size).
    script_forever(server, responder([long_answer(1), long_answer(2)], summary=LONG))
    await on_submit(state, "build the parser")
    await on_submit(state, "and the lexer")
    await compact.run_compact(state)
    await dispatch(host, "/compact show")
    assert "point 79 of the work so far. THE END" in _said(state)[-1]


async def test_status_counts_what_went_wrong(make_state, server):
    state = make_state()
    state.stats.compaction_failures, state.stats.left_out_messages, state.stats.refused_requests = 2, 10, 3
    text = "\n".join(str(line) for line in status_lines(state))
    assert "Compaction failures: 2 · messages left out to fit: 10 · requests refused as too long: 3" in text


async def test_compact_undo_twice_goes_back_one_compaction_each_time(make_state, workspace, server):
    state = make_state()

    script_forever(
        server,
        responder(
            [long_answer(n) for n in range(4)],
            summary=lambda body: f"<summary>1. SUMMARY {len(body['messages'])}\n6. ok</summary>",
        ),
    )
    await on_submit(state, "first request")
    await compact.run_compact(state)
    await on_submit(state, "second request")
    await compact.run_compact(state)
    second_archive = state.stats.last_archive
    assert "first request" not in _prompts(state)[1:]

    _, saved_first, _ = compaction.undo_compaction(state)  # back to before the second compaction
    assert "second request" in _prompts(state) and state.stats.last_undo == second_archive
    text = "\n".join(str(line) for line in status_lines(state))
    assert "last compaction chose" not in text and f"Last /compact undo restored: {second_archive}" in text
    own = {m.parts[0].content for m in state.history if is_summary(m)}  # the compaction's own messages
    undone_to = [p for p in _prompts(state) if p not in own]

    plan = compaction.plan_undo(state)  # the next one goes back one further, never re-applies the second
    assert plan.archive not in (second_archive, saved_first)
    archive, saved, _ = compaction.undo_compaction(state, plan)
    prompts = _prompts(state)
    assert prompts[0] == "first request" and "second request" in prompts
    assert all(p in prompts for p in undone_to)
    # Nothing is lost either way: each undo saved what it replaced.
    assert len(session.list_archives(state.session_id, workspace)) == 4 and saved != archive


async def test_no_slash_command_advice_in_one_shot_mode(make_state, server):
    """-p has no /compact: its notices never tell the user to run one (issue 20)."""
    state = make_state(one_shot=True)
    for _ in range(compaction.MAX_COMPACT_FAILURES):
        compaction.failed(state, "auto", "the server said no")
    state.compaction.backoff, state.turns = 1, 3
    check_thrashing(state)
    state.compaction.auto_turns, state.compaction.thrash_streak = [2, 3], 1
    check_thrashing(state)
    assert state.compaction.backoff == 2
    assert not [text for text in _said(state) if "/compact" in text]
