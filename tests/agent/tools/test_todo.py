"""The task list (issue 25, part 2): the `todo` tool through the real client and the strict emulator,
its event, /todos, and its restore after a compaction (the plan never depends on the summary)."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from rich.console import Console

import compact
import main
from agent.events import TodosChanged
from agent.tools import todo
from tests.builders import long_answer, responder, script_forever
from ui.render import Renderer

PLAN = "todo plan the change; [>] write the code; [x] read the spec"
ITEMS = (("plan the change", "pending"), ("write the code", "in_progress"), ("read the spec", "completed"))


def todo_calls(body):
    """The task lists the request carries, as todo calls' items, in order."""
    found = []
    for message in body["messages"]:
        for call in message.get("tool_calls") or []:
            if call["function"]["name"] == "todo":
                found.append(json.loads(call["function"]["arguments"])["items"])
    return found


async def test_the_model_keeps_its_plan_and_the_ui_is_told(make_state, server):
    state = make_state()
    await main.on_submit(state, PLAN)
    [changed] = state.emit.of(TodosChanged)
    assert changed.items == ITEMS
    assert todo.current(state.history) == ITEMS
    tool_message = [m for m in server.requests[-1]["body"]["messages"] if m["role"] == "tool"][-1]
    assert tool_message["content"] == "[ ] plan the change\n[>] write the code\n[x] read the spec"
    assert "todo" in {t["function"]["name"] for t in server.requests[0]["body"]["tools"]}


async def test_a_bad_list_is_an_error_to_the_model_and_changes_nothing(ctx):
    answer = await todo.todo(ctx, [{"content": "x", "status": "maybe"}])
    assert answer.startswith("Error:") and "status" in answer
    assert ctx.deps.emit is not None and todo.current([]) == ()


async def test_the_list_is_in_the_request_after_a_compaction(make_state, server):
    state = make_state()
    script_forever(server, responder([long_answer(1)]))  # then the smart default: PLAN is a todo call
    await main.on_submit(state, "explain the design")
    await main.on_submit(state, PLAN)
    await main.on_submit(state, "and what else?")
    await compact.run_compact(state)
    assert state.stats.compactions == 1
    script_forever(server, responder([long_answer(2)]))
    await main.on_submit(state, "go on")
    body = server.requests[-1]["body"]
    # The summary never mentions it (tests.builders.SUMMARY): the list is restored as a call.
    assert todo_calls(body) == [[{"content": c, "status": s} for c, s in ITEMS]]
    # A second compaction keeps it too (restored from the restored call), once.
    await compact.run_compact(state)
    await main.on_submit(state, "and on")
    assert len(todo_calls(server.requests[-1]["body"])) == 1
    assert todo.current(state.history) == ITEMS


def test_no_restore_when_the_kept_tail_has_the_newest_list():
    assert todo.restore_messages([], []) == []
    from pydantic_ai.messages import ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart

    items = [{"content": "a", "status": "pending"}]
    call = ModelResponse(parts=[ToolCallPart("todo", {"items": items}, tool_call_id="c1")])
    result = ModelRequest(parts=[ToolReturnPart("todo", "[ ] a", tool_call_id="c1")])
    assert todo.restore_messages([call, result], [call, result]) == []
    assert len(todo.restore_messages([call, result], [])) == 2


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_todos_command_draws_the_list(make_state, server, lang):
    from ui.app import App
    from ui.commands import dispatch

    out = StringIO()
    state = make_state(lang=lang)
    app = App(state, main.submit, console=Console(file=out, width=100))
    await dispatch(app, "/todos")
    assert ("还没有任务清单" if lang == "zh" else "No task list yet") in out.getvalue()
    await main.submit(app, PLAN)
    await dispatch(app, "/todos")
    text = out.getvalue()
    assert text.count("write the code") == 2  # drawn when it changed, and at /todos
    assert ("已完成 1/3" if lang == "zh" else "1/3 done") in text


def test_the_renderer_escapes_an_item():
    out = StringIO()
    Renderer(Console(file=out, width=80), "en")(TodosChanged((("\x1b[2Jwipe", "pending"),)))
    assert "\x1b[2J" not in out.getvalue() and "wipe" in out.getvalue()
