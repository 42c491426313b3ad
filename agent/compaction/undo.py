"""/compact undo: the history from before the newest compaction, with the turns made since; and
/compact show, the compaction's own text.

A compaction archives the session file, then writes the rebuilt history; a note beside the archive
(agent.state.transcript) records how long that rebuilt history was, so the turns appended after it
can be told apart from the compaction's own messages, even in a resumed session, and kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import session
from agent import debuglog
from agent.compaction.rebuild import without_usage
from agent.compaction.summary import head_end
from agent.errors import NothingToCompact
from agent.marks import is_summary
from agent.state.transcript import read_note, read_undo_note
from agent.store.regular_file import read_regular
from agent.text.i18n import t

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

    from agent.state.app import AppState


@dataclass
class UndoPlan:
    """What "/compact undo" would do, worked out before asking: the archive to restore, and the
    messages made after that compaction (None: not known), which go back after it."""

    archive: Path
    restored: list[ModelMessage]
    later: list[ModelMessage] | None

    @property
    def later_turns(self) -> int:
        return sum(
            1
            for m in self.later or []
            if m.kind == "request" and not is_summary(m) and any(p.part_kind == "user-prompt" for p in m.parts)
        )


def plan_undo(state: AppState) -> UndoPlan:
    """The newest rewrite not undone yet: not an archive an undo made of what it replaced (that one
    would redo the compaction), not one already restored (a second undo goes one further back)."""
    transcript = state.transcript
    archives = [
        a
        for a in session.list_archives(transcript.session_id, transcript.workspace)
        if read_note(a).get("kind") != "undo" and not read_note(a).get("undone")
    ]
    if not archives:
        raise NothingToCompact(t("undo_nothing", state.lang))
    newest, rebuilt = archives[-1], read_undo_note(archives[-1])
    # The later messages' usage measured the compacted history: after the restored one it would
    # mislead the gauge.
    later = None if rebuilt is None else without_usage(transcript.messages[rebuilt:])
    return UndoPlan(newest, session.parse_lines(read_regular(newest)).messages, later)


def undo_compaction(state: AppState, plan: UndoPlan | None = None) -> tuple[str, str, int]:
    """Restore the history from the newest archive, archiving the current one first, so nothing is
    lost either way (Transcript.revert); the turns made since follow it again, and the checkpoints
    that compaction dropped come back. What /status says of the last compaction no longer holds.
    Returns the archive restored, the archive of what it replaced, and the messages now."""
    plan = plan or plan_undo(state)
    transcript, file_history, later = state.transcript, state.file_history, plan.later or []
    history = plan.restored + later
    # Checkpoints of the later turns pointed into the compacted history: they move along.
    since = len(transcript.messages) - len(later)
    saved, dropped = transcript.revert(plan.archive, history)
    if plan.later is not None:
        for checkpoint in file_history.checkpoints:
            if checkpoint.history_index >= since:
                checkpoint.history_index += len(plan.restored) - since
    file_history.restore_checkpoints(dropped)
    debuglog.log("compact_undo", archive=str(plan.archive), saved=str(saved), messages=len(history), later=len(later))
    stats = state.stats
    stats.last_archive, stats.last_undo = str(saved), str(plan.archive)
    stats.tier_choice = stats.tier_reason = ""
    stats.tier_clear_cost = stats.tier_summary_cost = None
    recorder = state.scratch.recorder
    recorder.forget()
    # The next compaction summarizes the restored part, which the provider still caches (the
    # compaction undone sent it), and keeps the turns made since verbatim after it.
    recorder.restored = state.history[: len(plan.restored)]
    return str(plan.archive), str(saved), len(history)


def last_summary(state: AppState) -> str | None:
    """The compaction's own text at the start of the history, whole (/compact show): the user
    messages carried and the summary, without the restored files; or None."""
    texts = [str(m.parts[0].content) for m in state.history[: head_end(state.history)] if is_summary(m)]
    return "\n\n".join(texts) if texts else None
