from pathlib import Path

from agent.state.file_history import FileHistory


def test_no_checkpoint_is_noop(tmp_path: Path) -> None:
    history = FileHistory()
    history.record_before_write(tmp_path / "a")
    assert history.undo() is None


def test_undo_restores_edited_created_and_deleted(tmp_path: Path) -> None:
    edited, deleted = tmp_path / "edited.txt", tmp_path / "gone.txt"
    created = tmp_path / "new" / "created.txt"
    edited.write_bytes(b"before\n")
    deleted.write_bytes(b"keep me\n")
    history = FileHistory()
    history.make_checkpoint(3, "change things")
    for path in (edited, created, deleted):
        history.record_before_write(path)
    edited.write_bytes(b"after 1\n")
    history.record_before_write(edited)  # second write in the turn: the first content stays
    edited.write_bytes(b"after 2\n")
    created.parent.mkdir()
    created.write_bytes(b"fresh\n")
    deleted.unlink()

    checkpoint = history.undo()
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
        history.record_before_write(path)
        path.write_text(text)
    assert history.undo().user_input == "turn 1"  # type: ignore[union-attr]
    assert path.read_text() == "v2"
    assert history.undo().user_input == "turn 0"  # type: ignore[union-attr]
    assert path.read_text() == "v1"


def test_undo_reports_failures(tmp_path: Path) -> None:
    path = tmp_path / "dir" / "a.txt"
    history = FileHistory()
    history.make_checkpoint(0, "x")
    history.checkpoints[-1].files[path] = b"content"
    (tmp_path / "dir").write_text("a file where a folder should be")
    checkpoint = history.undo()
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
