"""agent.state.transcript: the one owner of the history and its session file, against real files."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart

import session
from agent.state.file_history import Checkpoint
from agent.state.transcript import Transcript, read_undo_note
from agent.store import session_format


def _turn(n: int) -> list:
    return [ModelRequest(parts=[UserPromptPart(f"question {n}")]), ModelResponse(parts=[TextPart(f"answer {n}")])]


def _history(turns: int) -> list:
    return [m for n in range(turns) for m in _turn(n)]


def _parts(messages) -> list:
    """The messages' words (a new message has a new timestamp)."""
    return [[p.content for p in m.parts] for m in messages]


def _on_disk(t: Transcript) -> list:
    return _parts(session.load(t.session_id, t.workspace).messages)


def _saved(workspace: Path, turns: int = 3) -> Transcript:
    t = Transcript("s1", workspace)
    t.update(_history(turns))
    t.persist()
    return t


def _full_disk(*args: object, **kwargs: object) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_append_saves_only_what_the_file_lacks(workspace):
    t = _saved(workspace, 2)
    assert t.persisted == 4 and _on_disk(t) == _parts(t.messages)
    size = t.path.stat().st_size
    t.append(*_turn(2))
    assert t.persisted == 6 and _on_disk(t) == _parts(_history(3))
    saved = session_format.header() + session.dump_messages(t.messages[:4]).encode()
    assert t.path.read_bytes()[:size] == saved  # appended, not rewritten


def test_a_failed_persist_changes_nothing_and_the_next_one_retries(workspace, monkeypatch):
    t = _saved(workspace, 1)
    before = t.path.read_bytes()
    t.update([*t.messages, *_turn(1)])
    with monkeypatch.context() as patched:
        patched.setattr(session, "append_messages", _full_disk)
        with pytest.raises(OSError):
            t.persist()
    assert t.persisted == 2 and t.path.read_bytes() == before
    t.persist()
    assert t.persisted == 4 and _on_disk(t) == _parts(_history(2))


def test_truncate_rewrites_the_file_and_append_after_it_continues_there(workspace):
    t = _saved(workspace, 3)
    t.truncate(2)
    assert _parts(t.messages) == _parts(_history(1)) and _on_disk(t) == _parts(_history(1))
    assert t.persisted == 2
    t.append(*_turn(7))
    assert _on_disk(t) == _parts(_history(1) + _turn(7)) == _parts(t.messages)


def test_truncate_after_the_history_went_back_saves_what_it_keeps(workspace):
    t = _saved(workspace, 2)
    start = list(t.messages)
    t.append(*_turn(8))
    t.update([*start[:2], *_turn(5)])  # went back past the saved part, then grew: nothing saved of it
    t.truncate(3)
    assert t.persisted == 3 and _on_disk(t) == _parts(t.messages) == _parts([*start[:2], *_turn(5)[:1]])
    t.append(*_turn(6))
    assert _on_disk(t) == _parts(t.messages)


def test_a_failed_truncate_leaves_history_and_file_as_they_were(workspace, monkeypatch):
    t = _saved(workspace, 3)
    before, messages = t.path.read_bytes(), list(t.messages)
    monkeypatch.setattr(session, "rewrite_messages", _full_disk)
    with pytest.raises(OSError):
        t.truncate(2)
    assert t.messages == messages and t.persisted == 6 and t.path.read_bytes() == before


def test_a_history_that_went_back_has_the_file_rewritten_on_the_next_persist(workspace):
    """A turn that never happened (Ctrl-C before any answer) after its first messages were saved:
    the file must not keep them, or the next appends would land after lines the history lacks."""
    t = _saved(workspace, 2)
    start = list(t.messages)
    t.append(*_turn(9)[:1])  # e.g. an @-mention's read, saved as the turn began
    t.update(start)
    assert t.persisted == len(start)
    t.append(*_turn(3))
    assert _on_disk(t) == _parts(start + _turn(3)) == _parts(t.messages)


def test_equal_copies_of_the_saved_part_are_not_rewritten(workspace, monkeypatch):
    t = _saved(workspace, 2)
    copies = session.load(t.session_id, t.workspace).messages  # as a resumed session reads them
    monkeypatch.setattr(session, "rewrite_messages", _full_disk)  # only an append may happen
    t.update([*copies, *_turn(2)])
    t.persist()
    assert _on_disk(t) == _parts(_history(3))


def test_replace_archives_the_whole_transcript_first_then_rewrites(workspace):
    t = _saved(workspace, 2)
    t.update([*t.messages, *_turn(2)])  # not saved yet: the archive must hold it too
    everything = _parts(t.messages)
    seen: list[Path] = []

    def build(archive: Path) -> list:
        seen.append(archive)
        return [ModelRequest(parts=[UserPromptPart(f"summary; the transcript is in {archive}")])]

    archive = t.replace(build, dropped=[Checkpoint(1, "question 0")])
    assert seen == [archive]
    assert _parts(session.parse_lines(archive.read_bytes()).messages) == everything
    assert _on_disk(t) == _parts(t.messages) and len(t.messages) == 1 and t.persisted == 1
    assert str(archive) in t.messages[0].parts[0].content
    assert read_undo_note(archive) == 1
    assert [(e.archive, [c.user_input for c in e.dropped]) for e in t.undo_stack] == [(archive, ["question 0"])]


@pytest.mark.parametrize("failing", ["archive", "build", "rewrite"])
def test_a_failed_replace_leaves_history_and_file_exactly_as_they_were(workspace, monkeypatch, failing):
    t = _saved(workspace, 3)
    before, messages = t.path.read_bytes(), list(t.messages)

    def build(archive: Path) -> list:
        if failing == "build":
            raise ValueError("the result is not smaller")
        return _turn(0)

    if failing == "archive":
        monkeypatch.setattr(session, "write_via_temp", _full_disk)
    if failing == "rewrite":
        monkeypatch.setattr(session, "rewrite_messages", _full_disk)
    with pytest.raises((OSError, ValueError)):
        t.replace(build)
    assert t.messages == messages and t.persisted == len(messages)
    assert t.path.read_bytes() == before
    assert t.undo_stack == ()
    assert session.list_archives(t.session_id, workspace) == []  # nothing refers to one
    folder = session.archive_dir(workspace)
    assert not folder.exists() or list(folder.iterdir()) == []  # no note, no temp file either


def test_revert_after_replace_brings_back_the_history_the_file_and_the_checkpoints(workspace):
    t = _saved(workspace, 2)
    original = _parts(t.messages)
    checkpoint = Checkpoint(2, "question 1")
    archive = t.replace(lambda _a: [ModelRequest(parts=[UserPromptPart("summary")])], dropped=[checkpoint])
    t.append(*_turn(5))  # a turn made after the compaction
    later = list(t.messages[1:])
    restored = session.parse_lines(archive.read_bytes()).messages

    saved, dropped = t.revert(archive, restored + later)

    assert _parts(t.messages) == original + _parts(later) == _on_disk(t)
    assert dropped == [checkpoint] and t.undo_stack == ()
    # The compacted history went to an archive of its own: undoing the undo loses nothing either.
    assert _parts(session.parse_lines(saved.read_bytes()).messages) == _parts(
        [ModelRequest(parts=[UserPromptPart("summary")])] + later
    )
    assert read_undo_note(saved) == len(t.messages)


def test_open_takes_the_session_lock_and_close_lets_go(workspace):
    t = Transcript.open("s2", workspace, _history(1))
    with pytest.raises(session.SessionLocked):
        Transcript.open("s2", workspace)
    t.close()
    again = Transcript.open("s2", workspace)
    again.close()
    assert not (session.project_dir(workspace) / "s2.lock").exists()


async def test_a_turn_cancelled_before_its_answer_keeps_the_message_in_the_file(make_state, server, workspace):
    """Ctrl-C while the first answer streams: the user's message and its @-mention's read stay, in
    memory and in the file alike (issue 20, case 8: before, the turn never happened)."""
    import asyncio

    from main import on_submit
    from tests.robustness.harness import answer, consistent, next_turn_is_accepted, wait_for

    (workspace / "notes.txt").write_text("some notes\n")
    state = make_state()
    await on_submit(state, "hello")
    task = asyncio.create_task(on_submit(state, "@notes.txt slow answer please"))
    await asyncio.to_thread(wait_for, lambda: "part 3 of 40" in answer(state), 10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    consistent(state)
    saved = state.transcript.path.read_text()
    assert "some notes" in saved and "slow answer please" in saved
    await next_turn_is_accepted(state, server)


def test_nothing_but_the_transcript_writes_the_history_or_the_session_file():
    """Issue 15: the invariant lives in one class. No project module assigns or mutates a `history`
    or `persisted` attribute, or writes the session file or an archive, outside agent/state/transcript.py."""
    import ast

    from tests.test_architecture import ROOT, source_files

    writers = {"rewrite_messages", "append_messages", "archive_session"}
    mutators = {"append", "extend", "insert", "pop", "clear", "remove", "sort", "reverse"}

    def is_history(node: ast.AST) -> bool:  # x.history, or x.transcript.messages
        return isinstance(node, ast.Attribute) and (
            node.attr in ("history", "persisted")
            or (node.attr == "messages" and isinstance(node.value, ast.Attribute) and node.value.attr == "transcript")
        )

    found = []
    for path in source_files(ROOT):
        name = path.relative_to(ROOT).as_posix()
        if name in ("agent/state/transcript.py", "session.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = []
            if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign | ast.Delete):
                targets = node.targets if isinstance(node, ast.Assign | ast.Delete) else [node.target]
            for target in targets:
                while isinstance(target, ast.Subscript):
                    target = target.value
                if is_history(target):
                    found.append(f"{name}:{node.lineno}")
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                if node.func.attr in writers or (node.func.attr in mutators and is_history(node.func.value)):
                    found.append(f"{name}:{node.lineno}")
    assert found == []
