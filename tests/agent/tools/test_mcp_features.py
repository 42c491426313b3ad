"""What an MCP server offers and asks besides tools, against a real server process of the suite's own
(tests/mcp_features_server.py): its prompts as slash commands, its resources as @-mentions and through
read_mcp_resource, its progress, its roots, its questions to the user and its use of the model."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import main
from agent.events import EventLog, Listing, Notice, Question, ToolProgress, ToolResult
from agent.provider import settings as files
from agent.tools import mcp_servers
from agent.turn.loop import run_turn
from tests.fake_openai import Text, ToolCalls
from ui.commands import dispatch
from ui.context_view import breakdown
from ui.registry import CommandHost

SERVER = str(Path(__file__).resolve().parents[2] / "mcp_features_server.py")
NOTE = "Release notes: version 7 ships on Friday."


async def started(state, home, **settings) -> list[str]:
    home.mkdir(exist_ok=True)
    (home / "settings.json").write_text(
        json.dumps({"mcpServers": {"feat": {"command": sys.executable, "args": [SERVER]}}, **settings})
    )
    state.config.settings = files.load(state.workspace)
    state.mcp, warnings = mcp_servers.load(state.config.settings, state.workspace, "en")
    mcp_servers.start(state, True)
    await mcp_servers.wait_started(state)
    assert state.mcp.servers["feat"].state == "ready", state.mcp.servers["feat"].error
    return warnings


@pytest.fixture
async def stop():
    made = []
    yield made.append
    for state in made:
        await mcp_servers.stop_all(state)


def sent(server) -> str:
    return json.dumps(server.requests[-1]["body"], ensure_ascii=False)


def result_of(log: EventLog, tool: str) -> ToolResult:
    return next(e for e in log.of(ToolResult) if e.tool_name == tool)


class Host(CommandHost):
    def __init__(self, state) -> None:
        super().__init__(state)
        self.sent: list[tuple[str, str | None]] = []

    async def prompt(self, text: str, typed: str | None = None) -> None:
        self.sent.append((text, typed))


async def test_a_servers_prompt_is_a_slash_command_whose_text_is_framed_as_the_servers(make_state, home, stop):
    state = make_state()
    stop(state)
    await started(state, home)
    host = Host(state)
    assert any(cmd.name == "mcp__feat__review" and cmd.hint("en") == "topic [depth]" for cmd in host.commands())
    await dispatch(host, '/mcp__feat__review "the parser" long')
    [(text, typed)] = host.sent
    assert "Please review the parser (long). PROMPT-MARKER" in text
    assert 'prompt "review" of the MCP server feat' in text and "not the user's words" in text
    assert typed == '"the parser" long'  # what the user typed: the server's text names no image of theirs
    await dispatch(host, "/mcp__feat__review")
    assert any("needs topic" in n.text for n in state.emit.of(Notice)) and len(host.sent) == 1
    await dispatch(host, "/mcp")
    assert "    prompts: /mcp__feat__review · resources: 2 (@feat:uri)" in state.emit.of(Listing)[-1].lines


async def test_a_resource_mention_attaches_the_servers_text_as_a_tool_answer(make_state, server, home, stop):
    state = make_state()
    stop(state)
    await started(state, home)
    server.script(Text("Friday."))
    await main.on_submit(state, "when is @feat:notes://release, and @feat:notes://nothing?")
    body = sent(server)
    assert NOTE in body and '"name": "read_mcp_resource"' in body  # the call in the history, the tool offered
    request = server.requests[-1]["body"]["messages"]
    answer = next(m for m in request if m.get("role") == "tool")
    assert answer["content"] == NOTE  # the server's text as a tool's answer, not in the user's message
    user = [m for m in request if m.get("role") == "user"][-1]
    assert NOTE not in json.dumps(user)
    notices = " ".join(n.text for n in state.emit.of(Notice))
    assert "@feat:notes://release" in notices and "@feat:notes://nothing was not attached" in notices


async def test_the_model_lists_and_reads_resources_with_tools(make_state, server, home, stop):
    state = make_state()
    stop(state)
    await started(state, home)
    server.script(
        ToolCalls([("list_mcp_resources", {})]),
        ToolCalls([("read_mcp_resource", {"server": "feat", "uri": "notes://release"})]),
        Text("Done."),
    )
    await run_turn(state, "read the release notes")
    assert "notes://release  release  The release notes." in result_of(state.emit, "list_mcp_resources").content
    assert result_of(state.emit, "read_mcp_resource").content == NOTE


async def test_a_deny_rule_for_the_server_refuses_reading_its_resources(make_state, server, home, stop):
    state = make_state()
    stop(state)
    await started(state, home, permissions={"deny": ["mcp__feat"]})
    from agent.tools import permissions

    state.permissions, _ = permissions.load(state.config.settings, None, True, "en")
    server.script(ToolCalls([("read_mcp_resource", {"server": "feat", "uri": "notes://release"})]), Text("No."))
    await run_turn(state, "read it")
    assert "refuses" in result_of(state.emit, "read_mcp_resource").content


async def test_progress_reaches_the_ui_as_the_tool_runs(make_state, server, home, stop):
    state = make_state()
    stop(state)
    await started(state, home)
    server.script(ToolCalls([("mcp__feat__slow", {"steps": 3})]), Text("Slow done."))
    await run_turn(state, "call slow")
    shown = [(e.tool_name, e.progress, e.total) for e in state.emit.of(ToolProgress)]
    assert shown[0] == ("mcp__feat__slow", None, None)  # named before any progress: not "Waiting for the model"
    assert shown[1:] == [("mcp__feat__slow", float(n), 3.0) for n in (1, 2, 3)]
    assert "done 3 steps" in result_of(state.emit, "mcp__feat__slow").content


async def test_the_servers_roots_are_the_workspace(make_state, server, home, stop, workspace):
    state = make_state()
    stop(state)
    await started(state, home)
    server.script(ToolCalls([("mcp__feat__roots", {})]), Text("ok"))
    await run_turn(state, "roots")
    assert result_of(state.emit, "mcp__feat__roots").content.endswith(f"roots: {workspace.as_uri()}")


class Answers(EventLog):
    """A user who answers each question with the next of `answers`."""

    def __init__(self, *answers: str) -> None:
        super().__init__()
        self.answers = list(answers)

    def __call__(self, event):
        super().__call__(event)
        if isinstance(event, Question):

            async def reply() -> str:
                return self.answers.pop(0)

            return reply()
        return None


async def test_a_servers_question_is_asked_field_by_field(make_state, server, home, stop):
    state = make_state()
    stop(state)
    await started(state, home)
    state.emit = Answers("y", "red", "three", "3")
    server.script(ToolCalls([("mcp__feat__ask_user", {})]), Text("ok"))
    await run_turn(state, "ask me")
    assert "the user said red x3" in result_of(state.emit, "mcp__feat__ask_user").content
    asked = [q.text for q in state.emit.of(Question)]
    assert asked[0] == "Answer it? (n declines)"
    assert asked[1].startswith("Color - Your favourite colour (text), required")
    assert asked[2] == asked[3] and "(a whole number)" in asked[2]  # "three" is not a whole number: asked again
    notices = [n.text for n in state.emit.of(Notice)]
    assert any(n.startswith("The MCP server feat asks (its own words): Pick a colour") for n in notices)


async def test_a_servers_question_with_no_one_to_answer_is_declined(make_state, server, home, stop):
    state = make_state()
    stop(state)
    await started(state, home)
    server.script(ToolCalls([("mcp__feat__ask_user", {})]), Text("ok"))
    await run_turn(state, "ask me")
    assert "the user chose decline" in result_of(state.emit, "mcp__feat__ask_user").content
    assert any("no one can answer" in n.text for n in state.emit.of(Notice))


async def test_sampling_is_declined_unless_the_users_settings_allow_it(make_state, server, home, stop, workspace):
    state = make_state()
    stop(state)
    (workspace / ".coding-agent").mkdir()
    (workspace / ".coding-agent" / "settings.json").write_text(json.dumps({"mcpSampling": True}))
    warnings = await started(state, home)
    assert any("mcpSampling is only read from your own settings file" in w for w in warnings)
    server.script(ToolCalls([("mcp__feat__summarize", {"text": "a long story"})]), Text("ok"))
    await run_turn(state, "summarize")
    answer = result_of(state.emit, "mcp__feat__summarize")
    assert "The user has not allowed MCP servers to use their model here (sampling declined)" in answer.content
    assert any("asked to use your model (sampling); declined" in n.text for n in state.emit.of(Notice))


async def test_sampling_allowed_in_the_users_settings_asks_the_sessions_model(make_state, server, home, stop):
    state = make_state()
    stop(state)
    await started(state, home, mcpSampling=["feat"])
    requests = state.stats.requests
    server.script(ToolCalls([("mcp__feat__summarize", {"text": "a long story"})]), Text("A short story."), Text("ok"))
    await run_turn(state, "summarize")
    assert "sampled: A short story." in result_of(state.emit, "mcp__feat__summarize").content
    assert any("Summarize: a long story" in json.dumps(r["body"]) for r in server.requests)
    assert state.stats.requests == requests + 3  # the sampling request is counted with the turn's two


async def test_context_shows_each_servers_tool_definitions_apart(make_state, home, stop):
    state = make_state()
    stop(state)
    await started(state, home)
    rows = breakdown(state)
    [(kind, name, n)] = [row for row in rows if row[0] == "mcpdefs"]
    assert name == "mcp__feat" and n == state.mcp.servers["feat"].definition_tokens > 0
