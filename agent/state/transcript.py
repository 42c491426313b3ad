"""The one owner of the conversation: the history, how much of it the session file holds, the file
and its lock, and the "/compact undo" stack.

Its invariant: the session file holds the history's first `persisted` messages, nothing else (the
last line may be torn by a crash; session.load skips it). Every change of the history goes through
here, so a turn's appends, a compaction's rewrite, /undo, /compact undo, /clear, /resume and the
repair after Ctrl-C cannot disagree about it. A change that fails leaves history and file as they
were; only then does memory change.

A history read back (controller.load_session) may differ from its file by what the load skipped or
repaired (a torn or corrupt line, a tool call a crash left without its result): the file keeps
those lines as they were (one may be recovered by hand), new messages are appended after them, and
every load makes the same repairs again.
"""

from __future__ import annotations

import errno
import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import session
from agent import debuglog
from agent.store.faults import fault
from agent.store.project_dirs import archive_dir

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

    from agent.state.file_history import Checkpoint


@dataclass(frozen=True)
class UndoEntry:
    """One rewrite "/compact undo" can take back: the archive of what it replaced, and the checkpoints
    (agent.state.file_history) it dropped, which come back with it."""

    archive: Path
    dropped: tuple[Checkpoint, ...] = ()


def undo_note(archive: Path) -> Path:
    return archive.with_suffix(".undo.json")


def write_undo_note(archive: Path, rebuilt: int, kind: str = "") -> None:
    """Beside the archive: how long the history was that replaced it, so "/compact undo" (even
    after a resume) can tell the turns made since from the rewrite's own messages; `kind` "undo"
    for the archive a /compact undo made of the history it replaced (never an undo's target)."""
    note = {"rebuilt_messages": rebuilt, **({"kind": kind} if kind else {})}
    try:
        session.write_atomic(undo_note(archive), json.dumps(note).encode())
    except OSError as exc:
        debuglog.log("undo_note_failed", error=str(exc))


def read_note(archive: Path) -> dict:
    try:
        note = json.loads(undo_note(archive).read_text())
    except (OSError, ValueError):
        return {}
    return note if isinstance(note, dict) else {}


def mark_undone(archive: Path) -> None:
    """A /compact undo restored this archive: the next one goes back one rewrite further."""
    note = {**read_note(archive), "undone": True}
    try:
        session.write_atomic(undo_note(archive), json.dumps(note).encode())
    except OSError as exc:
        debuglog.log("undo_note_failed", error=str(exc))


def read_undo_note(archive: Path) -> int | None:
    try:
        value = json.loads(undo_note(archive).read_text()).get("rebuilt_messages")
    except (OSError, ValueError, AttributeError):
        return None
    return value if isinstance(value, int) and value >= 0 else None


def discard_archive(archive: Path) -> None:
    """An archive nothing refers to (its rewrite never happened), and its note."""
    for path in (archive, undo_note(archive)):
        try:
            path.unlink()
        except OSError:
            pass


class Transcript:
    """A session's history and its file. Build one per session: starting, resuming, /clear and
    /resume make a new one (Transcript.open), so nothing of the last session carries over."""

    def __init__(
        self,
        session_id: str,
        workspace: Path,
        messages: Sequence[ModelMessage] = (),
        *,
        lock: session.SessionLock | None = None,
    ) -> None:
        self.session_id = session_id
        self.workspace = workspace
        self._messages: list[ModelMessage] = list(messages)
        # Messages of the history the file holds; the file holds more (a history that went back or
        # took another course) only while `_stale`, until the next persist rewrites it.
        self._persisted = len(self._messages)
        self._stale = False
        self._lock = lock
        self._undo: list[UndoEntry] = []

    @classmethod
    def open(cls, session_id: str, workspace: Path, messages: Sequence[ModelMessage] = ()) -> Transcript:
        """The session's transcript, `messages` being what its file holds, with its lock taken:
        raises session.SessionLocked while another process has it."""
        return cls(session_id, workspace, messages, lock=session.SessionLock(session_id, workspace))

    def close(self) -> None:
        """Let go of the session's lock (a switch to another session, the exit)."""
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    @property
    def messages(self) -> list[ModelMessage]:
        """The history. Read it, never change it: every change goes through the methods below."""
        return self._messages

    @property
    def persisted(self) -> int:
        return self._persisted

    @property
    def path(self) -> Path:
        return session.session_file(self.session_id, self.workspace)

    @property
    def undo_stack(self) -> tuple[UndoEntry, ...]:
        return tuple(self._undo)

    # --- growing ---------------------------------------------------------------------------

    def update(self, messages: Sequence[ModelMessage]) -> None:
        """Make `messages` the history, in memory only (persist() saves). A turn's history begins with
        the saved part; one that does not (a turn that never happened) has the file rewritten by the
        next persist(), since the file must not keep messages the history no longer has."""
        messages = list(messages)
        saved = self._persisted
        kept = self.saved_prefix(messages)
        if kept < saved:
            limit = min(saved, len(messages))
            while kept < limit and messages[kept] == self._messages[kept]:
                kept += 1
        if kept < saved:
            self._persisted, self._stale = kept, True
        self._messages = messages

    @property
    def saved(self) -> int:
        """How many messages of the history, from the start, the session file has."""
        return self._persisted

    def saved_prefix(self, messages: Sequence[ModelMessage]) -> int:
        """How many of `messages`, from the start, are the saved ones: all of them or 0. List equality
        tries identity first, at C speed: the usual case (a turn's run starts from our list) costs
        little on a long history; equal copies (as read from disk) count too."""
        saved = self._persisted
        return saved if len(messages) >= saved and list(messages[:saved]) == self._messages[:saved] else 0

    def append(self, *messages: ModelMessage) -> None:
        self.update(self._messages + list(messages))
        self.persist()

    def persist(self) -> None:
        """Save what the file lacks: appended, or the whole history rewritten after it went back.
        A failed write raises OSError and changes nothing (the next persist tries again)."""
        if self._stale:
            session.rewrite_messages(self.session_id, self._messages, self.workspace)
            self._stale = False
        elif self._persisted < len(self._messages):
            session.append_messages(self.session_id, self._messages[self._persisted :], self.workspace)
        self._persisted = len(self._messages)

    def truncate(self, length: int) -> None:
        """The history and the file end after `length` messages (/undo), both or neither: raises
        OSError with both unchanged."""
        if length >= len(self._messages):
            return
        kept = self._messages[:length]
        if self._stale or self._persisted > length:
            session.rewrite_messages(self.session_id, kept, self.workspace)
            self._persisted, self._stale = length, False
        self._messages = kept

    # --- rewriting -------------------------------------------------------------------------

    def check_archive(self) -> None:
        """Raises OSError unless the archive folder can be written (a compaction asks before it pays
        for its summary)."""
        folder = archive_dir(self.workspace)
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        if not os.access(folder, os.W_OK):
            raise PermissionError(errno.EACCES, "permission denied", str(folder))

    def _archive(self) -> Path:
        """Save what the file lacks, then copy the whole file into the archive: the transcript as
        it is now, for the rewrite that follows. The archive path goes into what replaces it."""
        self.persist()
        return session.archive_session(self.session_id, self.workspace)

    def replace(self, build: Callable[[Path], Sequence[ModelMessage]], *, dropped: Sequence[Checkpoint] = ()) -> Path:
        """Archive the full transcript, then make `build(archive)` the history and the file (a
        compaction, a history fitted to the window). `dropped`: the checkpoints the caller drops once
        this returns; "/compact undo" brings them back. If anything raises (the archive, `build`
        refusing its result, the rewrite), history and file stay as they were (with what the file
        lacked saved) and the archive is discarded. Returns the archive."""
        archive, messages = self._rewrite(build)
        self._undo.append(UndoEntry(archive, tuple(dropped)))
        return archive

    def revert(self, archive: Path, messages: Sequence[ModelMessage]) -> tuple[Path, list[Checkpoint]]:
        """ "/compact undo": `messages` (what `archive` holds, and the turns made since) become the
        history; the current one is archived first, so nothing is lost either way. Returns that new
        archive and the checkpoints the undone rewrite dropped (its entry leaves the stack)."""
        saved, _ = self._rewrite(lambda _archive: messages, kind="undo")
        mark_undone(archive)
        for index in range(len(self._undo) - 1, -1, -1):
            if self._undo[index].archive == archive:
                return saved, list(self._undo.pop(index).dropped)
        return saved, []

    def _rewrite(
        self, build: Callable[[Path], Sequence[ModelMessage]], kind: str = ""
    ) -> tuple[Path, list[ModelMessage]]:
        archive = self._archive()
        try:
            messages = list(build(archive))
            session.rewrite_messages(self.session_id, messages, self.workspace)
        except BaseException:
            discard_archive(archive)
            raise
        fault("rewrite_done")
        # After the rewrite: a note for a rewrite that never happened would misplace the later turns.
        write_undo_note(archive, len(messages), kind)
        self._messages, self._persisted, self._stale = messages, len(messages), False
        return archive, messages
