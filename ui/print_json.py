"""-p mode for scripts: `--output-format json` prints one object when the turn ends;
`stream-json` prints Claude Code's `init` line, then every event of the channel (agent.events) as one
JSON line as it comes with Claude Code's whole `assistant` and `user` messages among them, then the
same object. Keys and types are what a wrapper relies on: keep them stable (docs/capabilities.md).

JSON is written with ensure_ascii, so nothing the model wrote reaches a terminal as a control byte."""

from __future__ import annotations

import dataclasses
import json
import re
import sys
import time
from typing import Any

from agent.events import CompactionFinished, Event, TextDelta, ToolCallStarted, ToolResult
from agent.state.app import AppState, Stats
from ui.dispatch import Reply
from ui.print_messages import MessageFeed
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
        self.begin_turn()

    def begin_turn(self) -> None:
        """What the next result reports starts here (a resumed session's totals are not this run's)."""
        self.start = Stats.from_dict(self.state.stats.to_dict())
        self.started = time.monotonic()
        self.tools: list[dict[str, Any]] = []
        self.compactions: list[dict[str, Any]] = []
        self.turn_errors, self.turn_declined = len(self.errors), len(self.declined)

    def on_text(self, event: TextDelta) -> None: ...

    def on_tool_call(self, event: ToolCallStarted) -> None:
        self.tools.append({"id": event.tool_call_id, "name": event.tool_name, "is_error": False})

    def on_compaction_finished(self, event: CompactionFinished) -> None:
        super().on_compaction_finished(event)
        self.compactions.append(
            {
                "trigger": event.trigger,
                "tier": event.tier,
                "tokens_before": event.tokens_before,
                "tokens_after": event.tokens_after,
                "dropped": event.dropped,
            }
        )

    def on_tool_result(self, event: ToolResult) -> None:
        for tool in self.tools:
            if tool["id"] == event.tool_call_id:
                tool["is_error"] = event.is_error

    def turn_done(self) -> None:
        """The turn's result line; the next turn's figures start after it."""
        errors, declined = self.errors[self.turn_errors :], self.declined[self.turn_declined :]
        write_line(result_record(self, 1 if errors else 3 if declined else 0, errors, declined))
        self.begin_turn()

    def finish(self) -> int:
        self.turn_done()
        return exit_code(self)


class StreamJsonRenderer(JsonRenderer):
    """Every event as a line, and Claude Code's: a `system` `init` line first, then each whole
    message as the turn saves it (`assistant`, and `user` for tool results: ui.print_messages)."""

    def __init__(self, state: AppState) -> None:
        super().__init__(state)
        self.messages = MessageFeed(state.history)
        # Events before the init line (the MCP servers starting) wait for it: Claude Code's comes first.
        self.early: list[dict[str, Any]] | None = []

    def init_line(self) -> None:
        write_line(init_record(self.state))
        self.close()

    def close(self) -> None:
        """What waited for the init line, written now (also when the run ends before it)."""
        for record in self.early or []:
            write_line(record)
        self.early = None

    def __call__(self, event: Event) -> Reply:
        if self.early is not None:
            self.early.append(event_record(event))
            return super().__call__(event)
        self._flush()  # a message the turn saved before this event goes first, as it happened
        write_line(event_record(event))
        return super().__call__(event)

    def _flush(self) -> None:
        for record in self.messages.new(self.state):
            write_line(record)

    def turn_done(self) -> None:
        self._flush()
        super().turn_done()


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


def init_record(state: AppState) -> dict[str, Any]:
    """Claude Code's first stream-json line: what this run has (its tools and MCP servers as started)."""
    from agent.provider import agent_files, command_files
    from agent.tools.permissions import mode
    from agent.tools.toolset import active_tools

    servers = state.mcp.servers.values()
    mcp_tools = [f"mcp__{s.name}__{tool}" for s in servers if s.state == "ready" for tool in s.tools]
    return {
        "type": "system",
        "subtype": "init",
        "cwd": str(state.workspace),
        "session_id": state.session_id,
        "model": state.config.model,
        "permissionMode": mode(state),
        "tools": [tool.name for tool in active_tools(state.config)] + mcp_tools,
        "mcp_servers": [{"name": s.name, "status": SERVER_STATUS.get(s.state, s.state)} for s in servers],
        "slash_commands": [c.name for c in command_files.load(state.workspace)],
        "agents": [a.name for a in agent_files.load(state.workspace)],
    }


# Our MCP server states in Claude Code's words.
SERVER_STATUS = {"ready": "connected", "starting": "pending", "waiting": "needs-approval"}


def result_record(view: JsonRenderer, code: int, errors: list[str], declined: list[str]) -> dict[str, Any]:
    """The turn's result: Claude Code's fields (`subtype`, `num_turns`, `duration_ms`, `total_cost_usd`,
    `usage` as Anthropic counts: `input_tokens` without the cache's) and ours beside them."""
    from agent.provider import prices as price_table

    now, start = view.state.stats, view.start
    hit = now.cache_hit_tokens - start.cache_hit_tokens
    miss = max(0, now.input_tokens - start.input_tokens - hit)
    output = now.output_tokens - start.output_tokens
    requests = now.requests - start.requests
    prices = price_table.now(view.state.config)
    sub = {
        name: getattr(now, f"subagent_{name}") - getattr(start, f"subagent_{name}")
        for name in ("runs", "requests", "input_tokens", "cache_hit_tokens", "output_tokens")
    }
    sub_miss = max(0, sub["input_tokens"] - sub["cache_hit_tokens"])
    total = (
        None
        if prices is None
        else (
            price_table.money(hit, miss, output, prices)
            + price_table.money(sub["cache_hit_tokens"], sub_miss, sub["output_tokens"], prices)
        )
    )
    limit = view.state.config.max_requests
    subtype = (
        "success" if code in (0, 3) else "error_max_turns" if limit and requests >= limit else "error_during_execution"
    )
    return {
        "type": "result",
        "subtype": subtype,
        "result": final_answer(view.state),
        "is_error": code != 0,
        "exit_code": code,
        "session_id": view.state.session_id,
        "num_turns": requests,
        "duration_ms": round((time.monotonic() - view.started) * 1000),
        "total_cost_usd": round(total, 6) if total is not None and prices.currency == "USD" else None,
        "tools": [{"name": t["name"], "is_error": t["is_error"]} for t in view.tools],
        "requests": requests,
        "usage": {
            "input_tokens": miss,
            "cache_read_input_tokens": hit,
            "cache_creation_input_tokens": 0,
            "output_tokens": output,
            "prompt_tokens": hit + miss,
            "cache_hit_tokens": hit,
        },
        "subagents": sub,  # the task tool's sub-agents, apart from `usage`
        # The agent's and its sub-agents' tokens at agent.config's model prices; null when they are not known.
        "cost": None if prices is None else {"amount": round(total, 6), "currency": prices.currency},
        "compactions": now.compactions - start.compactions,
        # Each compaction of the turn: tokens before and after, what it dropped (as the PostCompact hook gets it).
        "compaction_reports": view.compactions,
        "errors": errors,
        "declined": declined,
    }
