"""What an MCP server offers and asks, in a real terminal checked on a pyte screen (the server:
tests/mcp_features_server.py): the spinner names the tool that runs and its progress, not the model;
a server's question is asked field by field, its escapes shown, never obeyed; a prompt is a slash
command; `@server:uri` completes and attaches the resource. And -p declines a server's question."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.fake_openai import Text, ToolCalls
from tests.pty_kit import Screen, ask, leave, spawn, started, type_line, wait_prompt
from tests.test_main import run_main
from tests.ui.test_mcp_limits_pty import STARTING, Recorded

SERVER = str(Path(__file__).resolve().parents[1] / "mcp_features_server.py")
NOTE = "Release notes: version 7 ships on Friday."


def configure(home: Path, *args: str) -> None:
    home.mkdir(exist_ok=True)
    (home / "settings.json").write_text(
        json.dumps({"mcpServers": {"feat": {"command": sys.executable, "args": [SERVER, *args]}}})
    )


def test_the_spinner_names_the_running_tool_and_its_progress_after_the_approval(workspace, home, live_server, tmp_path):
    gate = tmp_path / "gate"
    configure(home, str(gate))
    live_server.script(ToolCalls([("mcp__feat__slow", {"steps": 3})]), Text("Slow done."))
    child = spawn(workspace, home, live_server)  # MCP tools are asked about: the approval comes first
    screen = Screen(child)
    wait_prompt(child)
    type_line(child, "call the slow one")
    child.expect("Allow\\?", timeout=STARTING)
    type_line(child, "y")
    # The server holds its last step until the gate opens: the line stays on 2/3 meanwhile.
    child.expect("2/3 step 2")
    shown = [line for line in screen.lines() if "2/3" in line]
    assert shown and "Running mcp__feat__slow… 2/3 step 2\\x1b[2J · " in shown[-1]
    assert screen.count("Waiting for the model") == 0
    gate.touch()
    child.expect("Slow done.")
    wait_prompt(child)
    leave(child, "/exit")


def test_a_servers_question_is_asked_in_the_repl_with_its_escapes_shown(workspace, home, live_server):
    configure(home)
    live_server.script(ToolCalls([("mcp__feat__ask_user", {})]), Text("Asked."))
    child = spawn(workspace, home, live_server, "--yes")
    screen = Recorded(child)
    wait_prompt(child)
    type_line(child, "ask me something")
    child.expect("Answer it\\?", timeout=STARTING)
    assert any(
        "The MCP server feat asks (its own words): Pick a colour \\x1b]0;ELICIT-TITLE\\x07please" in line
        for line in screen.lines()
    )
    type_line(child, "y")
    child.expect("Your favourite colour")
    type_line(child, "blue")
    child.expect("How many")
    ask(child, "4", "Asked.")
    assert "the user said blue x4" in json.dumps(live_server.requests[-1]["body"])
    assert screen.screen.title != "ELICIT-TITLE" and "\x1b]0;ELICIT" not in "".join(screen.sent)
    leave(child, "/exit")


def test_ctrl_c_at_a_servers_question_tells_it_the_user_cancelled(workspace, home, live_server):
    configure(home)
    live_server.script(ToolCalls([("mcp__feat__ask_user", {})]), Text("Cancelled then."))
    child = spawn(workspace, home, live_server, "--yes")
    wait_prompt(child)
    type_line(child, "ask me something")
    child.expect("Answer it\\?", timeout=STARTING)
    child.sendintr()
    child.expect("Not answered: feat is told you cancelled")
    child.expect("Cancelled then.")
    wait_prompt(child)
    assert "the user chose cancel" in json.dumps(live_server.requests[-1]["body"])
    leave(child, "/exit")


def test_a_prompt_is_a_slash_command_and_a_resource_mention_completes(workspace, home, live_server):
    configure(home)
    child, screen = started(workspace, home, live_server, "--yes")
    type_line(child, "/mcp__feat__review parser")  # typed at once: the command waits for its server to start
    child.expect("Echo:", timeout=STARTING)
    wait_prompt(child)
    asked = live_server.requests[-1]["body"]["messages"][-1]["content"]
    assert "Please review parser (short). PROMPT-MARKER" in asked and "not the user's words" in asked
    child.send("when? @feat:notes://rel")
    child.send("\t")  # completes the mention: the rest of it is drawn
    child.expect_exact("ease")
    ask(child, "", "Echo:")
    messages = live_server.requests[-1]["body"]["messages"]
    assert messages[-1]["content"] == "when? @feat:notes://release"
    assert any(m["role"] == "tool" and m["content"] == NOTE for m in messages)
    assert screen.count("Attached @feat:notes://release") == 1
    leave(child, "/exit")


def test_p_declines_a_servers_question(workspace, home, server):
    configure(home)
    server.script(ToolCalls([("mcp__feat__ask_user", {})]), Text("Declined then."))
    result = run_main(
        ["--base-url", server.base_url, "--lang", "en", "--yes", "-p", "ask me"], workspace, home, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert "Declined: no one can answer a server's question with -p" in result.stderr
    assert "the user chose decline" in json.dumps(server.requests[-1]["body"])


def test_p_runs_a_servers_prompt_as_a_slash_command(workspace, home, server):
    configure(home)
    result = run_main(
        ["--base-url", server.base_url, "--lang", "en", "-p", "/mcp__feat__review parser deep"],
        workspace,
        home,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    asked = server.requests[-1]["body"]["messages"][-1]["content"]
    assert "Please review parser (deep). PROMPT-MARKER" in asked and "not the user's words" in asked
    missing = run_main(
        ["--base-url", server.base_url, "--lang", "en", "-p", "/mcp__feat__review"], workspace, home, timeout=120
    )
    assert missing.returncode == 2 and "/mcp__feat__review needs topic" in missing.stderr
