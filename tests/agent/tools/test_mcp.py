"""Issue 24, part 4: MCP servers through pydantic-ai's MCP client, against a real server process."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

from agent.events import EventLog, Listing, Notice, ToolResult
from agent.provider import settings as files
from agent.provider import trust
from agent.tools import mcp_servers
from agent.tools.permissions import Permissions
from agent.tools.rule_match import parse_rule
from agent.turn.loop import run_turn
from tests.fake_openai import Text, ToolCalls
from tests.fake_ui import FakeUI
from ui.commands import dispatch
from ui.context_view import breakdown
from ui.registry import CommandHost

SERVER = str(Path(__file__).resolve().parents[2] / "mcp_demo_server.py")


def demo(*args: str) -> dict:
    return {"command": sys.executable, "args": [SERVER, *args]}


async def started(state, home, servers: dict, trusted: bool = True):
    home.mkdir(exist_ok=True)
    (home / "settings.json").write_text(json.dumps({"mcpServers": servers}))
    state.config.settings = files.load(state.workspace)
    state.mcp, warnings = mcp_servers.load(state.config.settings, state.workspace, "en")
    mcp_servers.start(state, trusted)
    await mcp_servers.wait_started(state)
    return warnings


@pytest.fixture
async def stop(make_state):
    made = []
    yield made.append
    for state in made:
        await mcp_servers.stop_all(state)


def body(server) -> str:
    return json.dumps(server.requests[-1]["body"])


async def test_a_servers_tool_is_called_under_its_prefixed_name(make_state, server, home, stop):
    state = make_state(yes=False)
    stop(state)
    await started(state, home, {"demo": demo()})
    assert state.mcp.servers["demo"].state == "ready"
    asked = []

    async def approve(subject, why=None):
        asked.append(subject)
        return "y"

    state.emit = FakeUI(approve=approve)
    server.script(ToolCalls([("mcp__demo__add", {"a": 2, "b": 40})]), Text("It is 42."))
    outcome = await run_turn(state, "add them")
    assert outcome.ok, outcome.error
    assert '"name": "mcp__demo__add"' in json.dumps(server.requests[0]["body"]["tools"])
    assert "the sum is 42" in body(server)
    assert asked == ['mcp__demo__add {"a": 2, "b": 40}']  # asked, like a command
    # A rule allows it without asking; the server's child got no API key of ours.
    state.permissions = Permissions()
    state.permissions.rules["allow"].append(parse_rule("mcp__demo__*"))
    server.script(ToolCalls([("mcp__demo__add", {"a": 1, "b": 1})]), Text("2."))
    await run_turn(state, "again")
    assert len(asked) == 1


async def test_the_server_gets_no_api_keys(make_state, server, home, stop, monkeypatch):
    monkeypatch.setenv("SOME_API_KEY", "secret")
    state = make_state()
    stop(state)
    await started(state, home, {"demo": demo()})
    server.script(ToolCalls([("mcp__demo__env_has", {"name": "SOME_API_KEY"})]), Text("ok"))
    await run_turn(state, "check")
    [result] = state.emit.of(ToolResult)
    assert result.content == "no"


async def test_a_server_that_fails_or_dies_is_one_line_and_the_session_goes_on(make_state, server, home, stop):
    state = make_state()
    stop(state)
    await started(state, home, {"broken": {"command": "/no/such/server"}, "demo": demo()})
    assert state.mcp.servers["broken"].state == "failed"
    assert [n.text for n in state.emit.of(Notice) if "broken" in n.text][0].startswith("MCP server broken")
    server.script(ToolCalls([("mcp__demo__crash", {})]), Text("It crashed."), Text("Still here."))
    outcome = await run_turn(state, "crash it")
    assert outcome.ok, outcome.error
    assert state.mcp.servers["demo"].state == "failed"
    assert len([n for n in state.emit.of(Notice) if "demo" in n.text]) == 1
    outcome = await run_turn(state, "and now?")
    assert outcome.ok and "mcp__demo__add" not in body(server)


async def test_mcp_lists_servers_and_context_shows_results_by_server(make_state, server, home, stop):
    state = make_state()
    stop(state)
    await started(state, home, {"demo": demo(), "broken": {"command": "/no/such/server"}})
    server.script(ToolCalls([("mcp__demo__add", {"a": 2, "b": 2})]), Text("4"))
    await run_turn(state, "add")
    state.emit = log = EventLog()
    await dispatch(CommandHost(state), "/mcp")
    [listing] = log.of(Listing)
    text = "\n".join(listing.lines)
    assert "demo · yours · ready" in text and "mcp__demo__add, mcp__demo__env_has, mcp__demo__crash" in text
    assert "broken" in text and "failed" in text
    rows = breakdown(state)
    assert any(kind == "tool" and name == "mcp__demo" and n > 0 for kind, name, n in rows)
    assert state.mcp.definition_tokens() > 0


def test_the_cheap_tier_clears_mcp_results_like_any_other():
    from pydantic_ai.messages import ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart

    from agent.compaction.rebuild import cheap_tier

    history = []
    for i in range(12):
        history.append(ModelResponse(parts=[ToolCallPart("mcp__demo__add", {"a": i}, tool_call_id=f"c{i}")]))
        history.append(ModelRequest(parts=[ToolReturnPart("mcp__demo__add", "result " * 2000, tool_call_id=f"c{i}")]))
    cleared, saved = cheap_tier(history, 5_000)
    assert saved > 0
    assert "result result" not in str(cleared[1].parts[0].content)


async def test_a_projects_servers_start_only_once_approved(make_state, workspace, home, tmp_path, stop):
    marker = tmp_path / "serving"
    (workspace / ".mcp.json").write_text(json.dumps({"mcpServers": {"demo": demo("0", str(marker))}}))
    state = make_state()
    stop(state)
    state.config.settings = files.load(workspace)
    state.mcp, _ = mcp_servers.load(state.config.settings, workspace, "en")
    assert state.mcp.servers["demo"].scope == "project"
    assert not (await trust.settle(state)).trusted  # no one to ask: not approved
    mcp_servers.start(state, False)
    await asyncio.sleep(0)
    assert state.mcp.servers["demo"].state == "waiting" and not marker.exists()
