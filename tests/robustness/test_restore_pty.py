"""/undo and /rewind after a folder the turn wrote in became a symlink out of the workspace, in a
real terminal: nothing outside is written or removed, and the screen names what was skipped."""

from __future__ import annotations

from tests.fake_openai import Text, ToolCalls
from tests.pty_kit import ask, leave, started, type_line, wait_prompt


def _turn_then_symlink(workspace, outside, server) -> None:
    """The issue's turn: read and rewrite sub/keep.txt, create sub/new.txt, then (approved by --yes)
    the folder is replaced by a symlink to `outside`, as `git checkout` of another branch can do."""
    (workspace / "sub").mkdir()
    (workspace / "sub" / "keep.txt").write_text("old in the workspace\n")
    outside.mkdir()
    (outside / "keep.txt").write_text("the user's own file\n")
    (outside / "new.txt").write_text("precious\n")
    server.script(
        ToolCalls([("read_file", {"path": "sub/keep.txt"})]),
        ToolCalls([("write_file", {"path": "sub/keep.txt", "content": "new\n"})]),
        ToolCalls([("write_file", {"path": "sub/new.txt", "content": "made\n"})]),
        ToolCalls([("run_command", {"command": f"rm -rf sub && ln -s {outside} sub"})]),
        Text("done"),
    )


def _outside_untouched(outside) -> None:
    assert (outside / "keep.txt").read_text() == "the user's own file\n"
    assert (outside / "new.txt").read_text() == "precious\n"


def test_undo_does_not_write_through_a_folder_that_became_a_symlink(workspace, home, live_server, tmp_path):
    outside = tmp_path / "outside"
    _turn_then_symlink(workspace, outside, live_server)
    child, screen = started(workspace, home, live_server, "--yes")
    ask(child, "change the files", "done", exact=True)
    assert (workspace / "sub").is_symlink()
    type_line(child, "/undo")
    child.expect_exact("Undone: change the files (0 file(s) restored)")
    child.expect_exact("Not put back: sub/new.txt")
    wait_prompt(child)
    shown = "\n".join(screen.lines())
    assert "Not put back: sub/keep.txt: skipped, sub is now a symlink" in shown, shown
    assert "Not put back: sub/new.txt: skipped, sub is now a symlink" in shown, shown
    _outside_untouched(outside)
    leave(child)


def test_rewind_does_not_write_through_a_folder_that_became_a_symlink(workspace, home, live_server, tmp_path):
    outside = tmp_path / "outside"
    _turn_then_symlink(workspace, outside, live_server)
    child, screen = started(workspace, home, live_server, "--yes")
    ask(child, "change the files", "done", exact=True)
    type_line(child, "/rewind")
    child.expect_exact("Rewind to before which turn?")
    child.send("1\r")
    child.expect_exact("[b]oth?")
    child.send("f\r")
    child.expect_exact("Could not put back sub/new.txt")
    wait_prompt(child)
    shown = "\n".join(screen.lines())
    assert "Could not put back sub/keep.txt: skipped, sub is now a symlink" in shown, shown
    _outside_untouched(outside)
    # The files as they were before the rewind are one /undo away: that skips the same way.
    ask(child, "/undo", "Undone:", exact=True)
    _outside_untouched(outside)
    leave(child)
