"""Compaction inside a turn: the hook the loop calls before every model request (agent.turn.guard).

The watermark is checked before each request of a run, not only before the user's turn: over the
threshold the turn's start is compacted (or its background summary swapped in), keeping the current
user request and the turn's newest tool exchanges verbatim; and whatever switched automatic
compaction off, a request over the window is made to fit (agent.compaction.overflow).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import compact
from agent.compaction import background, margin, overflow
from agent.compaction.budgets import for_state as budgets_for
from agent.compaction.context import history_tokens
from agent.compaction.rebuild import kept_for_fit, mid_turn_keep, turn_prompt
from agent.events import Notice
from agent.text.i18n import t
from agent.turn.guard import Refit
from agent.turn.loop import get_agent

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

    from agent.state.app import AppState


async def before_request(state: AppState, messages: list[ModelMessage]) -> Refit | None:
    """The history this request may go out with: None to send `messages` as they are."""
    used = history_tokens(state, messages)  # once a request: both checks below read it
    if await _compacted(state, messages, used):
        return Refit()
    if state.compaction.running or margin.fits(state, used, overflow.ceiling(state)):
        return None
    # Whatever switched automatic compaction off, a request over the window is made to fit.
    keep = kept_for_fit(messages, budgets_for(state).tail)
    once = await overflow.make_fit(state, messages, keep,
                                   lambda: compact.run_compact(state, trigger="overflow", keep=keep))
    return Refit(once)


async def _compacted(state: AppState, messages: list[ModelMessage], used: int) -> bool:
    if state.compaction.running or not compact.auto_allowed(state):
        return False
    prompt_at = turn_prompt(messages)
    if prompt_at is None:
        return False
    limit = compact.auto_limit(state)
    if used < limit:
        # A long turn past the lower mark: its summary is written while the turn goes on.
        background.maybe_start_background(state, get_agent(state), used, messages)
        return False
    state.emit(Notice(t("mid_turn_compact", state.lang, used=used, threshold=limit)))
    plan = budgets_for(state)
    # The turn's newest tool exchanges are kept verbatim, up to the plan's tail budget (scaled to the
    # window, so the rebuilt history fits under the threshold).
    keep = mid_turn_keep(messages, prompt_at, plan.tail)
    state.transcript.update(messages)
    # A background summary of the turn's start is used when the turn since fits in the room of the
    # kept tail and the restored files (fewer files are restored then: compact.restore_room).
    budget = plan.tail + plan.restore
    prompt = messages[prompt_at]
    return await compact.attempt(state, "mid-turn", lambda: compact.take_mid_turn(state, budget, prompt, keep)
                                 or compact.run_compact(state, trigger="mid-turn", keep=keep))
