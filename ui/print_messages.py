"""Whole messages as Claude Code's stream-json carries them, taken from the history as the turn saves
it: an `assistant` line per model response (its text, thinking and tool calls as Anthropic's content
blocks) and a `user` line per set of tool results. The user's own prompt is not repeated."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from agent.marks import is_error_text

# pydantic-ai's finish reasons in Anthropic's words.
STOP_REASONS = {"stop": "end_turn", "tool_call": "tool_use", "length": "max_tokens", "content_filter": "refusal"}


def _key(message: Any) -> tuple | None:
    """What names a message whatever copy of it the history holds (a compaction rebuilds the list)."""
    from pydantic_ai.messages import ModelResponse, RetryPromptPart, ToolReturnPart

    if isinstance(message, ModelResponse):
        calls = tuple(getattr(p, "tool_call_id", "") for p in message.parts)
        return ("assistant", message.timestamp.isoformat(), message.provider_response_id, calls)
    results = tuple(p.tool_call_id for p in message.parts if isinstance(p, ToolReturnPart | RetryPromptPart))
    return ("user", results) if results else None


def assistant_record(response: Any, session_id: str) -> dict[str, Any]:
    from pydantic_ai.messages import TextPart, ThinkingPart, ToolCallPart

    content: list[dict[str, Any]] = []
    for part in response.parts:
        if isinstance(part, ThinkingPart) and part.content:
            content.append({"type": "thinking", "thinking": part.content, "signature": part.signature or ""})
        elif isinstance(part, TextPart) and part.content:
            content.append({"type": "text", "text": part.content})
        elif isinstance(part, ToolCallPart):
            content.append(
                {"type": "tool_use", "id": part.tool_call_id, "name": part.tool_name, "input": part.args_as_dict()}
            )
    usage = response.usage
    return {
        "type": "assistant",
        "message": {
            "id": response.provider_response_id,
            "type": "message",
            "role": "assistant",
            "model": response.model_name,
            "content": content,
            "stop_reason": STOP_REASONS.get(response.finish_reason or "", response.finish_reason),
            "usage": {
                "input_tokens": max(0, usage.input_tokens - usage.cache_read_tokens),
                "cache_read_input_tokens": usage.cache_read_tokens,
                "output_tokens": usage.output_tokens,
            },
        },
        "parent_tool_use_id": None,
        "session_id": session_id,
    }


def user_record(request: Any, session_id: str) -> dict[str, Any]:
    from pydantic_ai.messages import RetryPromptPart, ToolReturnPart

    content = []
    for part in request.parts:
        if isinstance(part, ToolReturnPart):
            text = part.model_response_str()
            content.append(
                {
                    "type": "tool_result",
                    "tool_use_id": part.tool_call_id,
                    "content": text,
                    "is_error": is_error_text(text),
                }
            )
        elif isinstance(part, RetryPromptPart):
            content.append(
                {
                    "type": "tool_result",
                    "tool_use_id": part.tool_call_id,
                    "content": part.model_response(),
                    "is_error": True,
                }
            )
    return {
        "type": "user",
        "message": {"role": "user", "content": content},
        "parent_tool_use_id": None,
        "session_id": session_id,
    }


class MessageFeed:
    """The messages of the history not yet written, as Claude Code's lines."""

    def __init__(self, history: Iterable[Any]) -> None:
        self.seen = {_key(m) for m in history}

    def new(self, state: Any) -> list[dict[str, Any]]:
        return [self._record(m, state.session_id) for m in self._unseen(state.history)]

    def _unseen(self, history: Sequence[Any]) -> list[Any]:
        found = []
        for message in history:
            key = _key(message)
            if key is not None and key not in self.seen:
                self.seen.add(key)
                found.append(message)
        return found

    @staticmethod
    def _record(message: Any, session_id: str) -> dict[str, Any]:
        from pydantic_ai.messages import ModelResponse

        if isinstance(message, ModelResponse):
            return assistant_record(message, session_id)
        return user_record(message, session_id)
