"""Compaction loses nothing the user cares about and costs them no waiting."""

from __future__ import annotations

import asyncio

import compact
import session
from agent import compaction
from agent.compaction.background import cancel_background
from agent.compaction.summary import USER_MESSAGE_MAX_CHARS
from agent.events import CompactionFinished
from agent.marks import is_summary
from main import on_submit
from tests.builders import is_compaction, long_answer, note, responder, script_forever
from tests.fake_openai import Slow, ToolCalls


def _summary_text(state) -> str:
    return compaction.last_summary(state)


async def test_user_messages_survive_verbatim(make_state, workspace, server):
    state = make_state()
    long_message = "please keep this exact wording: " + "x" * (USER_MESSAGE_MAX_CHARS + 500)
    for text in ["first request: build the parser", "use tabs, not spaces", long_message]:
        await on_submit(state, text)
    # The model quotes one user message and forgets the others.
    script_forever(
        server, responder([], summary="<summary>1. Build the parser. 5. use tabs, not spaces\n6. ok</summary>")
    )
    await compact.run_compact(state)
    text = _summary_text(state)
    assert "Original user messages" in text
    assert "- first request: build the parser" in text
    # Issue 20: every carried message is listed verbatim at the start (the part of the summary message
    # that changes least, for the prefix cache), even when the model's summary quotes it too.
    assert text.count("use tabs, not spaces") == 2
    assert text.index("first request: build the parser") < text.index("5. use tabs")
    assert "please keep this exact wording: xxx" in text and "characters cut" in text
    assert "x" * (USER_MESSAGE_MAX_CHARS + 100) not in text


async def test_files_touched_are_listed_from_the_records(make_state, workspace, server):
    state = make_state()
    (workspace / "b.py").write_text("a = 1\nb = 2\n")
    script_forever(
        server,
        responder(
            [
                ToolCalls([("write_file", {"path": "a.py", "content": "print('a')\n"})]),
                long_answer(),
                ToolCalls([("read_file", {"path": "b.py"})]),
                long_answer(),
                ToolCalls([("edit_file", {"path": "b.py", "old_string": "a = 1", "new_string": "a = 10"})]),
                long_answer(),
                ToolCalls([("edit_file", {"path": "b.py", "old_string": "b = 2", "new_string": "b = 20"})]),
                long_answer(),
                ToolCalls([("write_file", {"path": "c.py", "content": "tmp\n"})]),
                long_answer(),
                ToolCalls([("edit_file", {"path": "missing.py", "old_string": "x", "new_string": "y"})]),
                long_answer(),
            ],
            summary="<summary>1. Worked on some files.\n6. ok</summary>",
        ),
    )
    for text in ["create a", "look at b", "edit b", "edit b again", "create c", "edit missing"]:
        await on_submit(state, text)
    (workspace / "c.py").unlink()
    await compact.run_compact(state)
    text = _summary_text(state)
    assert "Files changed by the agent" in text
    assert "- a.py: created" in text
    assert "- b.py: edited 2 time(s)" in text
    assert "- c.py: created, deleted since" in text
    assert "missing.py" not in text.split("Files changed by the agent")[1]

    # A later compaction still lists them, with what happened since.
    await on_submit(state, "edit b once more")  # smart default: no tool; just chat
    state.read_file_state.record(workspace / "b.py")
    script_forever(
        server,
        responder(
            [
                ToolCalls([("edit_file", {"path": "b.py", "old_string": "a = 10", "new_string": "a = 11"})]),
                long_answer(),
            ],
            summary="<summary>1. More work.\n6. ok</summary>",
        ),
    )
    await on_submit(state, "edit b third time")
    await compact.run_compact(state)
    text = _summary_text(state)
    assert "- a.py: created" in text and "- b.py: edited 3 time(s)" in text


async def test_incremental_summary_updates_the_previous_one(make_state, workspace, server):
    state = make_state()
    first = "<summary>1. FIRST SUMMARY about the parser.\n6. ok</summary>"
    script_forever(server, responder([long_answer(1), long_answer(2)], summary=first))
    await on_submit(state, "build the parser")
    await compact.run_compact(state)
    first_archive = state.stats.last_archive
    await on_submit(state, "now the lexer")
    script_forever(server, responder([], summary="<summary>1. SECOND SUMMARY: parser and lexer.\n6. ok</summary>"))
    await compact.run_compact(state)

    request = [r for r in server.requests if is_compaction(r["body"])][-1]["body"]["messages"]
    assert "FIRST SUMMARY about the parser" in "\n".join(str(m.get("content")) for m in request)
    assert "document to update" in request[-1]["content"]
    text = _summary_text(state)
    assert "SECOND SUMMARY" in text and "FIRST SUMMARY" not in text
    archives = [str(p) for p in session.list_archives(state.session_id, workspace)]
    assert archives == [first_archive, state.stats.last_archive]
    assert text.index(archives[0]) < text.rindex(archives[1])


async def test_compact_undo_restores_history_and_checkpoints(make_state, workspace, server):
    state = make_state()
    server.script(long_answer(1), long_answer(2))
    await on_submit(state, "one")
    await on_submit(state, "two")
    original = [m.parts for m in state.history]
    checkpoints = list(state.file_history.checkpoints)
    script_forever(server, responder([]))
    await compact.run_compact(state)
    compacted = list(state.history)
    assert state.file_history.checkpoints == []

    archive, saved, count = compaction.undo_compaction(state)

    assert [m.parts for m in state.history] == original and count == len(original)
    assert [m.parts for m in session.load(state.session_id, workspace).messages] == original
    assert state.file_history.checkpoints == checkpoints
    # The compacted history was archived first: nothing is lost either way.
    saved_messages = session.parse_lines(open(saved, "rb").read()).messages
    assert [m.parts for m in saved_messages] == [m.parts for m in compacted]


async def test_background_summary_removes_the_wait(make_state, workspace, server):
    state = make_state(context_window=16_000)
    script_forever(server, responder([]))
    n = 0
    while state.compaction.background is None:
        await on_submit(state, note(n, 200))
        n += 1
    assert state.compaction.background.before < compaction.threshold(state)  # started below the threshold
    first_after_snapshot = note(n, 200)
    await asyncio.wait_for(asyncio.shield(state.compaction.background.task), 10)
    compaction_requests = sum(is_compaction(r["body"]) for r in server.requests)
    # Keep chatting past the threshold: the summary is swapped in without a new request.
    while not state.emit.of(CompactionFinished):
        await on_submit(state, note(n, 200))
        n += 1
    assert sum(is_compaction(r["body"]) for r in server.requests) == compaction_requests
    finished = state.emit.of(CompactionFinished)[0]
    assert finished.trigger == "background"
    assert is_summary(state.history[0])
    # Messages added after the snapshot follow the summary verbatim.
    prompts = [
        p.content for m in state.history[1:] if m.kind == "request" for p in m.parts if p.part_kind == "user-prompt"
    ]
    assert first_after_snapshot in prompts


async def test_background_summary_discarded_when_history_changes(make_state, workspace, server):
    state = make_state(context_window=16_000)
    script_forever(server, responder([]))
    n = 0
    while state.compaction.background is None:
        await on_submit(state, note(n, 200))
        n += 1
    task = state.compaction.background.task
    cancel_background(state)  # what /clear, /undo, a model change and exit do
    await asyncio.wait([task], timeout=5)
    # It ends promptly (a reply already complete may still arrive) and is never swapped in.
    assert task.done()
    while not state.emit.of(CompactionFinished):
        await on_submit(state, note(n, 200))
        n += 1
    assert [f.trigger for f in state.emit.of(CompactionFinished)][0] == "auto"


async def test_background_not_used_if_history_no_longer_starts_with_snapshot(make_state, workspace, server):
    from tests.builders import take_background

    state = make_state(context_window=16_000)
    script_forever(server, responder([Slow("x", 0.01)]))
    n = 0
    while state.compaction.background is None:
        await on_submit(state, note(n, 200))
        n += 1
    snapshot = state.compaction.background.snapshot
    state.transcript.truncate(len(snapshot) - 2)  # e.g. /undo removed turns the snapshot holds
    assert take_background(state) is None
    assert state.compaction.background is None
