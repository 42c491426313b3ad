"""Compaction without the wait: write the summary in the background before the threshold.

Past a lower mark (85% of the threshold) the summary request starts on a snapshot of the history
while the user keeps working. At the threshold it is swapped in (compact.take_background) if the
history still begins with that snapshot — messages added since follow it verbatim — otherwise the
compaction runs as usual.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from agent import debuglog
from agent.compaction.context import LOWER_MARK, lower_mark  # noqa: F401 - re-exported
from agent.events import Notice
from agent.provider.prefix import starts_with
from agent.state.app import Background
from agent.text.i18n import t

if TYPE_CHECKING:
    from collections.abc import Sequence

    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelMessage

    from agent.state.app import AppState

def maybe_start_background(
    state: AppState, agent: Agent[AppState, str], used: int, history: Sequence[ModelMessage] | None = None
) -> None:
    """Past the lower mark, start the summary of `history` (the history; mid-turn, the turn so far),
    asked of the turn's `agent` (agent.compaction.summarizer.request_summary)."""
    snapshot = list(state.history if history is None else history)
    if state.compaction.background is not None or used < lower_mark(state) or not snapshot:
        return
    from agent.compaction.policy import summary_expected

    if state.config.cheap_tier == "auto" and not summary_expected(state, used, snapshot):
        debuglog.log("background_skipped", reason="the cost model expects clearing")
        return
    if history is not None and _discarded_at_threshold(state, used, snapshot):
        debuglog.log("background_skipped", reason="the turn will outgrow the kept tail first")
        return
    from agent.compaction.summarizer import request_summary

    snapshot = _sent_start(state, snapshot)
    task = asyncio.get_running_loop().create_task(request_summary(state, agent, snapshot))
    # A failure is handled when the result is wanted; retrieve it so asyncio does not warn.
    task.add_done_callback(lambda t_: t_.cancelled() or t_.exception())
    state.compaction.background = Background(snapshot, task, used)
    state.stats.background_started += 1
    debuglog.log("background_started", used=used, messages=len(snapshot))
    state.emit(Notice(t("background_started", state.lang)))


def _sent_start(state: AppState, snapshot: list[ModelMessage]) -> list[ModelMessage]:
    """The start of `snapshot` the provider caches (agent.compaction.summarizer.sent_split) when much
    of it was never sent (a long answer, a big read): the summary request is then served from the
    cache, and the rest follows the summary verbatim when it is swapped in. The whole snapshot when
    that rest would fill more than half the room it has there (the turns after it need the rest).
    The fuzzer's 16k seeds: background summaries with 1-2k tokens never sent were 80-86% cached."""
    from agent.compaction.summarizer import sent_split, tail_budget
    from agent.tokens import count as tokens

    cut = sent_split(state, snapshot)
    if cut is None or tokens.count_messages(snapshot[cut:]) > tail_budget(state) // 2:
        return snapshot
    return snapshot[:cut]


def _discarded_at_threshold(state: AppState, used: int, snapshot: Sequence[ModelMessage]) -> bool:
    """Mid-turn, what the turn adds after the snapshot is kept verbatim after the summary, within
    the tail and restore budgets (take_mid_turn), or the summary is thrown away. By the threshold
    the turn has added at least the room left to it, and the step that crosses it is most likely
    as large as the turn's newest one (the results after its newest response): when either is over
    the budgets, the summary would be paid for and not used."""
    from agent.compaction.budgets import for_state as budgets_for
    from agent.compaction.context import threshold
    from agent.compaction.tiers import last_response
    from agent.tokens import count as tokens

    plan = budgets_for(state)
    step = tokens.count_messages(snapshot[last_response(snapshot) + 1 :])
    return max(threshold(state) - used, step) > plan.tail + plan.restore


def cancel_background(state: AppState) -> None:
    """On exit, /clear, /undo, a model change: the snapshot no longer matters."""
    background, state.compaction.background = state.compaction.background, None
    if background is not None:
        discarded(state, "cancelled")
        if not background.task.done():
            background.task.cancel()
            debuglog.log("background_cancelled")


def discarded(state: AppState, reason: str) -> None:
    """Count a background summary that was paid for and not used, by why (for /status and the bench)."""
    counts = state.stats.background_discarded
    counts[reason] = counts.get(reason, 0) + 1


def take(state: AppState) -> Background | None:
    """The background summary, taken to be swapped in (compact.take_background), while the history
    still begins with its snapshot; else it is given up and None returned."""
    background = state.compaction.background
    if background is None:
        return None
    state.compaction.background = None
    if not starts_with(state.history, background.snapshot):
        background.task.cancel()
        discarded(state, "history changed")
        debuglog.log("background_discarded", reason="history changed")
        return None
    return background


def take_mid_turn(
    state: AppState, tail_budget: int, prompt: ModelMessage
) -> tuple[Background, list[ModelMessage]] | None:
    """The same in the middle of a turn, where the messages since the snapshot are kept verbatim
    after the summary, and the user's current request (`prompt`) too when the snapshot has it (one
    started mid-turn): only when they are within `tail_budget` tokens, else the swapped-in history
    would not be small enough and the background summary is given up. With it, the messages that
    go before the ones since the snapshot (`prompt`, or none)."""
    from agent.tokens import count as tokens

    background = state.compaction.background
    if background is None or not starts_with(state.history, background.snapshot):
        taken = take(state)
        return None if taken is None else (taken, [])
    since = state.history[len(background.snapshot) :]
    if tokens.count_messages(since) > tail_budget:
        state.compaction.background = None
        background.task.cancel()
        discarded(state, "mid-turn, turn too long")
        debuglog.log("background_discarded", reason="mid-turn tail too long")
        return None
    lead = [prompt] if any(m is prompt for m in background.snapshot) else []
    state.compaction.background = None
    return background, lead
