"""Issue 24, part 4 in a real terminal: the prompt is up before an MCP server has finished starting,
and the first turn that needs the server gets its tools."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.fake_openai import Text, ToolCalls
from tests.pty_kit import ask, leave, spawn, type_line, wait_prompt

SERVER = str(Path(__file__).resolve().parents[1] / "mcp_demo_server.py")


def test_the_prompt_does_not_wait_for_a_server(workspace, home, live_server, tmp_path):
    marker = tmp_path / "serving"
    home.mkdir(exist_ok=True)
    (home / "settings.json").write_text(
        json.dumps({"mcpServers": {"demo": {"command": sys.executable, "args": [SERVER, "3", str(marker)]}}})
    )
    live_server.script(ToolCalls([("mcp__demo__add", {"a": 20, "b": 22})]), Text("Forty-two."))
    child = spawn(workspace, home, live_server, "--yes")
    wait_prompt(child)
    assert not marker.exists()  # the prompt is up; the server is still sleeping before it serves
    ask(child, "/mcp", "demo · yours · starting")
    type_line(child, "add twenty and twenty-two")
    child.expect("Forty-two.")
    assert marker.exists()
    assert "the sum is 42" in json.dumps(live_server.requests[-1]["body"])
    wait_prompt(child)
    leave(child, "/exit")
