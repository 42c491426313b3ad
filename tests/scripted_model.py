"""A pydantic-ai FunctionModel that answers from a script, for unit tests of logic that does not care
how a request travels (the guard before each request, reading a summary reply). What is sent over
HTTP is tested against the emulator (tests/fake_openai.py) instead."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import Any

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel

from agent.state.app import AppState
from agent.tools.toolset import active_tools

# A reply: text, tool calls as (name, args) pairs, or an exception the request raises.
Step = str | list[tuple[str, dict[str, Any]]] | Exception


class ScriptedModel:
    """Answers each request with the next step of `steps` (then `default`, when given) and keeps the
    messages every request was given, in `requests` (and the names of the tools it offered, in `tools`)."""

    def __init__(self, *steps: Step, default: Callable[[list[ModelMessage]], Step] | None = None) -> None:
        self.steps, self.default = list(steps), default
        self.requests: list[list[ModelMessage]] = []
        self.tools: list[list[str]] = []

    def agent(self, state: AppState) -> Agent[AppState, str]:
        """An agent like the turn's (its instructions and tools), on this script instead of a server."""
        model = FunctionModel(stream_function=self._stream, model_name="scripted")
        return Agent(
            model,
            instructions=state.scratch.instructions or "You are a coding agent.",
            deps_type=AppState,
            tools=active_tools(state.config),
        )

    async def _stream(self, messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
        self.requests.append(list(messages))
        self.tools.append([tool.name for tool in info.function_tools])
        if self.steps:
            step = self.steps.pop(0)
        elif self.default is not None:
            step = self.default(messages)
        else:
            raise AssertionError("the script has no reply left")
        if isinstance(step, Exception):
            raise step
        if isinstance(step, str):
            yield step
            return
        yield {
            i: DeltaToolCall(name, json.dumps(args), tool_call_id=f"call_{len(self.requests)}_{i}")
            for i, (name, args) in enumerate(step)
        }


def last_prompt(messages: list[ModelMessage]) -> str:
    """The text of the last user prompt among `messages`."""
    parts = [p for m in messages if m.kind == "request" for p in m.parts if p.part_kind == "user-prompt"]
    return str(parts[-1].content) if parts else ""
