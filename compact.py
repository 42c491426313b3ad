"""Context compaction, the design's entry point: the three callers of the one compaction
(agent/compaction/flow.py: plan, one await, commit). Each gives it the turn's own agent, so that
the summary request starts with the turn's prefix, byte for byte, and the compaction never imports
the turn.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from agent import compaction
from agent.turn.loop import get_agent

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

    from agent.events import CompactionFinished
    from agent.state.app import AppState


async def auto_compact_if_needed(state: AppState, pending: Sequence[ModelMessage] = ()) -> None:
    """Before the user's turn: over the threshold, compact first. A failure never blocks the turn."""
    await compaction.before_turn(state, get_agent(state), pending)


async def before_request(state: AppState, messages: list[ModelMessage]) -> compaction.Refit | None:
    """Before every model request of a turn (agent.turn.guard): compaction mid-turn, the fit to the window."""
    return await compaction.before_request(state, get_agent(state), messages)


async def run_compact(
    state: AppState,
    custom_instructions: str = "",
    *,
    trigger: str = "manual",
    keep: Sequence[ModelMessage] = (),
    review: compaction.Review | None = None,
) -> CompactionFinished:
    """/compact [instructions], /compact preview (`review` asks the user before the swap), and a
    compaction a command asks for (a model switch)."""
    return await compaction.compact(
        state, get_agent(state), trigger, keep=keep, extra=custom_instructions, review=review
    )
