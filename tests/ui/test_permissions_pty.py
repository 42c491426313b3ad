"""Issue 24, part 2 in a real terminal: Shift+Tab cycles the permission mode shown in the toolbar;
"always for this project" at the approval question saves a rule that the next session uses."""

from __future__ import annotations

import json

import pexpect

from tests.fake_openai import Text, ToolCalls
from tests.pty_kit import ASKED, Screen, leave, spawn, type_line, wait_prompt

SHIFT_TAB = "\x1b[Z"


CPR = "\x1b[6n"  # prompt-toolkit asks where the cursor is; the toolbar is drawn only once it knows


def _screen(child: pexpect.spawn) -> Screen:
    """A screen that has seen everything the child printed, also what spawn() read already."""
    screen = Screen(child)
    seen = child.before + child.after + child.buffer
    screen.write(seen)
    if CPR in seen:
        _answer_cpr(child, screen)
    return screen


def _answer_cpr(child: pexpect.spawn, screen: Screen) -> None:
    cursor = screen.screen.cursor
    child.send(f"\x1b[{cursor.y + 1};{cursor.x + 1}R")


def _toolbar(screen: Screen, text: str, child: pexpect.spawn) -> None:
    """Wait until the screen shows `text`, answering the cursor-position requests as a terminal does."""
    for _ in range(60):
        if any(text in line for line in screen.lines()):
            return
        if child.expect_exact([CPR, pexpect.TIMEOUT], timeout=0.3) == 0:
            _answer_cpr(child, screen)
    raise AssertionError(f"{text!r} not on the screen: {screen.lines()}")


def test_shift_tab_cycles_the_mode_in_the_toolbar(workspace, home, live_server):
    live_server.script(ToolCalls([("write_file", {"path": "plan.txt", "content": "x"})]), Text("Blocked, then."))
    child = spawn(workspace, home, live_server, env_extra={"PROMPT_TOOLKIT_NO_CPR": "0"})
    screen = _screen(child)
    _toolbar(screen, "accept edits (shift+tab)", child)
    child.send(SHIFT_TAB)
    _toolbar(screen, "plan mode: read only", child)
    type_line(child, "write the plan")
    _toolbar(screen, "Blocked, then.", child)
    assert not (workspace / "plan.txt").exists()
    assert "plan mode is on" in json.dumps(live_server.requests[-1]["body"])
    child.send(SHIFT_TAB)
    _toolbar(screen, "ask before edits", child)
    child.send(SHIFT_TAB)
    _toolbar(screen, "accept edits", child)
    leave(child, "/exit")


def test_always_for_this_project_is_saved_and_used_next_time(workspace, home, live_server):
    live_server.script(
        ToolCalls([("run_command", {"command": "echo saved-rule"})]),
        Text("Ran it."),
        ToolCalls([("run_command", {"command": "echo saved-rule"})]),
        Text("Ran it again."),
    )
    child = spawn(workspace, home, live_server, *ASKED)
    wait_prompt(child)
    type_line(child, "run it")
    child.expect_exact("always for this [p]roject")
    child.send("p\r")
    child.expect("Saved for this project: run_command\\(echo saved-rule\\)")
    child.expect("Ran it.")
    wait_prompt(child)
    leave(child, "/exit")
    local = workspace / ".coding-agent" / "settings.local.json"
    assert json.loads(local.read_text()) == {"permissions": {"allow": ["run_command(echo saved-rule)"]}}

    # The next session: the project's file is approved already (the user wrote it), no question asked.
    child = spawn(workspace, home, live_server, *ASKED)
    wait_prompt(child)
    type_line(child, "run it again")
    child.expect("Ran it again.")
    assert "Allow?" not in child.before
    wait_prompt(child)
    leave(child, "/exit")


def test_a_projects_grants_are_asked_about_once_before_the_prompt(workspace, home, live_server, tmp_path):
    record = workspace / "started"  # written by the hook, which runs in the project (a short line to match)
    (workspace / ".coding-agent").mkdir()
    (workspace / ".coding-agent" / "settings.json").write_text(
        json.dumps(
            {
                "permissions": {"allow": ["Bash(echo from-the-project)"]},
                "hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "cat > started"}]}]},
            }
        )
    )
    live_server.script(ToolCalls([("run_command", {"command": "echo from-the-project"})]), Text("Ran."))
    child = spawn(workspace, home, live_server, *ASKED)
    child.expect(r"asks\s+for\s+what\s+its\s+files\s+would\s+run")  # after the folder: may wrap
    child.expect_exact("allow    Bash(echo from-the-project)")
    child.expect_exact("hook     SessionStart (project): cat > started")
    child.expect_exact("[y/N]")
    child.send("y\r")
    wait_prompt(child)
    type_line(child, "run it")
    child.expect("Ran.")
    assert "Allow?" not in child.before  # the project's allow rule counts now
    assert json.loads(record.read_text())["source"] == "startup"
    wait_prompt(child)
    leave(child, "/exit")
    # Approved once: the next session asks nothing.
    child = spawn(workspace, home, live_server, *ASKED)
    wait_prompt(child)
    assert "would run" not in child.before
    leave(child, "/exit")


def test_always_for_this_project_on_a_glob_saves_the_exact_command(workspace, home, live_server):
    """[p] on `rm *.pyc` saves that command, its star escaped: `rm -rf precious x.pyc` is asked next."""
    for name in ("x.pyc", "precious"):
        (workspace / name).write_text("keep\n")
    live_server.script(
        ToolCalls([("run_command", {"command": "rm *.pyc"})]),
        Text("Removed them."),
        ToolCalls([("run_command", {"command": "rm -rf precious x.pyc"})]),
        Text("Second done."),
    )
    child = spawn(workspace, home, live_server, *ASKED)
    screen = _screen(child)
    wait_prompt(child)
    type_line(child, "clean up")
    child.expect_exact("always for this [p]roject")
    child.send("p\r")
    child.expect_exact("Removed them.")
    wait_prompt(child)
    assert screen.count("Saved for this project: run_command(rm \\*.pyc)") == 1, screen.lines()
    (workspace / "x.pyc").write_text("keep\n")
    type_line(child, "and the rest")
    child.expect_exact("always for this [p]roject")  # asked: the saved rule is no wildcard
    assert screen.count("rm -rf precious x.pyc") >= 1, screen.lines()
    child.send("n\r")
    child.expect_exact("Second done.")
    wait_prompt(child)
    leave(child, "/exit")
    assert (workspace / "precious").exists() and (workspace / "x.pyc").exists()
    local = workspace / ".coding-agent" / "settings.local.json"
    assert json.loads(local.read_text()) == {"permissions": {"allow": ["run_command(rm \\*.pyc)"]}}
