"""Compaction mid-turn: the watermark checked before every model request inside a run.

One request ("refactor the module and fix all tests") can run dozens of tool calls and fill the
window inside a single turn, where the before-turn check never looks. A pydantic-ai capability's
`before_model_request` sees every request; when the context is over the threshold it compacts,
keeping the current user request verbatim and the turn's newest tool exchanges (calls with their
results), and the run goes on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent import overflow
from agent.budgets import for_state as budgets_for
from agent.context import history_tokens, threshold
from agent.events import Notice
from agent.i18n import t
from agent.rebuild import kept_for_fit, mid_turn_keep, turn_prompt

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

    from agent.state import AppState

# A mid-turn compaction keeps the turn's newest tool exchanges verbatim, up to the plan's tail
# budget (agent.budgets: scaled to the window, so the rebuilt history fits under the threshold).


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
            once = await overflow.make_fit(state, messages, kept_for_fit(messages, budgets_for(state).tail))
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
        prompt_at = turn_prompt(messages)
        if prompt_at is None:
            return False
        used = history_tokens(state, messages)
        limit = threshold(state)
        if used < limit:
            # A long turn past the lower mark: its summary is written while the turn goes on.
            maybe_start_background(state, used, messages)
            return False
        state.emit(Notice(t("mid_turn_compact", state.lang, used=used, threshold=limit)))
        keep = mid_turn_keep(messages, prompt_at, budgets_for(state).tail)
        state.transcript.update(messages)
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


def ContextGuard() -> Any:  # noqa: N802 - reads as a class where the agent is built
    from pydantic_ai.capabilities import AbstractCapability

    class _ContextGuard(_Guard, AbstractCapability):
        pass

    return _ContextGuard()
