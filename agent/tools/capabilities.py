"""The agent's pydantic-ai capabilities, real classes in one module.

pydantic-ai takes about a second to import, and the REPL draws its prompt before it loads: this
module imports it at its top and is itself imported only where a run starts (the turn, a summary
request, a sub-agent). What each capability decides lives beside what it serves: when to retry
(agent.provider.retries), the tool gate (agent.tools.tool_gate), the turn's guard (agent.turn.guard,
given to TurnGuard by the run, since the turn sits above this layer).
"""

from __future__ import annotations

import asyncio
from typing import Any

from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.exceptions import ModelHTTPError, RetryModelRequest

from agent.events import Retrying
from agent.provider import retries
from agent.text.i18n import t
from agent.tools.tool_gate import Gate


class Retries(AbstractCapability):
    """Retrying a failed model request and saying so before the wait (the client itself makes one
    attempt); at most `attempts` retries (CODING_AGENT_MAX_RETRIES, else 3)."""

    def __init__(self, attempts: int | None = None) -> None:
        self.attempts = retries.max_retries() if attempts is None else attempts

    async def on_model_request_error(self, ctx: Any, *, request_context: Any, error: Exception) -> Any:
        attempt = request_context.attempt  # 1 for the first
        if attempt > self.attempts or not retries.retryable(error):
            raise error
        wait = retries.wait_before(attempt, error.retry_after)  # type: ignore[attr-defined]
        emit = getattr(ctx.deps, "emit", None)
        if emit is not None:
            status = error.status_code if isinstance(error, ModelHTTPError) else None
            emit(Retrying(attempt + 1, self.attempts + 1, wait, status))
        await asyncio.sleep(wait)
        raise RetryModelRequest()


class ToolGate(Gate, AbstractCapability):
    """Every tool call of a turn or a sub-agent passes the hooks and the permission rules."""


class TurnGuard(AbstractCapability):
    """A turn's guard (agent.turn.guard.Guard) before each model request of that run alone."""

    def __init__(self, guard: Any) -> None:
        self.guard = guard

    async def before_model_request(self, ctx: Any, request_context: Any) -> Any:
        return await self.guard.before_model_request(ctx, request_context)

    async def prepare_model_request(self, ctx: Any, request_context: Any) -> Any:
        return await self.guard.prepare_model_request(ctx, request_context)

    async def on_model_request_error(self, ctx: Any, *, request_context: Any, error: Exception) -> Any:
        return await self.guard.on_model_request_error(ctx, request_context=request_context, error=error)


class ToolsOff(AbstractCapability):
    """A summary request carries the tools (so its prefix is the turn's), and a model may call one
    anyway (Ollama ignores tool_choice): such a call is answered, never run."""

    async def wrap_tool_execute(self, ctx: Any, *, call: Any, tool_def: Any, args: Any, handler: Any) -> Any:
        return t("compact_tools_off", ctx.deps.lang)
