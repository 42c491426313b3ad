"""Issue 19, findings 1 and 2, in a real terminal: a command hidden behind characters that draw as
nothing is shown with those characters as escapes, so the user sees what `y` would run."""

from __future__ import annotations

import pexpect

from tests.fake_openai import Text, ToolCalls
from tests.pty_kit import ASKED, Screen, leave, spawn, started, type_line, wait_prompt


def _question_on_screen(child: pexpect.spawn, screen: Screen, shown: str) -> None:
    child.expect_exact("Allow?")
    assert screen.count("│ " + shown) == 1, "\n".join(screen.lines())
    child.send("n\r")
    child.expect("the user declined")
    wait_prompt(child)


def test_braille_blanks_cannot_hide_a_command(workspace, home, live_server):
    hidden = "echo PWNED > f; #" + "\u2800" * 12_000 + " ls -la"
    live_server.script(ToolCalls([("run_command", {"command": hidden})]), Text("Declined."))
    child, screen = started(workspace, home, live_server, *ASKED)
    type_line(child, "list the files")
    _question_on_screen(child, screen, "echo PWNED > f; #\\u2800×12000 ls -la")
    leave(child, "/exit")
    assert not (workspace / "f").exists()


def test_an_invisible_suffix_on_a_file_name_is_shown(workspace, home, live_server):
    (workspace / "run.sh").write_text("echo the user's script\n")
    live_server.script(
        ToolCalls([("write_file", {"path": "run.sh\u206a", "content": "touch pwned\n"})]),
        ToolCalls([("run_command", {"command": "sh run.sh\u206a"})]),
        Text("Declined."),
    )
    child, screen = started(workspace, home, live_server, *ASKED)
    type_line(child, "run my script")
    _question_on_screen(child, screen, "sh run.sh\\u206a")
    assert screen.count("run.sh\\u206a") >= 2  # the tool line of the write shows it too
    leave(child, "/exit")
    assert not (workspace / "pwned").exists()


def test_a_control_character_in_the_folder_name_is_shown_in_the_toolbar(tmp_path, home, live_server):
    """Issue 19, finding 12: the toolbar drew the folder through prompt-toolkit's HTML(), which
    raised at every prompt on a control character."""
    folder = tmp_path / "proj\x01ect"
    folder.mkdir()
    # prompt-toolkit draws the toolbar only once the terminal has told it the cursor position.
    child = spawn(folder, home, live_server, env_extra={"PROMPT_TOOLKIT_NO_CPR": "0"})
    screen = Screen(child)
    child.expect_exact("\x1b[6n")
    child.send("\x1b[1;1R")
    child.expect_exact("proj\\x01ect ")  # the folder, last on the toolbar, its control character escaped
    shown = "\n".join(screen.lines())
    assert "Traceback" not in shown and "Press ENTER" not in shown, shown
    leave(child, "/exit")
