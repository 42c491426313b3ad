"""The cheap tier: shrink a history without an LLM call.

Tool results are most of a coding session's tokens (~84% in published SWE-agent trajectories) and
can be fetched again, so old ones are replaced by a one-line placeholder, and a read_file result
superseded by a later read of the same file goes first.

pydantic-ai-harness has ClearToolResults and DeduplicateFileReads, but they edit the run's history
in place on every request; we need the cleared copy as a value (the archive keeps the original, the
compaction request is fitted from it) and the tokens each step saved, for /status and the bench.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from agent.tokens import count as tokens

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage, ToolCallPart

# A result this small costs less than its placeholder would save.
MIN_CLEARABLE_TOKENS = 64
PLACEHOLDER = "[Old tool result cleared to save context: {call}. Run the tool again if you need it.]"
SUPERSEDED = "[Superseded: {call} was read again later; see the newer result.]"


def without_usage(messages: Sequence[ModelMessage]) -> list[ModelMessage]:
    """Responses kept after a history changed under them must not carry usage measured on the old one:
    the gauge counts from the newest usage (agent.compaction.context), so it counts afresh instead."""
    from pydantic_ai.messages import ModelResponse
    from pydantic_ai.usage import RequestUsage

    return [dataclasses.replace(m, usage=RequestUsage()) if isinstance(m, ModelResponse) else m for m in messages]


def _describe_call(call: ToolCallPart | None, tool_name: str) -> str:
    if call is None:
        return f"{tool_name}(...)"
    args = call.args_as_dict()
    main = next(iter(args.items()), None)
    if main is None:
        return f"{tool_name}()"
    value = json.dumps(main[1], ensure_ascii=False)
    if len(value) > 80:
        value = value[:77] + '..."'
    return f"{tool_name}({main[0]}={value})"


def _calls_by_id(messages: Sequence[ModelMessage]) -> dict[str, ToolCallPart]:
    from pydantic_ai.messages import ModelResponse, ToolCallPart

    calls = {}
    for message in messages:
        if isinstance(message, ModelResponse):
            for part in message.parts:
                if isinstance(part, ToolCallPart):
                    calls[part.tool_call_id] = part
    return calls


def clear_tool_results(messages: Sequence[ModelMessage], keep_tokens: int) -> tuple[list[ModelMessage], int]:
    """Return a copy with old tool results cleared and the tokens saved.

    A result the model has not been sent yet (after the last response) is never cleared: it would
    read it again, and again. The others are cleared oldest first: the newest are kept up to
    `keep_tokens` (the unseen ones count too), and once one does not fit, every older one goes, so
    the current turn's results go last. Superseded file reads are cleared whatever their age.
    Untouched messages are the same objects, so their cached token counts still hold.
    """
    from pydantic_ai.messages import ModelRequest, ToolReturnPart

    calls = _calls_by_id(messages)
    seen_until = last_response(messages)
    seen_reads: set[str] = set()
    budget = keep_tokens
    result: list[ModelMessage] = list(messages)
    saved = 0
    for index in range(len(result) - 1, -1, -1):
        message = result[index]
        if not isinstance(message, ModelRequest):
            continue
        new_parts, changed = [], False
        for part in reversed(message.parts):
            if not isinstance(part, ToolReturnPart):
                new_parts.append(part)
                continue
            call = calls.get(part.tool_call_id)
            read_key = _read_key(call)
            superseded = read_key is not None and read_key in seen_reads
            if read_key is not None:
                seen_reads.add(read_key)
            size = tokens.count_text(part.model_response_str())
            if index > seen_until or (not superseded and (size <= budget or size < MIN_CLEARABLE_TOKENS)):
                budget = budget - size if size <= budget else 0
                new_parts.append(part)
                continue
            if not superseded:
                budget = 0  # nothing older is kept while a newer result goes
            template = SUPERSEDED if superseded else PLACEHOLDER
            placeholder = template.format(call=_describe_call(call, part.tool_name))
            new_parts.append(dataclasses.replace(part, content=placeholder))
            changed = True
        if changed:
            new_parts.reverse()
            replaced = dataclasses.replace(message, parts=new_parts)
            saved += tokens.count_message(message) - tokens.count_message(replaced)
            result[index] = replaced
    return result, max(saved, 0)


def is_cleared(text: str) -> bool:
    """Whether a tool's answer is one the cheap tier cleared (its placeholder, not the result)."""
    return any(text.startswith(template.split("{call}")[0]) for template in (PLACEHOLDER, SUPERSEDED))


def last_response(messages: Sequence[ModelMessage]) -> int:
    """Index of the newest model response (-1 if none): what comes after it the model has not seen."""
    from pydantic_ai.messages import ModelResponse

    return next((i for i in range(len(messages) - 1, -1, -1) if isinstance(messages[i], ModelResponse)), -1)


def _read_key(call: ToolCallPart | None) -> str | None:
    if call is None or call.tool_name != "read_file":
        return None
    args = call.args_as_dict()
    return json.dumps([args.get("path"), args.get("offset", 1), args.get("limit")], default=str)


def fit_messages(
    messages: Sequence[ModelMessage], limit: int, fixed: int
) -> tuple[list[ModelMessage], int]:
    """Leave out the oldest messages until `fixed + tokens(messages) <= limit`.

    A compaction's head at the start is kept (agent.compaction.summary.head_end: it carries
    everything before it, the user messages verbatim; its restored files within their budget). Tool calls and
    their results are never separated: the kept part starts at a user prompt or a plain request.
    Returns the kept messages and how many were left out.
    """
    from agent.compaction.summary import head_end

    head = list(messages[: head_end(messages)])
    rest = list(messages[len(head) :])
    total = fixed + tokens.count_messages(head) + tokens.count_messages(rest)
    start = 0
    while total > limit and start < len(rest) - 1:
        total -= tokens.count_message(rest[start])
        start += 1
        while start < len(rest) - 1 and not starts_cleanly(rest[start]):
            total -= tokens.count_message(rest[start])
            start += 1
    return head + rest[start:], start


def starts_cleanly(message: ModelMessage) -> bool:
    """Whether a history may start (or be cut) at `message`: nothing before it is needed to pair it."""
    from pydantic_ai.messages import ModelResponse

    from agent.tools.mentions import is_mention

    if isinstance(message, ModelResponse):
        # An @-mention's read call starts its user message's group: kept with it, or left out with it.
        return is_mention(message)
    # Tool returns and retry prompts carry a tool_call_id: their call would be left behind.
    return bool(message.parts) and not any(hasattr(p, "tool_call_id") for p in message.parts)
