"""The loop's guard: a hook before every model request inside a run.

One request ("refactor the module and fix all tests") can run dozens of tool calls and fill the
window inside a single turn, where the before-turn check never looks. A pydantic-ai capability's
`before_model_request` sees every request and calls the hook the turn was given (compact.before_request,
through agent.tools.capabilities.TurnGuard, a capability of that run alone), which may compact and
say so (`Refit`); the run then goes on from the compacted history. The loop knows nothing of compaction.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from agent.compaction import Refit
from agent.text.clean_text import clean_messages

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

    from agent.provider.prefix import RequestContext
    from agent.state.app import AppState
    from agent.turn.run_state import Turn


class BeforeRequest(Protocol):
    """Called before every model request of a turn with our copy of the run's messages: compaction
    (the layer above: compact.before_request) may replace the history or shrink this one request."""

    async def __call__(self, state: AppState, messages: list[ModelMessage]) -> Refit | None: ...


# Attempts of one request refitted after a refusal for length, before the error is the turn's.
MAX_REFITS = 2


class Guard:
    """Runs the turn's before-request hook before every model request of its run (given to that run
    only, as agent.tools.capabilities.TurnGuard)."""

    def __init__(self, hook: BeforeRequest | None, context: RequestContext, turn: Turn) -> None:
        self.hook, self.context, self.turn = hook, context, turn
        # A request refused as too long is refitted before its next attempt, at most MAX_REFITS times.
        self.refits, self.refit_pending = 0, False

    async def before_model_request(self, ctx: Any, request_context: Any) -> Any:
        self.refits, self.refit_pending = 0, False
        return await self._fit(ctx, ctx.deps, request_context)

    async def prepare_model_request(self, ctx: Any, request_context: Any) -> Any:
        """The attempt after a refusal for length (`on_model_request_error`) is fitted again, with
        the margin the refusal taught: never the same request twice."""
        if not self.refit_pending:
            return request_context
        self.refit_pending = False
        return await self._fit(ctx, ctx.deps, request_context)

    async def on_model_request_error(self, ctx: Any, *, request_context: Any, error: Exception) -> Any:
        from pydantic_ai.exceptions import RetryModelRequest

        from agent.compaction import history_tokens, refused
        from agent.provider.server_errors import is_too_long, server_window

        state: AppState = ctx.deps
        if not is_too_long(error) or self.refits >= MAX_REFITS:
            raise error  # the next capability's (agent.provider.retries), else the turn's
        named = server_window(error)
        if named is not None and named < state.config.context_window:
            # The server's window is smaller than ours: no refit to ours can fit it. One refusal, and
            # the error says which --context-window to set (agent/provider/error_text.py).
            raise error
        messages = self.turn.base + list(ctx.messages[self.turn.offset :])
        refused(state, history_tokens(state, messages), error)
        self.refits += 1
        self.refit_pending = True
        raise RetryModelRequest()

    async def _fit(self, ctx: Any, state: AppState, request_context: Any) -> Any:
        # Our own (unmerged) copy of the history, with what the run added since (agent.turn.run_state).
        messages = self.turn.base + list(ctx.messages[self.turn.offset :])
        # What the model and the tools sent may hold lone surrogates; what the session file has was
        # cleaned when it was saved or loaded (only the rest: O(new), not O(history), bench/overhead.py).
        clean_messages(messages[state.transcript.saved_prefix(messages) :])
        self.context.whole = False
        refit = await self.hook(state, messages) if self.hook is not None else None
        if refit is not None and refit.once is not None:  # the history could not be saved
            # The fitted messages are the whole request: a turn joining onto the last request would
            # otherwise have that request's messages put in front, and the request not fit at all.
            request_context.messages = refit.once
            self.context.whole = True
            return request_context
        if refit is not None:  # the run goes on from the compacted history
            ctx.messages[:] = state.history
            request_context.messages = list(state.history)
            self.turn.moved(state.history, len(ctx.messages))
            messages = list(state.history)
        # The history this request is built from: a compaction reuses the request (agent.provider.prefix).
        state.scratch.recorder.expect(messages)
        return request_context
