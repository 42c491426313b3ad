"""Closing what a cut-off turn left open: every tool call gets a result, so the next request is
accepted (after Ctrl-C, an error, or a session file that lost lines in a crash)."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

INTERRUPTED = "Interrupted by the user before this tool finished."
ENDED = "No result: the turn ended with an error before this tool finished."
LOST = "No result: the agent stopped before this tool finished (a crash, or a lost line of the session file)."


def repair(messages: list[ModelMessage], results: dict[str, Any], note: str = INTERRUPTED) -> list[ModelMessage]:
    """Close every tool call that has no return, so the next request is accepted.

    Not pydantic-ai's `messages.repair_messages`, which does the same closing but also merges adjacent
    requests (our session file only grows by appends: a merge would rewrite what it holds) and answers
    every dangling call with one placeholder, where ours keeps a result that came and says why one did
    not (`note`: interrupted, ended by an error, lost in a crash)."""
    from pydantic_ai.messages import ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart

    messages = list(messages)
    # A failure while tools run (e.g. a tool's retries used up) leaves the request pydantic-ai
    # opened for their results empty or half-filled.
    while messages and isinstance(messages[-1], ModelRequest) and not messages[-1].parts:
        messages.pop()
    opened = None
    if len(messages) >= 2 and isinstance(messages[-1], ModelRequest) and isinstance(messages[-2], ModelResponse):
        opened = messages.pop()
    if not messages or not isinstance(messages[-1], ModelResponse):
        return messages + ([opened] if opened is not None else [])
    calls = [p for p in messages[-1].parts if isinstance(p, ToolCallPart)]
    answered = {p.tool_call_id for p in opened.parts if _answers_call(p)} if opened is not None else set()
    parts = []
    for call in calls:
        if call.tool_call_id in answered:
            continue
        done = results.get(call.tool_call_id)
        if done is not None:
            parts.append(done)
        else:
            parts.append(ToolReturnPart(call.tool_name, note, tool_call_id=call.tool_call_id))
    if opened is not None:
        return messages + [dataclasses.replace(opened, parts=parts + list(opened.parts)) if parts else opened]
    return messages + [ModelRequest(parts=parts)] if parts else messages


def _answers_call(part: Any) -> bool:
    from pydantic_ai.messages import RetryPromptPart, ToolReturnPart

    return isinstance(part, ToolReturnPart) or (isinstance(part, RetryPromptPart) and part.tool_name is not None)


def repair_history(messages: list[ModelMessage]) -> tuple[list[ModelMessage], int]:
    """A history read from disk, made one the next request accepts; and how many fixes it took.

    A crash mid-tool leaves a tool call without its result (pydantic-ai then refuses every new
    prompt, and the API refuses the request); a skipped corrupt line can leave a result without
    its call. Every call gets a result in the request right after it, results without a call go.
    Untouched messages are kept as the same objects (pydantic-ai's `repair_messages` merges adjacent
    messages instead: see `repair`).
    """
    from pydantic_ai.messages import ModelRequest, ToolCallPart, ToolReturnPart

    def lost(calls: list[ToolCallPart]) -> list[Any]:
        return [ToolReturnPart(c.tool_name, LOST, tool_call_id=c.tool_call_id) for c in calls]

    out: list[ModelMessage] = []
    fixes = 0
    calls: list[ToolCallPart] = []
    for message in messages:
        if isinstance(message, ModelRequest):
            ids = {c.tool_call_id for c in calls}
            parts = [p for p in message.parts if not _answers_call(p) or p.tool_call_id in ids]
            answered = {p.tool_call_id for p in parts if _answers_call(p)}
            missing = lost([c for c in calls if c.tool_call_id not in answered])
            fixes += len(missing) + len(message.parts) - len(parts)
            if missing or len(parts) != len(message.parts):
                message = dataclasses.replace(message, parts=missing + parts)
            calls = []
            if message.parts:
                out.append(message)
        else:
            if calls:
                fixes += len(calls)
                out.append(ModelRequest(parts=lost(calls)))
            calls = [p for p in message.parts if isinstance(p, ToolCallPart)]
            out.append(message)
    if calls:
        fixes += len(calls)
        out.append(ModelRequest(parts=lost(calls)))
    return out, fixes
