"""Sub-agent definitions, Claude Code's `.claude/agents/*.md`: the task tool's `subagent_type` runs one
with its own system prompt, tools and model; task's description names them; /agents lists them."""

from __future__ import annotations

from io import StringIO

from rich.console import Console

import main
from agent.events import Listing
from tests.fake_openai import ToolCalls
from ui.app import App
from ui.commands import dispatch

SUB = "You are now a sub-agent"
REVIEWER = """---
name: reviewer
description: Reviews code for bugs. Use after every change.
tools: Read, Grep, WebSearch
model: deepseek-v4-pro
---
You are a strict reviewer. Report every bug with its line.
"""


def is_child(body) -> bool:
    return SUB in str(body["messages"][0].get("content"))


def tool_results(body) -> list[str]:
    return [m["content"] for m in body["messages"] if m["role"] == "tool"]


def write(path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


async def test_a_defined_sub_agent_runs_with_its_prompt_tools_and_model(make_state, server, workspace):
    write(workspace / ".claude" / "agents" / "reviewer.md", REVIEWER)
    (workspace / "a.py").write_text("x = 1\n")
    state = make_state()
    server.script(ToolCalls([("task", {"description": "review", "prompt": "read a.py", "subagent_type": "reviewer"})]))
    await main.on_submit(state, "review my change")
    child = [r["body"] for r in server.requests if is_child(r["body"])]
    assert child, "the sub-agent made no request"
    system = child[0]["messages"][0]["content"]
    assert "You are a strict reviewer. Report every bug with its line." in system
    assert {tool["function"]["name"] for tool in child[0]["tools"]} == {"read_file", "grep"}
    assert child[0]["model"] == "deepseek-v4-pro"
    parent = [r["body"] for r in server.requests if not is_child(r["body"])]
    assert parent[0]["model"] == "deepseek-flash"
    # task's description names the project's sub-agents, so that the model knows to use them.
    [task_tool] = [tool["function"] for tool in parent[0]["tools"] if tool["function"]["name"] == "task"]
    assert "- reviewer: Reviews code for bugs. Use after every change." in task_tool["description"]
    assert "subagent_type" in task_tool["parameters"]["properties"]
    [report] = tool_results(parent[-1])
    assert report.startswith("Done: read_file returned") and "not available to a sub-agent here: WebSearch" in report


async def test_an_unknown_sub_agent_is_told_with_the_defined_ones(make_state, server, workspace, tmp_path):
    write(tmp_path / "claude-home" / "agents" / "helper.md", "---\nname: helper\ndescription: helps\n---\nHelp.")
    state = make_state()
    server.script(ToolCalls([("task", {"description": "x", "prompt": "read a.py", "subagent_type": "nobody"})]))
    await main.on_submit(state, "go")
    assert tool_results(server.requests[-1]["body"]) == [
        "Error: no sub-agent is named 'nobody'; the defined ones: helper"
    ]


async def test_without_definitions_the_task_tool_is_as_it_was(make_state, server, workspace):
    state = make_state()
    await main.on_submit(state, "hello")
    [task_tool] = [t["function"] for t in server.requests[-1]["body"]["tools"] if t["function"]["name"] == "task"]
    assert (
        "subagent_type" not in task_tool["parameters"]["properties"]
        and "Sub-agents defined" not in task_tool["description"]
    )
    assert not any(is_child(r["body"]) for r in server.requests)


async def test_agents_lists_the_definitions(make_state, server, workspace):
    state = make_state()
    app = App(state, main.submit, console=Console(file=StringIO(), width=160))
    from agent.events import EventLog

    state.emit = EventLog()
    await dispatch(app, "/agents")
    assert "No sub-agents are defined" in state.emit.events[-1].text
    write(workspace / ".claude" / "agents" / "reviewer.md", REVIEWER)
    write(workspace / ".claude" / "agents" / "claude-fan.md", "---\nname: fan\nmodel: opus\n---\nBe a fan.")
    await dispatch(app, "/agents")
    [listing] = state.emit.of(Listing)
    text = "\n".join(listing.lines)
    assert f"  reviewer · the project's · {workspace / '.claude' / 'agents' / 'reviewer.md'}" in listing.lines
    assert "    tools: Read, Grep, WebSearch · model: deepseek-v4-pro" in listing.lines
    assert "model: opus (Claude's: runs with the session's)" in text and "every tool a sub-agent may have" in text
