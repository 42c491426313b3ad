"""2. Corrupt files: torn, garbage, wrong-shape and undecodable lines, an empty or unreadable
session file, an unreadable archive folder, a full disk. The agent says what it skipped or could
not write, keeps the rest, and never crashes. Hypothesis feeds random bytes to the loader."""

from __future__ import annotations

import errno
import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import compact
import session
from agent import errors
from agent.events import CompactionFailed, Notice
from agent.state.transcript import Transcript
from agent.store import session_format
from agent.turn.repair import repair_history
from main import on_submit
from tests.robustness.harness import (
    answer,
    bad_lines,
    crash_text,
    history_problems,
    lines_of,
    long_history,
    prepare_session,
    request_problems,
    run_agent,
    session_path,
)

HISTORY = long_history(turns=3, words=20)
VALID = session.dump_messages(HISTORY).encode()
VALID_LINES = lines_of(VALID)
BAD = bad_lines(VALID_LINES[0])


def _notices(state, level: str | None = None) -> list[str]:
    return [n.text for n in state.emit.of(Notice) if level is None or n.level == level]


def _write(home: Path, workspace: Path, data: bytes) -> tuple[str, Path]:
    session_id = prepare_session(home, workspace, [])
    path = session_path(home, workspace, session_id)
    path.write_bytes(data)
    return session_id, path


async def _still_works(state, server) -> None:
    """A turn after loading: answered, the request accepted, the new messages saved whole."""
    await on_submit(state, "hello again")
    assert server.requests and not request_problems(server.last_request["body"])
    assert "Echo: hello again" in answer(state)
    reloaded = session.load(state.session_id, state.workspace).messages
    assert session.dump_messages(reloaded[-2:]) == session.dump_messages(state.history[-2:])


async def test_truncated_last_line(home, workspace, server, resume):
    torn = VALID_LINES[-1][: len(VALID_LINES[-1]) // 2]
    whole = b"".join(line + b"\n" for line in VALID_LINES[:-1])
    session_id, path = _write(home, workspace, whole + torn)
    state = resume(session_id)
    assert len(state.history) == len(HISTORY) - 1
    [warning] = _notices(state, "warn")
    assert "skipped 1" in warning and f"line {len(VALID_LINES)}" in warning
    await _still_works(state, server)
    # The torn line is kept as it was (it may be recovered by hand); the new lines start on their own.
    # The file was of format 0 (no header): the first append brought it to the current format.
    assert path.read_bytes().startswith(session_format.header() + whole + torn + b"\n")
    assert len(session.load(session_id, workspace).skipped) == 1


@pytest.mark.parametrize("kind", sorted(BAD))
async def test_bad_line_in_the_middle(kind, home, workspace, server, resume):
    data = b"\n".join(VALID_LINES[:2] + [BAD[kind]] + VALID_LINES[2:]) + b"\n"
    session_id, _ = _write(home, workspace, data)
    state = resume(session_id)
    assert session.dump_messages(state.history) == VALID.decode()
    [warning] = _notices(state, "warn")
    assert "skipped 1" in warning and "line 3" in warning
    assert len(warning) < 400  # one line, not a 2 MB echo of the garbage
    await _still_works(state, server)


async def test_lost_tool_call_line_leaves_a_valid_history(home, workspace, server, resume):
    # Line 2 is the response holding call_prep_0; its result (line 3) is left without a call.
    data = b"\n".join(VALID_LINES[:1] + [BAD["garbage"]] + VALID_LINES[2:]) + b"\n"
    session_id, _ = _write(home, workspace, data)
    state = resume(session_id)
    assert history_problems(state.history) == []
    await _still_works(state, server)


async def test_empty_session_file(home, workspace, server, resume):
    session_id, _ = _write(home, workspace, b"")
    state = resume(session_id)
    assert state.history == [] and _notices(state) == []
    await _still_works(state, server)


async def test_unreadable_session_file(home, workspace, server, resume):
    # A folder where the file should be: reading and writing both fail with OSError.
    session_id, path = _write(home, workspace, b"")
    path.unlink()
    path.mkdir()
    state = resume(session_id)
    assert state.history == []
    assert any("cannot read" in n for n in _notices(state, "warn"))
    await on_submit(state, "hello")
    assert "Echo: hello" in answer(state)
    assert sum("Could not write the session file" in n for n in _notices(state, "warn")) == 1


def _full_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    """Appends write a few bytes, then fail as a full disk does."""

    def write_some(fd: int, data: bytes) -> None:
        os.write(fd, data[:7])
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(session, "_write_all", write_some)


async def test_full_disk_while_appending(home, workspace, server, resume, monkeypatch):
    current = session_format.header() + VALID  # a file of today's format: appended to, not upgraded
    session_id, path = _write(home, workspace, current)
    state = resume(session_id)
    with monkeypatch.context() as disk:
        _full_disk(disk)
        await on_submit(state, "run echo one")
        await on_submit(state, "two")
    warnings = [n for n in _notices(state, "warn") if "Could not write the session file" in n]
    assert len(warnings) == 2 and "No space left on device" in warnings[0]  # one per turn, not per message
    assert path.read_bytes() == current  # rolled back: no half message on disk
    assert len(state.history) > len(HISTORY)  # the conversation went on in memory
    # Space again: the next turn saves everything the disk missed.
    await _still_works(state, server)
    assert session.dump_messages(session.load(session_id, workspace).messages) == session.dump_messages(state.history)


async def test_full_disk_during_compaction(make_state, workspace, server, monkeypatch):
    state = make_state(context_window=16_000)
    history = list(long_history())
    session.rewrite_messages(state.session_id, history, workspace)
    state.transcript = Transcript(state.session_id, workspace, history)
    before = session.session_file(state.session_id, workspace).read_bytes()

    def disk_full(data: bytes, path: Path | None = None) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(session, "write_atomic", lambda path, data: disk_full(data))
    await on_submit(state, "go on")
    [failed] = state.emit.of(CompactionFailed)
    assert "No space left" in failed.reason
    assert "Echo: go on" in answer(state)  # the turn still ran
    assert session.session_file(state.session_id, workspace).read_bytes().startswith(before)
    # Whatever archive exists is whole.
    for archive in session.list_archives(state.session_id, workspace):
        assert archive.read_bytes() == before


async def test_archive_folder_not_writable(make_state, workspace, server, monkeypatch):
    state = make_state()
    await on_submit(state, "hello")
    folder = session.archive_dir(workspace)
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: False if Path(p) == folder else real_access(p, mode))
    before = session.session_file(state.session_id, workspace).read_bytes()
    with pytest.raises(errors.CompactError, match="archive folder"):
        await compact.run_compact(state)
    assert session.session_file(state.session_id, workspace).read_bytes() == before


async def test_archive_copy_fails_midway(make_state, workspace, server, monkeypatch):
    state = make_state()
    await on_submit(state, "hello")
    before = session.session_file(state.session_id, workspace).read_bytes()
    history = list(state.history)

    def fail(point: str) -> None:
        if point == "archive_mid_copy":
            raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(session, "fault", fail)
    with pytest.raises(OSError):
        await compact.run_compact(state)
    assert state.history == history
    assert session.session_file(state.session_id, workspace).read_bytes() == before
    assert list(session.archive_dir(workspace).iterdir()) == []  # no archive, no temp file


async def test_unreadable_archive_is_reported_to_the_model(make_state, workspace, server, monkeypatch):
    from agent.state.file_state import ReadFileState
    from agent.tools.answers import ToolError
    from agent.tools.reading import read_for_model

    folder = session.archive_dir(workspace)
    folder.mkdir(parents=True, exist_ok=True)
    archive = folder / "x-20260101-000000.jsonl"
    archive.write_bytes(VALID)
    real_open = Path.open

    def refuse(self: Path, *args, **kwargs):
        if self.parent == folder:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(self))
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", refuse)
    with pytest.raises(ToolError, match="cannot read"):
        read_for_model(str(archive), workspace, ReadFileState())


def _mount_tmpfs(path: Path, size: str) -> bool:
    path.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", str(path)], capture_output=True
    )
    return done.returncode == 0


def test_full_disk_for_real(tmp_path, workspace, server):
    """The agent process on a 64 KB tmpfs that fills up: it says so, the file stays whole."""
    disk = tmp_path / "disk"
    if not _mount_tmpfs(disk, "64k"):
        pytest.skip("mounting a tmpfs needs root (CI runs as root); test_full_disk_while_appending covers it")
    try:
        home = disk / "home"
        first = run_agent(workspace, home, server, "-p", "hello", "--debug")
        assert first.returncode == 0 and not crash_text(first.stderr)
        [path] = (home / "projects").glob("*/*.jsonl")
        before = path.read_bytes()
        fd = os.open(disk / "filler", os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            while os.write(fd, b"f" * 512):  # to the last byte
                pass
        except OSError:
            pass
        finally:
            os.close(fd)
        full = run_agent(workspace, home, server, "--continue", "-p", "second", "--debug")
        assert not crash_text(full.stderr), full.stderr
        assert "Echo: second" in full.stdout
        assert "Could not write the session file" in full.stderr and "No space left" in full.stderr
        assert path.read_bytes() == before
        (disk / "filler").unlink()
        again = run_agent(workspace, home, server, "--continue", "-p", "third")
        assert again.returncode == 0 and "Echo: third" in again.stdout and not again.stderr.strip()
        loaded = session.parse_lines(path.read_bytes())
        assert loaded.skipped == [] and len(loaded.messages) == 4
    finally:
        subprocess.run(["umount", "-l", str(disk)], capture_output=True)


def test_skipped_lines_are_reported_by_the_process(tmp_path, workspace, server):
    """The warning reaches the user of a real process (it used to be dropped before the UI existed)."""
    home = tmp_path / "home"
    session_id, _ = _write(home, workspace, VALID + BAD["garbage"] + b"\n")
    done = run_agent(workspace, home, server, "--resume", session_id, "-p", "hi")
    assert done.returncode == 0 and "Echo: hi" in done.stdout
    assert "skipped 1 unreadable line" in done.stderr and not crash_text(done.stderr)


# --- random bytes ----------------------------------------------------------------------------


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=4096))
def test_loader_survives_random_bytes(data):
    loaded = session.parse_lines(data)
    nonblank = [line for line in data.split(b"\n") if line.strip()]
    assert len(loaded.skipped) <= len(nonblank)
    assert all(s.startswith("line ") and len(s) < 200 for s in loaded.skipped)
    messages, _ = repair_history(loaded.messages)
    assert history_problems(messages) == []


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.one_of(st.integers(0, len(VALID_LINES) - 1), st.binary(max_size=200)), max_size=20),
    st.integers(0, 400),
)
def test_loader_keeps_every_good_line(items, cut):
    """Good lines (in any order, any of them missing) among garbage, the last one perhaps torn:
    every whole good line loads, and the repaired history is one the API accepts."""
    lines = [VALID_LINES[i] if isinstance(i, int) else i.replace(b"\n", b" ") for i in items]
    data = b"\n".join(lines)
    if cut and data:
        data = data[: max(0, len(data) - cut)]
    loaded = session.parse_lines(data)
    whole = [line for line in data.split(b"\n") if line in VALID_LINES]
    kept = set(lines_of(session.dump_messages(loaded.messages).encode()))
    assert all(line in kept for line in whole)
    messages, _ = repair_history(loaded.messages)
    assert history_problems(messages) == []
