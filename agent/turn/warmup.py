"""The REPL's warm-up, off the start-up path: pydantic-ai, the agent and its fixed prefix, and for a
session resumed near the threshold the request its history makes (recorded, never sent)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from agent import debuglog
from agent.compaction import context_tokens, fixed_prefix_tokens, lower_mark
from agent.provider import prices
from agent.provider.prefix import PRIME_PROMPT, Primed, RequestContext, settings
from agent.turn.loop import get_agent, new_agent

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

    from agent.state.app import AppState


def warm_up(state: AppState) -> None:
    """Import pydantic-ai, build the agent and measure its fixed prefix, off the start-up path; for
    a session resumed near the threshold, also build the request its history makes (agent.provider.prefix)."""
    try:
        get_agent(state)
        fixed_prefix_tokens(state)
        prices.preload(state.config.model)
    except Exception as exc:  # noqa: BLE001 - the first turn builds it again and reports the error
        debuglog.log("warm_up_failed", error=repr(exc)[:300])
        return
    prime_if_near(state)


def prime_if_near(state: AppState) -> bool:
    """Record the request a resumed history makes, when a compaction is near (past the mark where
    the background summary starts). Runs in the warm-up's worker thread, on its own event loop and
    with its own agent: pydantic-ai binds an agent's lock to the first event loop that uses it."""
    if not state.history or state.scratch.recorder.last is not None or context_tokens(state) < lower_mark(state):
        return False
    try:
        asyncio.run(_prime(state, list(state.history)))
    except Exception as exc:  # noqa: BLE001 - only a speed-up: the compaction builds it all instead
        debuglog.log("prime_failed", error=repr(exc)[:300])
        return False
    primed = state.scratch.recorder.last is not None
    debuglog.log("primed" if primed else "prime_failed", messages=len(state.history))
    return primed


async def _prime(state: AppState, history: list[ModelMessage]) -> None:
    agent = new_agent(state)
    try:
        state.scratch.recorder.expect(history)
        primed = settings(RequestContext(recorder=state.scratch.recorder, priming=True))
        async with agent.iter(PRIME_PROMPT, message_history=history, deps=state, model_settings=primed) as run:
            async for _node in run:
                pass
    except Primed:
        pass
    finally:
        await agent.model.client.close()
