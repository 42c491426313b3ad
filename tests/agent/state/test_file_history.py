from pathlib import Path

from agent.state.file_history import FileHistory


def test_no_checkpoint_is_noop(tmp_path: Path) -> None:
    history = FileHistory()
    history.record_before_write(tmp_path / "a", tmp_path)
    assert history.undo(tmp_path, "en") is None


def test_undo_restores_edited_created_and_deleted(tmp_path: Path) -> None:
    edited, deleted = tmp_path / "edited.txt", tmp_path / "gone.txt"
    created = tmp_path / "new" / "created.txt"
    edited.write_bytes(b"before\n")
    deleted.write_bytes(b"keep me\n")
    history = FileHistory()
    history.make_checkpoint(3, "change things")
    for path in (edited, created, deleted):
        history.record_before_write(path, tmp_path)
    edited.write_bytes(b"after 1\n")
    history.record_before_write(edited, tmp_path)  # second write in the turn: the first content stays
    edited.write_bytes(b"after 2\n")
    created.parent.mkdir()
    created.write_bytes(b"fresh\n")
    deleted.unlink()

    checkpoint = history.undo(tmp_path, "en")
    assert checkpoint is not None
    assert (checkpoint.history_index, checkpoint.user_input) == (3, "change things")
    assert edited.read_bytes() == b"before\n"
    assert not created.exists()
    assert deleted.read_bytes() == b"keep me\n"
    assert checkpoint.failed == []
    assert history.checkpoints == []


def test_undo_goes_back_one_turn_at_a_time(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("v1")
    history = FileHistory()
    for turn, text in enumerate(["v2", "v3"]):
        history.make_checkpoint(turn * 2, f"turn {turn}")
        history.record_before_write(path, tmp_path)
        path.write_text(text)
    assert history.undo(tmp_path, "en").user_input == "turn 1"  # type: ignore[union-attr]
    assert path.read_text() == "v2"
    assert history.undo(tmp_path, "en").user_input == "turn 0"  # type: ignore[union-attr]
    assert path.read_text() == "v1"


def test_undo_reports_failures(tmp_path: Path) -> None:
    path = tmp_path / "dir" / "a.txt"
    history = FileHistory()
    history.make_checkpoint(0, "x")
    history.checkpoints[-1].files[path] = b"content"
    (tmp_path / "dir").write_text("a file where a folder should be")
    checkpoint = history.undo(tmp_path, "en")
    assert checkpoint is not None and len(checkpoint.failed) == 1


def test_drop_from_and_restore() -> None:
    history = FileHistory()
    cps = [history.make_checkpoint(i * 2, str(i)) for i in range(4)]
    dropped = history.drop_from(cps[1])
    assert dropped == cps[1:]
    assert history.checkpoints == cps[:1]
    assert history.drop_from(cps[2]) == []
    history.restore_checkpoints(dropped)
    assert history.checkpoints == cps
    history.restore_checkpoints(dropped)  # twice is harmless
    assert history.checkpoints == cps


def test_undo_never_follows_a_symlink_or_opens_a_fifo(tmp_path: Path) -> None:
    """The tree changed after the write: a folder became a symlink out, a file a symlink or a FIFO.
    Each is skipped and named; a folder that is simply gone is made again."""
    import os

    root, outside = tmp_path / "ws", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "a.txt").write_text("outside\n")
    history = FileHistory()
    history.make_checkpoint(0, "x")
    files = history.checkpoints[-1].files
    files[root / "sub" / "a.txt"] = b"old\n"  # sub -> outside
    files[root / "link.txt"] = None  # now a symlink to an outside file: not removed
    files[root / "pipe.txt"] = b"old\n"  # now a FIFO: not opened, not replaced
    files[root / "gone" / "deep" / "b.txt"] = b"back\n"  # its folders were removed: made again
    (root / "sub").symlink_to(outside)
    (root / "link.txt").symlink_to(outside / "a.txt")
    os.mkfifo(root / "pipe.txt")
    checkpoint = history.undo(root, "en")
    assert checkpoint is not None
    assert sorted(checkpoint.failed) == [
        "link.txt: skipped, link.txt is now a symlink (the tree changed since the write; nothing was written "
        "through it)",
        "pipe.txt: skipped, pipe.txt is not a regular file now (a FIFO, device or socket) (the tree changed since "
        "the write; nothing was written through it)",
        "sub/a.txt: skipped, sub is now a symlink (the tree changed since the write; nothing was written through it)",
    ]
    assert (outside / "a.txt").read_text() == "outside\n" and (root / "link.txt").is_symlink()
    assert (root / "gone" / "deep" / "b.txt").read_bytes() == b"back\n"
    assert sorted(p.name for p in outside.iterdir()) == ["a.txt"]


def test_a_checkpoint_does_not_read_through_a_symlink(tmp_path: Path) -> None:
    root, outside = tmp_path / "ws", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text("outside\n")
    (root / "sub").symlink_to(outside)
    history = FileHistory()
    history.make_checkpoint(0, "x")
    history.record_before_write(root / "sub" / "secret.txt", root)
    assert history.checkpoints[-1].files == {}
