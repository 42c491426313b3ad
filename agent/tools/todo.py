"""The task list the model keeps its plan in (the `todo` tool), and its restore after a compaction.

The list has one owner, the history: it is the arguments of the newest `todo` call there. So a
resumed session, /undo and "/compact undo" all see the list that went with their history, and a
compaction puts that call back right after the summary (as it re-reads the newest files), so the
plan never depends on what the summary happened to say about it."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

from pydantic_ai import RunContext
from typing_extensions import TypedDict  # pydantic needs it on Python < 3.12

from agent.events import TodosChanged
from agent.state.app import AppState  # at run time: pydantic-ai reads the tool's type hints

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

TOOL = "todo"
STATUSES = ("pending", "in_progress", "completed")
MAX_ITEMS = 50
MAX_CONTENT = 300  # characters of one item: a plan, not a place for notes
MARKS = {"pending": "[ ]", "in_progress": "[>]", "completed": "[x]"}


class TodoItem(TypedDict):
    content: str
    status: Literal["pending", "in_progress", "completed"]


Items = tuple[tuple[str, str], ...]  # (content, status) pairs


def checked(items: object) -> Items:
    """The items as (content, status) pairs; raises ValueError with what is wrong."""
    if not isinstance(items, list):
        raise ValueError("items must be a list")
    if len(items) > MAX_ITEMS:
        raise ValueError(f"at most {MAX_ITEMS} items")
    out = []
    for n, item in enumerate(items, start=1):
        content = str(item.get("content", "")).strip() if isinstance(item, dict) else ""
        status = item.get("status") if isinstance(item, dict) else None
        if not content or status not in STATUSES:
            raise ValueError(f"item {n} needs a non-empty content and a status among {', '.join(STATUSES)}")
        out.append((" ".join(content.split())[:MAX_CONTENT], str(status)))
    return tuple(out)


def as_text(items: Items) -> str:
    if not items:
        return "The task list is empty."
    return "\n".join(f"{MARKS[status]} {content}" for content, status in items)


async def todo(ctx: RunContext[AppState], items: list[TodoItem]) -> str:
    """Keep your plan for a task of several steps as a task list, and keep it current: send the
    whole list each time (it replaces the previous one), marking an item in_progress when you start
    it (one at a time) and completed as soon as it is done. The list stays with you after the
    conversation is compacted. Skip it for a task of one or two steps.

    Args:
        items: Every item of the list, in order, each with its content and status.
    """
    try:
        pairs = checked(items)
    except ValueError as exc:
        return f"Error: {exc}"
    ctx.deps.emit(TodosChanged(pairs))
    return as_text(pairs)


def _todo_calls(messages: Sequence[ModelMessage]):
    from pydantic_ai.messages import ModelResponse, ToolCallPart

    for message in reversed(messages):
        if isinstance(message, ModelResponse):
            for part in reversed(message.parts):
                if isinstance(part, ToolCallPart) and part.tool_name == TOOL:
                    yield part


def current(messages: Sequence[ModelMessage]) -> Items:
    """The list as of `messages`: the newest todo call whose arguments were valid."""
    for call in _todo_calls(messages):
        try:
            return checked(call.args_as_dict().get("items"))
        except ValueError:
            continue
    return ()


def restore_messages(history: Sequence[ModelMessage], tail: Sequence[ModelMessage]) -> list[ModelMessage]:
    """The list of `history` as a todo call and its result, for the history a compaction builds; none
    when the list is empty or the kept `tail` already holds its newest call."""
    from pydantic_ai.messages import ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart

    items = current(history)
    if not items or current(tail) == items:
        return []
    call_id = f"call_{uuid.uuid4().hex[:24]}"
    args = {"items": [{"content": content, "status": status} for content, status in items]}
    return [
        ModelResponse(parts=[ToolCallPart(TOOL, args, tool_call_id=call_id)]),
        ModelRequest(parts=[ToolReturnPart(TOOL, as_text(items), tool_call_id=call_id)]),
    ]
