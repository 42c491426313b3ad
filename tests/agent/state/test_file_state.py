import io
import os
from pathlib import Path

from agent.state.file_state import ReadFileState, file_lines, hash_file, looks_binary


def _bump_mtime(path: Path) -> None:
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))


def test_unread_file_must_be_read(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("one\n")
    state = ReadFileState()
    assert "read it first with read_file" in (state.check_fresh(path) or "")
    assert path not in state
    assert len(state) == 0


def test_read_then_fresh(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("one\n")
    state = ReadFileState()
    state.record(path)
    assert path in state and str(path) in state
    assert state.check_fresh(path) is None


def test_changed_on_disk_is_stale(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("one\n")
    state = ReadFileState()
    state.record(path, b"one\n")
    path.write_text("two\n")  # same size: only the hash tells
    _bump_mtime(path)
    assert "changed on disk since you read it; read it again" in (state.check_fresh(path) or "")
    path.write_text("longer content\n")
    assert "changed on disk" in (state.check_fresh(path) or "")


def test_touch_with_same_content_is_fresh(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("one\n")
    state = ReadFileState()
    state.record(path)
    _bump_mtime(path)
    assert state.check_fresh(path) is None


def test_deleted_is_stale(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("one\n")
    state = ReadFileState()
    state.record(path)
    path.unlink()
    assert "deleted" in (state.check_fresh(path) or "")


def test_paths_order_and_forget(tmp_path: Path) -> None:
    a, b, c = (tmp_path / n for n in "abc")
    for p in (a, b, c):
        p.write_text(p.name)
    state = ReadFileState()
    for p in (a, b, c, a):
        state.record(p)
    assert state.paths() == [b.resolve(), c.resolve(), a.resolve()]
    state.forget(c)
    assert state.paths() == [b.resolve(), a.resolve()]
    assert len(state) == 2


def test_record_with_content_matches_hash(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_bytes(b"x" * 3_000_000)
    state = ReadFileState()
    state.record(path, path.read_bytes())
    assert state._files[path.resolve()].sha256 == hash_file(path)


def test_looks_binary_rewinds() -> None:
    f = io.BytesIO(b"abc\0def")
    assert looks_binary(f)
    assert f.tell() == 0
    assert not looks_binary(io.BytesIO(b"plain text\n"))


def test_file_lines_cut_and_endings() -> None:
    data = b"short\r\n" + b"y" * 100_000 + b"\nafter\n" + "é".encode() * 30 + b"\nlast"
    lines = list(file_lines(io.BytesIO(data), 10))
    assert lines[0] == "short"
    assert lines[1] == "yyyyyyyyyy [... line cut at 10 characters]"
    assert lines[2] == "after"
    assert lines[3] == "é" * 10 + " [... line cut at 10 characters]"
    assert lines[4] == "last"
    assert len(lines) == 5
