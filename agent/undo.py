"""/compact undo: the history from before the newest compaction, with the turns made since.

A compaction archives the session file, then writes the rebuilt history; a note beside the
archive records how long that rebuilt history was, so the turns appended after it can be told
apart from the compaction's own messages, even in a resumed session, and kept.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import session
from agent import debuglog
from agent.errors import NothingToCompact
from agent.i18n import t
from agent.summary import is_summary

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

    from agent.state import AppState


@dataclass
class UndoPlan:
    """What "/compact undo" would do, worked out before asking: the archive to restore, and the
    messages made after that compaction (None: not known), which go back after it."""

    archive: Path
    restored: list[ModelMessage]
    later: list[ModelMessage] | None

    @property
    def later_turns(self) -> int:
        return count_turns(self.later or [])


def later_messages(current: Sequence[ModelMessage], rebuilt: int | None) -> list[ModelMessage] | None:
    """The messages after the first `rebuilt` (the history a compaction wrote): those made since."""
    import dataclasses

    from pydantic_ai.messages import ModelResponse
    from pydantic_ai.usage import RequestUsage

    if rebuilt is None:
        return None
    # Their usage measured the compacted history: after the restored one it would mislead the gauge.
    return [dataclasses.replace(m, usage=RequestUsage()) if isinstance(m, ModelResponse) else m
            for m in current[rebuilt:]]


def count_turns(messages: Sequence[ModelMessage]) -> int:
    from pydantic_ai.messages import ModelRequest, UserPromptPart

    return sum(1 for m in messages if isinstance(m, ModelRequest) and not is_summary(m)
               and any(isinstance(p, UserPromptPart) for p in m.parts))


def undo_note(archive: Path) -> Path:
    return archive.with_suffix(".undo.json")


def write_undo_note(archive: Path, rebuilt: int) -> None:
    """Beside the archive: how long the history was that replaced it, so "/compact undo" (even
    after a resume) can tell the turns made since from the compaction's own messages."""
    try:
        session.write_atomic(undo_note(archive), json.dumps({"rebuilt_messages": rebuilt}).encode())
    except OSError as exc:
        debuglog.log("undo_note_failed", error=str(exc))


def read_undo_note(archive: Path) -> int | None:
    try:
        value = json.loads(undo_note(archive).read_text()).get("rebuilt_messages")
    except (OSError, ValueError, AttributeError):
        return None
    return value if isinstance(value, int) and value >= 0 else None


def plan_undo(state: AppState) -> UndoPlan:
    archives = session.list_archives(state.session_id, state.workspace)
    if not archives:
        raise NothingToCompact(t("undo_nothing", state.lang))
    newest = archives[-1]
    restored = session.parse_lines(newest.read_bytes()).messages
    return UndoPlan(newest, restored, later_messages(state.history, read_undo_note(newest)))


def undo_compaction(state: AppState, plan: UndoPlan | None = None) -> tuple[str, str, int]:
    """Restore the history from the newest archive, archiving the current one first, so nothing
    is lost either way; the turns made after that compaction follow it again. Checkpoints that
    compaction dropped come back with it."""
    plan = plan or plan_undo(state)
    newest, later = plan.archive, plan.later or []
    if state.persisted < len(state.history):
        session.append_messages(state.session_id, state.history[state.persisted :], state.workspace)
    saved = session.archive_session(state.session_id, state.workspace)
    history = plan.restored + later
    session.rewrite_messages(state.session_id, history, state.workspace)
    # Undoing this undo restores `saved`; what comes after `history` was made since.
    write_undo_note(saved, len(history))
    if plan.later is not None:
        # Checkpoints of the later turns pointed into the compacted history: move them along.
        shift = len(plan.restored) - (len(state.history) - len(later))
        for checkpoint in state.file_history.checkpoints:
            if checkpoint.history_index >= len(state.history) - len(later):
                checkpoint.history_index += shift
    state.history = history
    state.persisted = len(history)
    for index in range(len(state.compact_undo) - 1, -1, -1):
        archive, dropped = state.compact_undo[index]
        if archive == newest:
            state.file_history.restore_checkpoints(dropped)
            del state.compact_undo[index]
            break
    debuglog.log("compact_undo", archive=str(newest), saved=str(saved), messages=len(history), later=len(later))
    return str(newest), str(saved), len(history)
