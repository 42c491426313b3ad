"""/rewind: every turn of the session, the compacted ones too where an archive holds them, and the
conversation and/or the files put back to before any one of them.

Nothing is lost: the conversation as it is goes to the archive first (agent.state.transcript's rewrite,
as a compaction's), so its later turns stay listed (from that archive) and `back` restores it whole.
A turn's files come back from the checkpoints this process made (agent.state.file_history); the files of
a turn from an earlier run, or one a compaction removed, are not known, and the rewind says so.
The files as they were before a rewind become a checkpoint of their own: /undo puts them back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import session
from agent.compaction import files_touched
from agent.marks import is_agent_note, is_hook_message, is_summary
from agent.store.regular_file import read_regular

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

    from agent.state.app import AppState
    from agent.state.file_history import Checkpoint

MARK = ".rewind"  # beside an archive a rewind made: `back` restores it


@dataclass(frozen=True)
class Turn:
    text: str  # the user's message
    files: tuple[str, ...]  # what the turn's write_file / edit_file changed
    source: Path | None  # None: the current conversation; else the archive that holds the turn
    index: int  # the turn's user request in its source
    stamp: str

    @property
    def first_line(self) -> str:
        return next((line.strip() for line in self.text.splitlines() if line.strip()), "")


def _prompt_text(message: ModelMessage) -> str | None:
    from pydantic_ai.messages import ModelRequest, UserPromptPart

    if (
        not isinstance(message, ModelRequest)
        or is_summary(message)
        or is_hook_message(message)
        or is_agent_note(message.metadata)
    ):  # a note of the agent's (pins, left-out messages), not a turn
        return None
    texts = [p.content for p in message.parts if isinstance(p, UserPromptPart) and isinstance(p.content, str)]
    return texts[0] if texts else None


def turns_of(messages: Sequence[ModelMessage], source: Path | None) -> list[Turn]:
    starts = [(i, text) for i, m in enumerate(messages) if (text := _prompt_text(m)) is not None]
    out = []
    for n, (index, text) in enumerate(starts):
        end = starts[n + 1][0] if n + 1 < len(starts) else len(messages)
        files = tuple(sorted(files_touched(messages[index:end])))
        stamp = str(getattr(messages[index].parts[0], "timestamp", "") or "")
        out.append(Turn(text, files, source, index, stamp))
    return out


def list_turns(state: AppState) -> list[Turn]:
    """Every turn once, oldest first: from the current conversation where it still is, else from the
    oldest archive that holds it (before any summary replaced it)."""
    found: dict[tuple[str, str], Turn] = {}
    for archive in session.list_archives(state.session_id, state.workspace):
        try:
            messages = session.parse_lines(read_regular(archive)).messages
        except OSError:
            continue  # gone, or swapped for something else since it was listed
        for turn in turns_of(messages, archive):
            found.setdefault((turn.stamp, turn.text), turn)
    for turn in turns_of(state.history, None):
        found[(turn.stamp, turn.text)] = turn
    return sorted(found.values(), key=lambda turn: turn.stamp)


def last_rewind(state: AppState) -> Path | None:
    """The archive of the newest rewind, if nothing rewrote the conversation since (`back`)."""
    archives = session.list_archives(state.session_id, state.workspace)
    return archives[-1] if archives and archives[-1].with_suffix(MARK).exists() else None


def checkpoint_of(state: AppState, turn: Turn) -> Checkpoint | None:
    """This process's checkpoint of a turn of the current conversation, or None."""
    if turn.source is not None:
        return None
    before = [cp for cp in state.file_history.checkpoints if cp.history_index <= turn.index]
    return before[-1] if before and before[-1].user_input == turn.text else None


def rewind(state: AppState, turn: Turn, conversation: bool, files: bool) -> tuple[list[str], list[str]]:
    """Put the conversation and/or the files back to before `turn`; returns rewind_files' lists."""
    checkpoint = checkpoint_of(state, turn) if files else None
    restored, failed = rewind_files(state, checkpoint) if checkpoint is not None else ([], [])
    now = state.file_history.checkpoints[-1] if checkpoint is not None else None
    if conversation:
        rewind_conversation(state, turn)
        if now is not None:  # the files before the rewind, still one /undo away
            now.history_index = len(state.history)
            state.file_history.checkpoints.append(now)
    return restored, failed


def rewind_files(state: AppState, checkpoint: Checkpoint) -> tuple[list[str], list[str]]:
    """The files as they were before `checkpoint`'s turn: each later checkpoint undone, newest first,
    after the files as they are now became a checkpoint of their own (so /undo can put them back).
    Returns the paths put back and the "path: reason" of those that could not be."""
    from agent.state.file_history import owning_root, restore_file
    from agent.tools.workspace import added_folders

    history, root, added = state.file_history, state.workspace.resolve(), added_folders(state.workspace)
    later = history.checkpoints[history.checkpoints.index(checkpoint) :]
    history.make_checkpoint(len(state.history), "/rewind")  # the files as they are now, for /undo
    for cp in later:
        for path in cp.files:
            history.record_before_write(path, owning_root(path, root, added))
    restored, failed = [], []
    for cp in reversed(later):
        for path, content in cp.files.items():
            if why := restore_file(path, content, owning_root(path, root, added), state.lang):
                failed.append(why)
            else:
                restored.append(str(path))
    return sorted(set(restored)), list(dict.fromkeys(failed))


def rewind_conversation(state: AppState, turn: Turn) -> Path:
    """The conversation as it was before `turn`; the current one is archived first. Returns the archive."""
    from agent.compaction import cancel_background

    cancel_background(state)
    messages = state.history if turn.source is None else session.parse_lines(read_regular(turn.source)).messages
    checkpoint = checkpoint_of(state, turn)
    cut = checkpoint.history_index if checkpoint is not None else turn.index
    archive = state.transcript.replace(lambda _archive: list(messages[:cut]))
    _mark(archive)
    state.file_history.checkpoints = [
        cp for cp in state.file_history.checkpoints if turn.source is None and cp.history_index < cut
    ]
    state.scratch.recorder.forget()
    return archive


def back(state: AppState, archive: Path) -> Path:
    """Undo the newest rewind: the conversation it archived comes back whole (the current one is archived)."""
    from agent.compaction import cancel_background

    cancel_background(state)
    messages = session.parse_lines(read_regular(archive)).messages
    saved = state.transcript.replace(lambda _archive: messages)
    archive.with_suffix(MARK).unlink(missing_ok=True)
    state.scratch.recorder.forget()
    return saved


def _mark(archive: Path) -> None:
    try:
        session.write_atomic(archive.with_suffix(MARK), b"{}")
    except OSError:
        pass  # without the mark, `back` is not offered; the archive is still listed
