"""The loop's guard: a hook before every model request inside a run.

One request ("refactor the module and fix all tests") can run dozens of tool calls and fill the
window inside a single turn, where the before-turn check never looks. A pydantic-ai capability's
`before_model_request` sees every request and calls the hook the turn was given (`hooked`; the
compaction layer's midturn.before_request), which may compact and say so (`Refit`); the run then
goes on from the compacted history. The loop itself knows nothing of compaction.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from agent.provider.prefix import priming, send_whole, summarizing
from agent.text.i18n import t

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

    from agent.state.app import AppState


@dataclass(frozen=True)
class Refit:
    """What a before-request hook did to the run's history: replaced `state.history` (the run goes on
    from it), or, with `once`, only this request is sent as these messages."""

    once: list[ModelMessage] | None = None


class BeforeRequest(Protocol):
    """Called before every model request of a turn with our copy of the run's messages: compaction
    (the layer above, midturn.before_request) may replace the history or shrink this one request."""

    async def __call__(self, state: AppState, messages: list[ModelMessage]) -> Refit | None: ...


# The hook of the turn in progress (`hooked`); None outside a turn and for a run given none.
_HOOK: ContextVar[BeforeRequest | None] = ContextVar("before_request", default=None)


@contextmanager
def hooked(hook: BeforeRequest | None) -> Iterator[None]:
    """Requests of the runs inside go through `hook` first (agent.turn.loop.run_turn)."""
    token = _HOOK.set(hook)
    try:
        yield
    finally:
        _HOOK.reset(token)


class _Guard:
    """Runs the turn's before-request hook (`hooked`) before every model request (a pydantic-ai
    capability)."""

    async def before_model_request(self, ctx: Any, request_context: Any) -> Any:
        state: AppState = ctx.deps
        if state is None or priming() or summarizing():
            return request_context  # not a turn's request: a priming run or a summary request
        # Our own (unmerged) copy of the history, with what the run added since (see agent.turn.loop).
        messages = state.scratch.turn_base + list(ctx.messages[state.scratch.turn_offset :])
        send_whole(False)
        hook = _HOOK.get()
        refit = await hook(state, messages) if hook is not None else None
        if refit is not None and refit.once is not None:  # the history could not be saved
            # The fitted messages are the whole request: a turn joining onto the last request would
            # otherwise have that request's messages put in front, and the request not fit at all.
            request_context.messages = refit.once
            send_whole(True)
            return request_context
        if refit is not None:
            self._replace(ctx, state, request_context)
            messages = list(state.history)
        # The history this request is built from: a compaction reuses the request (agent.provider.prefix).
        state.scratch.recorder.expect(messages)
        return request_context

    async def wrap_tool_execute(self, ctx: Any, *, call: Any, tool_def: Any, args: Any, handler: Any) -> Any:
        """A compaction's request carries the tools (so its prefix is the turn's), and a model may call
        one anyway (Ollama ignores tool_choice): such a call is answered, never run."""
        if summarizing():
            state = ctx.deps
            return t("compact_tools_off", state.lang if state is not None else "en")
        return await handler(args)

    def _replace(self, ctx: Any, state: AppState, request_context: Any) -> None:
        """The run goes on from the compacted history."""
        ctx.messages[:] = state.history
        request_context.messages = list(state.history)
        state.scratch.turn_base, state.scratch.turn_offset = list(state.history), len(ctx.messages)


def ContextGuard() -> Any:  # noqa: N802 - reads as a class where the agent is built
    from pydantic_ai.capabilities import AbstractCapability

    class _ContextGuard(_Guard, AbstractCapability):
        pass

    return _ContextGuard()
