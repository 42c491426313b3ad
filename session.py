"""Sessions on disk: one JSONL file per session, one pydantic-ai message per line.

Each message is appended as it is produced, so a crash loses at most the message in flight.
Rewrites (after a compaction) go through a temp file, fsync and rename, so a reader sees either
the old file or the new one, never a mix.
"""

from __future__ import annotations

import json
import os
import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from agent.config import data_home
from agent.marks import is_agent_note
from agent.store import long_lines, session_format
from agent.store.atomic import replace_file, write_via_temp
from agent.store.faults import fault

# Re-exported: callers know the folders as session.project_dir and session.archive_dir.
from agent.store.project_dirs import ARCHIVE_DIR_NAME, archive_dir, folder_name, private_dir, project_dir  # noqa: F401
from agent.store.regular_file import open_regular, read_regular
from agent.store.session_lock import SessionLock, SessionLocked  # noqa: F401 - session.SessionLock is the API
from agent.text.clean_text import clean_messages

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

COPY_CHUNK = 1 << 20
# Temp files of a rewrite or an archive end so: SessionLock removes the stale ones a crash left.
SESSION_TEMP = ".tmp"


def new_session_id() -> str:
    return f"{datetime.now():%Y%m%d-%H%M%S}-{uuid.uuid4().hex[:6]}"


def session_file(session_id: str, workspace: Path | None = None) -> Path:
    return project_dir(workspace) / f"{session_id}.jsonl"


# --- serialization -------------------------------------------------------------------------


def _adapter():
    # Imported lazily: pydantic-ai is the slowest import and start-up should not wait for it.
    from pydantic_ai.messages import ModelMessagesTypeAdapter

    return ModelMessagesTypeAdapter


def dump_message(message: ModelMessage) -> str:
    return _adapter().dump_json([message]).decode()[1:-1]


def dump_messages(messages: Sequence[ModelMessage]) -> str:
    return "".join(dump_message(m) + "\n" for m in messages)


def _open_private(path: Path, flags: int) -> int:
    return os.open(path, flags, 0o600)


def _write_all(fd: int, data: bytes) -> None:
    # os.write may write less than asked (a full disk, a signal): loop until done or an error.
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def append_messages(session_id: str, messages: Sequence[ModelMessage], workspace: Path | None = None) -> None:
    """Append `messages`, one line each. A failed write (a full disk) is rolled back and raised:
    the file never keeps half a message from us."""
    if not messages:
        return
    data = dump_messages(messages).encode()
    path = session_file(session_id, workspace)
    fd = _open_private(path, os.O_RDWR | os.O_CREAT | os.O_APPEND)
    try:
        size = os.fstat(fd).st_size
        if not size:
            data = session_format.header() + data
        elif session_format.older(os.pread(fd, 200, 0)):
            # Lines of this version must not follow an older file's: the whole file goes up first.
            write_atomic(path, session_format.upgraded_file(os.pread(fd, size, 0)) + data)
            return
        # A crash mid-append leaves a last line without its newline; our first message must not be
        # glued to it (it would be skipped with the torn line on the next load).
        if size and os.pread(fd, 1, size - 1) != b"\n":
            data = b"\n" + data
        half = len(data) // 2
        try:
            _write_all(fd, data[:half])
            fault("append_mid_write")
            _write_all(fd, data[half:])
        except OSError:
            try:
                os.ftruncate(fd, size)
            except OSError:
                pass
            raise
    finally:
        os.close(fd)


def write_atomic(path: Path, data: bytes) -> None:
    """Replace `path` with `data` so that a crash leaves the old or the new file, never a mix."""
    replace_file(path, data, mode=0o600, suffix=SESSION_TEMP, point="rewrite_mid_write")


def rewrite_messages(session_id: str, history: Sequence[ModelMessage], workspace: Path | None = None) -> None:
    write_atomic(session_file(session_id, workspace), session_format.header() + dump_messages(history).encode())


# --- loading -------------------------------------------------------------------------------


@dataclass
class Loaded:
    messages: list[ModelMessage]
    # One line per skipped line: "line 7: <why>".
    skipped: list[str]
    # Lines loaded cut short (agent.store.long_lines): the values of the i18n text "cut_line", with "line".
    cut: list[dict[str, object]] = field(default_factory=list)
    # The file's format (agent.store.session_format); one newer than this code's may not load whole.
    version: int = session_format.CURRENT


# A lone surrogate as JSON writes it (an escape; a pair of them is a valid character, cleaned alike).
_ESCAPED_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def parse_lines(data: bytes) -> Loaded:
    """The messages of a session file. A lone surrogate in one (a file written by hand or by an
    older version) becomes U+FFFD here, so that everything saved or loaded is clean and only what
    comes after needs cleaning (agent.text.clean_text)."""
    loaded = _parse_lines(data)
    if _ESCAPED_SURROGATE.search(data):
        clean_messages(loaded.messages)
    return loaded


def _parse_lines(data: bytes) -> Loaded:
    adapter = _adapter()
    lines = []
    cut = []
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if raw.strip():
            raw, note = long_lines.shrink(raw)
            lines.append((number, raw))
            if note:
                cut.append({"line": number, **note})
    version, lines = session_format.message_lines(lines)
    try:
        # The usual case, a file with no bad line, in one pass: about twice as fast as line by line.
        return Loaded(adapter.validate_json(b"[" + b",".join(raw for _, raw in lines) + b"]"), [], cut, version)
    except ValueError:
        pass
    messages: list[ModelMessage] = []
    skipped: list[str] = []
    for number, raw in lines:
        try:
            messages.extend(adapter.validate_json(b"[" + raw + b"]"))
        except ValueError as exc:  # pydantic.ValidationError and JSON errors are ValueErrors
            skipped.append(f"line {number}: {_reason(exc)}")
    return Loaded(messages, skipped, cut, version)


def _reason(exc: ValueError) -> str:
    """Why a line was skipped, in a few words: pydantic's first line only names the type."""
    from pydantic import ValidationError

    errors = exc.errors() if isinstance(exc, ValidationError) else []
    if errors:
        where = ".".join(str(x) for x in errors[0].get("loc", ())[1:])
        text = errors[0].get("msg", "") + (f" at {where}" if where else "")
    else:
        text = next(iter(str(exc).splitlines()), "") or type(exc).__name__
    return text[:120]


def load(session_id: str, workspace: Path | None = None) -> Loaded:
    path = session_file(session_id, workspace)
    try:
        data = read_regular(path)
    except FileNotFoundError:
        return Loaded([], [])
    except OSError as exc:  # a folder in its place, no permission, an I/O error: say so, start empty
        return Loaded([], [f"cannot read {path}: {exc.strerror or exc}"])
    return parse_lines(data)


@dataclass
class SessionInfo:
    session_id: str
    path: Path
    modified: float
    size: int
    preview: str


def list_sessions(workspace: Path | None = None) -> list[SessionInfo]:
    """This directory's sessions, newest first."""
    infos = []
    for path in project_dir(workspace).glob("*.jsonl"):
        try:
            st = path.stat()
        except OSError:
            continue
        infos.append(SessionInfo(path.stem, path, st.st_mtime, st.st_size, _preview(path)))
    infos.sort(key=lambda i: i.modified, reverse=True)
    return infos


# A resume picker (--resume, /resume) shows this many sessions, newest first.
PICK_MAX = 20


def pick_lines(sessions: Sequence[SessionInfo]) -> list[str]:
    return [f"{n:>2}. {info.session_id}  {info.preview}" for n, info in enumerate(sessions[:PICK_MAX], start=1)]


def picked(sessions: Sequence[SessionInfo], answer: str) -> str | None:
    """The session a typed number names, or None."""
    answer = answer.strip()
    if answer.isdigit() and 1 <= int(answer) <= min(PICK_MAX, len(sessions)):
        return sessions[int(answer) - 1].session_id
    return None


PREVIEW_BYTES = 1 << 22  # of a session file read for its preview: a 4 MB summary line still fits
# Archives followed back to the first words: each compaction or left-out note adds one (bounded: a
# crafted chain costs at most this many bounded reads).
MAX_ARCHIVE_DEPTH = 16


def _archive_path(value: object) -> Path | None:
    """A summary's archive path, if it is one: a file under the agent's data folder. The session
    file may be crafted (a FIFO would hang the picker, /dev/zero fill the memory)."""
    if not isinstance(value, str) or "\0" in value:
        return None
    try:
        path = Path(value).resolve()
        return path if path.is_relative_to(data_home().resolve()) else None
    except (OSError, RuntimeError, ValueError):
        return None


def _preview(path: Path, depth: int = 0) -> str:
    """The user's first words, cheaply (no full parse, at most PREVIEW_BYTES read). A compacted
    session starts with the summary: then the oldest archive's first words, else the first user
    prompt after the summary."""
    try:
        with open_regular(path) as f:
            head = f.read(PREVIEW_BYTES)
    except OSError:
        return ""
    for raw in head.split(b"\n"):
        if b'"user-prompt"' not in raw:
            continue
        try:
            message = json.loads(raw)
            if is_agent_note(message.get("metadata")):
                archives = message["metadata"].get("archives") or [None]
                archive = _archive_path(archives[0])
                if depth < MAX_ARCHIVE_DEPTH and archive is not None and (words := _preview(archive, depth + 1)):
                    return words
                continue
            for part in message.get("parts", []):
                if part.get("part_kind") == "user-prompt" and isinstance(part.get("content"), str):
                    return part["content"].strip().splitlines()[0][:60] if part["content"].strip() else ""
        except (ValueError, AttributeError, TypeError, IndexError):
            continue
    return ""


def latest_session(workspace: Path | None = None) -> str | None:
    sessions = list_sessions(workspace)
    return sessions[0].session_id if sessions else None


# --- session totals ------------------------------------------------------------------------


def stats_file(session_id: str, workspace: Path | None = None) -> Path:
    return project_dir(workspace) / f"{session_id}.stats.json"


def save_stats(session_id: str, stats: dict, workspace: Path | None = None) -> None:
    """The session's token totals beside its file, so that a resume goes on counting."""
    write_atomic(stats_file(session_id, workspace), json.dumps(stats).encode())


def load_stats(session_id: str, workspace: Path | None = None) -> dict:
    """What save_stats wrote; {} when there is none or it cannot be read (the totals restart)."""
    try:
        data = json.loads(stats_file(session_id, workspace).read_bytes())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


# --- archive -------------------------------------------------------------------------------


def archive_session(session_id: str, workspace: Path | None = None) -> Path:
    """Copy the full session file into compact-history/ before anything rewrites it.

    The copy is written under a temp name and renamed when complete, so an archive that exists is
    always whole.
    """
    folder = private_dir(archive_dir(workspace))
    stamp = f"{datetime.now():%Y%m%d-%H%M%S}"
    path = folder / f"{session_id}-{stamp}.jsonl"
    n = 1
    while path.exists():  # two compactions in one second must not overwrite each other
        n += 1
        path = folder / f"{session_id}-{stamp}-{n}.jsonl"
    src = session_file(session_id, workspace)
    fault("archive_started")

    def copy(out: BinaryIO) -> None:
        if src.exists():
            with open_regular(src) as inp:
                while chunk := inp.read(COPY_CHUNK):
                    out.write(chunk)
                    fault("archive_mid_copy")

    write_via_temp(path, copy, mode=0o600, suffix=SESSION_TEMP)
    fault("archive_done")
    return path


def list_archives(session_id: str, workspace: Path | None = None) -> list[Path]:
    """This session's archives, oldest first."""
    folder = archive_dir(workspace)
    if not folder.is_dir():
        return []
    # Only regular files: another process may have put a FIFO, a device or a dangling link there.
    found = [p for p in folder.glob(f"{session_id}-*.jsonl") if p.is_file()]
    return sorted(found, key=lambda p: (p.stat().st_mtime, p.name))
