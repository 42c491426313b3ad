"""Compaction inside a turn: the hook the loop calls before every model request (agent.guard).

The watermark is checked before each request of a run, not only before the user's turn: over the
threshold the turn's start is compacted (or its background summary swapped in), keeping the current
user request and the turn's newest tool exchanges verbatim; and whatever switched automatic
compaction off, a request over the window is made to fit (agent.overflow).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import compact
from agent import background, overflow, tokens
from agent.budgets import for_state as budgets_for
from agent.context import history_tokens, threshold
from agent.events import Notice
from agent.guard import Refit
from agent.i18n import t

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

    from agent.state import AppState


async def before_request(state: AppState, messages: list[ModelMessage]) -> Refit | None:
    """The history this request may go out with: None to send `messages` as they are."""
    if await _compacted(state, messages):
        return Refit()
    if state.compaction.running or not overflow.over(state, messages):
        return None
    # Whatever switched automatic compaction off, a request over the window is made to fit.
    keep = _kept_for_fit(state, messages)
    once = await overflow.make_fit(state, messages, keep,
                                   lambda: compact.run_compact(state, trigger="overflow", keep=keep))
    return Refit(once)


async def _compacted(state: AppState, messages: list[ModelMessage]) -> bool:
    if state.compaction.running or not compact.auto_allowed(state):
        return False
    prompt_at = _turn_prompt(messages)
    if prompt_at is None:
        return False
    used = history_tokens(state, messages)
    limit = threshold(state)
    if used < limit:
        # A long turn past the lower mark: its summary is written while the turn goes on.
        background.maybe_start_background(state, used, messages)
        return False
    state.emit(Notice(t("mid_turn_compact", state.lang, used=used, threshold=limit)))
    keep = [messages[prompt_at]] + messages[_mid_turn_tail(state, messages, prompt_at) :]
    state.history = messages
    # A background summary of the turn's start is used when the turn since fits in the room of the
    # kept tail and the restored files (fewer files are restored then: compact.restore_room).
    plan = budgets_for(state)
    budget = plan.tail + plan.restore
    return await compact.attempt(state, "mid-turn", lambda: compact.take_mid_turn(state, budget, messages[prompt_at])
                                 or compact.run_compact(state, trigger="mid-turn", keep=keep))


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
