"""/compact undo: the history from before the newest compaction, with the turns made since.

A compaction archives the session file, then writes the rebuilt history; a note beside the
archive records how long that rebuilt history was, so the turns appended after it can be told
apart from the compaction's own messages, even in a resumed session, and kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import session
from agent import debuglog
from agent.compaction.summary import is_summary
from agent.errors import NothingToCompact
from agent.state.transcript import read_note, read_undo_note, undo_note, write_undo_note  # noqa: F401 - re-exported  # noqa: F401 - re-exported
from agent.store.regular_file import read_regular
from agent.text.i18n import t

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

    from agent.state.file_history import FileHistory
    from agent.state.transcript import Transcript


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
    from agent.compaction.tiers import without_usage

    if rebuilt is None:
        return None
    # Their usage measured the compacted history: after the restored one it would mislead the gauge.
    return without_usage(current[rebuilt:])


def count_turns(messages: Sequence[ModelMessage]) -> int:
    from pydantic_ai.messages import ModelRequest, UserPromptPart

    return sum(1 for m in messages if isinstance(m, ModelRequest) and not is_summary(m)
               and any(isinstance(p, UserPromptPart) for p in m.parts))


def plan_undo(transcript: Transcript, lang: str) -> UndoPlan:
    # The newest rewrite not undone yet: not an archive an undo made of what it replaced (that one
    # would redo the compaction), not one already restored (a second undo goes one further back).
    archives = [a for a in session.list_archives(transcript.session_id, transcript.workspace)
                if read_note(a).get("kind") != "undo" and not read_note(a).get("undone")]
    if not archives:
        raise NothingToCompact(t("undo_nothing", lang))
    newest = archives[-1]
    restored = session.parse_lines(read_regular(newest)).messages
    return UndoPlan(newest, restored, later_messages(transcript.messages, read_undo_note(newest)))


def undo_compaction(transcript: Transcript, file_history: FileHistory, plan: UndoPlan) -> tuple[str, str, int]:
    """Restore the history from the newest archive, archiving the current one first, so nothing
    is lost either way (Transcript.revert); the turns made after that compaction follow it again.
    Checkpoints that compaction dropped come back with it."""
    newest, later = plan.archive, plan.later or []
    history = plan.restored + later
    # Checkpoints of the later turns pointed into the compacted history: they move along.
    since = len(transcript.messages) - len(later)
    shift = len(plan.restored) - since
    saved, dropped = transcript.revert(newest, history)
    if plan.later is not None:
        for checkpoint in file_history.checkpoints:
            if checkpoint.history_index >= since:
                checkpoint.history_index += shift
    file_history.restore_checkpoints(dropped)
    debuglog.log("compact_undo", archive=str(newest), saved=str(saved), messages=len(history), later=len(later))
    return str(newest), str(saved), len(history)
