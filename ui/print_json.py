"""-p mode for scripts: `--output-format json` prints one object when the turn ends;
`stream-json` prints every event of the channel (agent.events) as one JSON line as it comes, then
the same object. Keys and types are what a wrapper relies on: keep them stable (docs/capabilities.md).

JSON is written with ensure_ascii, so nothing the model wrote reaches a terminal as a control byte."""

from __future__ import annotations

import dataclasses
import json
import re
import sys
from typing import Any

from agent.events import Event, TextDelta, ToolCallStarted, ToolResult
from agent.state.app import AppState, Stats
from ui.dispatch import Reply
from ui.print_view import PrintRenderer, exit_code

FORMATS = ("text", "json", "stream-json")


def event_type(event: object) -> str:
    """TextDelta -> "text_delta": the `type` of an event's JSON line."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", type(event).__name__).lower()


def event_record(event: object) -> dict[str, Any]:
    return {"type": event_type(event), **dataclasses.asdict(event)}  # type: ignore[call-overload]


def write_line(record: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(record, default=str) + "\n")
    sys.stdout.flush()


class JsonRenderer(PrintRenderer):
    """Collects what the result object reports; notices still go to stderr, for a person watching."""

    def __init__(self, state: AppState) -> None:
        super().__init__(state.lang)
        self.state = state
        self.start = Stats.from_dict(state.stats.to_dict())  # a resumed session's totals are not this run's
        self.tools: list[dict[str, Any]] = []

    def on_text(self, event: TextDelta) -> None: ...

    def on_tool_call(self, event: ToolCallStarted) -> None:
        self.tools.append({"id": event.tool_call_id, "name": event.tool_name, "is_error": False})

    def on_tool_result(self, event: ToolResult) -> None:
        for tool in self.tools:
            if tool["id"] == event.tool_call_id:
                tool["is_error"] = event.is_error

    def finish(self) -> int:
        code = exit_code(self)
        write_line(result_record(self, code))
        return code


class StreamJsonRenderer(JsonRenderer):
    def __call__(self, event: Event) -> Reply:
        write_line(event_record(event))
        return super().__call__(event)


def make_view(output_format: str, state: AppState) -> PrintRenderer:
    if output_format == "json":
        return JsonRenderer(state)
    if output_format == "stream-json":
        return StreamJsonRenderer(state)
    return PrintRenderer(state.lang)


def final_answer(state: AppState) -> str:
    """The text of the last model response of the history: the turn's answer."""
    from pydantic_ai.messages import ModelResponse, TextPart

    for message in reversed(state.history):
        if isinstance(message, ModelResponse):
            return "".join(p.content for p in message.parts if isinstance(p, TextPart))
    return ""


def result_record(view: JsonRenderer, code: int) -> dict[str, Any]:
    from agent.provider import prices as price_table

    now, start = view.state.stats, view.start
    hit = now.cache_hit_tokens - start.cache_hit_tokens
    miss = max(0, now.input_tokens - start.input_tokens - hit)
    output = now.output_tokens - start.output_tokens
    prices = price_table.now(view.state.config)
    sub = {name: getattr(now, f"subagent_{name}") - getattr(start, f"subagent_{name}")
           for name in ("runs", "requests", "input_tokens", "cache_hit_tokens", "output_tokens")}
    sub_miss = max(0, sub["input_tokens"] - sub["cache_hit_tokens"])
    total = None if prices is None else (
        price_table.money(hit, miss, output, prices) + price_table.money(sub["cache_hit_tokens"], sub_miss,
                                                                 sub["output_tokens"], prices))
    return {
        "type": "result",
        "result": final_answer(view.state),
        "is_error": code != 0,
        "exit_code": code,
        "session_id": view.state.session_id,
        "tools": [{"name": t["name"], "is_error": t["is_error"]} for t in view.tools],
        "requests": now.requests - start.requests,
        "usage": {"input_tokens": hit + miss, "cache_hit_tokens": hit, "output_tokens": output},
        "subagents": sub,  # the task tool's sub-agents, apart from `usage`
        # The agent's and its sub-agents' tokens at agent.config's model prices; null when they are not known.
        "cost": None if prices is None else {"amount": round(total, 6), "currency": prices.currency},
        "compactions": now.compactions - start.compactions,
        "errors": list(view.errors),
        "declined": list(view.declined),
    }
