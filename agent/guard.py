"""Compaction mid-turn: the watermark checked before every model request inside a run.

One request ("refactor the module and fix all tests") can run dozens of tool calls and fill the
window inside a single turn, where the before-turn check never looks. A pydantic-ai capability's
`before_model_request` sees every request; when the context is over the threshold it compacts,
keeping the current user request verbatim and the turn's newest tool exchanges (calls with their
results), and the run goes on.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from agent import overflow, tokens
from agent.budgets import for_state as budgets_for
from agent.context import history_tokens, threshold
from agent.events import Notice
from agent.i18n import t

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

    from agent.state import AppState

# A mid-turn compaction keeps the turn's newest tool exchanges verbatim, up to the plan's tail
# budget (agent.budgets: scaled to the window, so the rebuilt history fits under the threshold).


def _turn_prompt(messages: Sequence[ModelMessage]) -> int | None:
    """Index of the current user request, once the turn has had a response; else None (a run's
    first request, which the before-turn check covers, or a summary request)."""
    from pydantic_ai.messages import ModelResponse

    prompt_at = _last_prompt(messages)
    if prompt_at is None or not any(isinstance(m, ModelResponse) for m in messages[prompt_at:]):
        return None
    return prompt_at


def _mid_turn_tail(state: AppState, messages: Sequence[ModelMessage], prompt_at: int) -> int:
    """Where the kept tail starts: the turn's newest tool exchanges, after the user request."""
    from pydantic_ai.messages import ModelResponse

    budget = budgets_for(state).tail
    start = len(messages)
    for index in range(len(messages) - 1, prompt_at, -1):
        if isinstance(messages[index], ModelResponse):
            cost = tokens.count_messages(messages[index:start])
            if cost > budget and start < len(messages):
                break
            budget -= cost
            start = index
    return start


class _Guard:
    """Checks the watermark before every model request inside a run (a pydantic-ai capability)."""

    async def before_model_request(self, ctx: Any, request_context: Any) -> Any:
        from agent.prefix import priming, summarizing

        state: AppState = ctx.deps
        if state is None or priming() or summarizing():
            return request_context  # not a turn's request: a priming run or a summary request
        # Our own (unmerged) copy of the history, with what the run added since (see agent.loop).
        messages = state.turn_base + list(ctx.messages[state.turn_offset :])
        if await self._compacted(ctx, state, messages, request_context):
            messages = list(state.history)
        elif not state.compacting and overflow.over(state, messages):
            # Whatever switched automatic compaction off, a request over the window is made to fit.
            once = await overflow.make_fit(state, messages, _kept_for_fit(state, messages))
            if once is not None:  # the history could not be saved: fit this request only
                request_context.messages = once
                return request_context
            self._replace(ctx, state, request_context)
            messages = list(state.history)
        # The history this request is built from: a compaction reuses the request (agent.prefix).
        state.recorder.expect(messages)
        return request_context

    async def wrap_tool_execute(self, ctx: Any, *, call: Any, tool_def: Any, args: Any, handler: Any) -> Any:
        """A compaction's request carries the tools (so its prefix is the turn's), and a model may call
        one anyway (Ollama ignores tool_choice): such a call is answered, never run."""
        from agent.prefix import summarizing

        if summarizing():
            state = ctx.deps
            return t("compact_tools_off", state.lang if state is not None else "en")
        return await handler(args)

    async def _compacted(self, ctx: Any, state: AppState, messages: list[ModelMessage], request_context: Any) -> bool:
        from agent.background import maybe_start_background, take_mid_turn
        from compact import attempt, auto_allowed, run_compact

        if state.compacting or not auto_allowed(state):
            return False
        prompt_at = _turn_prompt(messages)
        if prompt_at is None:
            return False
        used = history_tokens(state, messages)
        limit = threshold(state)
        if used < limit:
            # A long turn past the lower mark: its summary is written while the turn goes on.
            maybe_start_background(state, used, messages)
            return False
        state.emit(Notice(t("mid_turn_compact", state.lang, used=used, threshold=limit)))
        keep = [messages[prompt_at]] + messages[_mid_turn_tail(state, messages, prompt_at) :]
        state.history = messages
        # A background summary of the turn's start is used when the turn since fits in the room of the
        # kept tail and the restored files (fewer files are restored then: compact.restore_room).
        plan = budgets_for(state)
        budget = plan.tail + plan.restore
        ok = await attempt(state, "mid-turn", lambda: take_mid_turn(state, budget, messages[prompt_at])
                           or run_compact(state, trigger="mid-turn", keep=keep))
        if ok:
            self._replace(ctx, state, request_context)
        return ok

    def _replace(self, ctx: Any, state: AppState, request_context: Any) -> None:
        """The run goes on from the compacted history."""
        ctx.messages[:] = state.history
        request_context.messages = list(state.history)
        state.turn_base, state.turn_offset = list(state.history), len(ctx.messages)


def _kept_for_fit(state: AppState, messages: list[ModelMessage]) -> list[ModelMessage]:
    """What a fitted history keeps verbatim: the current user request, and in the middle of a turn
    its newest tool exchanges (as a mid-turn compaction keeps)."""
    prompt_at = _last_prompt(messages)
    if prompt_at is None:
        return messages[-1:]
    if _turn_prompt(messages) is None:
        return messages[prompt_at:]
    return [messages[prompt_at]] + messages[_mid_turn_tail(state, messages, prompt_at) :]


def _last_prompt(messages: Sequence[ModelMessage]) -> int | None:
    """Index of the newest request carrying the user's words (the current turn's request)."""
    from pydantic_ai.messages import ModelRequest, UserPromptPart

    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if isinstance(message, ModelRequest) and any(isinstance(p, UserPromptPart) for p in message.parts):
            return index
    return None


def ContextGuard() -> Any:  # noqa: N802 - reads as a class where the agent is built
    from pydantic_ai.capabilities import AbstractCapability

    class _ContextGuard(_Guard, AbstractCapability):
        pass

    return _ContextGuard()
