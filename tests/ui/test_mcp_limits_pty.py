"""Misbehaving MCP servers (tests/mcp_bad_server.py) in a real terminal, checked on a pyte screen: a
server's stderr never reaches the screen and `/mcp log` shows it escaped; a server that never starts
costs one wait, is marked failed, and `/mcp retry` brings it up; Ctrl-C ends a call that never answers."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pexpect

from tests.fake_openai import Text, ToolCalls
from tests.mcp_bad_server import STARTED
from tests.pty_kit import Screen, ask, interrupt_then_go_on, leave, spawn, started, type_line, wait_prompt

BAD = str(Path(__file__).resolve().parents[1] / "mcp_bad_server.py")
STARTING = 60  # seconds a turn may wait for a server's process to start on a loaded machine (it has 30)


def configure(home: Path, mode: str, **env: str) -> None:
    home.mkdir(exist_ok=True)
    (home / "settings.json").write_text(
        json.dumps({"mcpServers": {"bad": {"command": sys.executable, "args": [BAD, mode], "env": env}}})
    )


class Recorded(Screen):
    """The screen, and every byte the terminal was sent."""

    def __init__(self, child: pexpect.spawn) -> None:
        self.sent: list[str] = []
        super().__init__(child)

    def write(self, text: str) -> None:
        self.sent.append(text)
        super().write(text)


def test_a_servers_stderr_stays_off_the_screen_and_mcp_log_shows_it_escaped(workspace, home, live_server):
    configure(home, "stderr")
    live_server.script(ToolCalls([("mcp__bad__echo", {"text": "\x1b]0;ARG-TITLE\x07\x1b[2Jhi"})]), Text("Echoed."))
    child = spawn(workspace, home, live_server, "--yes")
    screen = Recorded(child)
    wait_prompt(child)
    ask(child, "echo something", "Echoed.", timeout=STARTING)
    shown = "\n".join(screen.lines())
    assert STARTED not in shown and "RED-TEXT" not in shown and "echo called with" not in shown
    assert screen.screen.title not in ("PWNED-TITLE", "ARG-TITLE")
    assert not any(code in "".join(screen.sent) for code in ("\x1b]52", "\x1b]0;", "\x1b]8;", "\x1b[2J"))
    ask(child, "/mcp log bad", "lines of bad's log")
    shown = "\n".join(screen.lines())
    assert STARTED in shown and "echo called with: \\x1b]0;ARG-TITLE\\x07\\x1b[2Jhi" in shown
    assert "\\x1b]52;c;cHduZWQ=\\x07\\x1b]0;PWNED-TITLE\\x07" in shown
    assert screen.screen.title not in ("PWNED-TITLE", "ARG-TITLE")
    leave(child, "/exit")


def test_a_server_that_never_starts_costs_one_wait_and_mcp_retry_brings_it_up(workspace, home, live_server, tmp_path):
    silent = tmp_path / "silent"
    silent.touch()
    configure(home, "silent", BAD_SERVER_SILENT_WHILE=str(silent))
    live_server.script(Text("First answer."), Text("Second answer."))
    # Long enough for the retry's server to start on a loaded machine; the first attempt waits it out once.
    child, screen = started(workspace, home, live_server, "--yes", env_extra={"MCP_TIMEOUT": "15000"})
    type_line(child, "hello")
    child.expect("Starting MCP server bad")
    child.expect("did not start within 15 s", timeout=90)
    child.expect("First answer.")
    wait_prompt(child)
    ask(child, "/mcp", "/mcp retry bad starts it again")
    assert any("bad · yours · failed: did not finish starting in 15 s" in line for line in screen.lines())
    ask(child, "again", "Second answer.")
    assert screen.count("did not start within") == 1  # the second turn did not wait, nor say it again
    silent.unlink()
    ask(child, "/mcp retry bad", "MCP server bad is ready: 4 tools", timeout=60)
    ask(child, "/mcp", "bad · yours · ready")
    leave(child, "/exit")


def test_ctrl_c_ends_a_call_that_never_answers(workspace, home, live_server):
    configure(home, "stderr")
    live_server.script(ToolCalls([("mcp__bad__wait", {"seconds": 3600})]))
    child = spawn(workspace, home, live_server, "--yes")
    wait_prompt(child)
    type_line(child, "wait for it")
    child.expect("mcp__bad__wait", timeout=STARTING)
    interrupt_then_go_on(child, live_server)
