"""Compaction without the wait: the summary written in the background, before the threshold.

Past a lower mark (85% of the threshold) the summary request starts on a snapshot of the history
while the user keeps working; at the threshold it is swapped in (`take`) if the history still
begins with that snapshot, the messages added since following it verbatim; else the compaction runs
as usual. One is started only where the cost policy expects a summary: where clearing will be
chosen, one written ahead would be paid for and thrown away.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING

import agent.compaction.policy as policy
from agent import debuglog
from agent.compaction.rebuild import cheap_tier, cheap_tier_enough, last_response
from agent.compaction.request import cached, request_summary, sent_split
from agent.compaction.summary import compaction_prompt, previous_summary
from agent.compaction.watermark import figures, lower_mark
from agent.events import Notice
from agent.provider.prefix import starts_with
from agent.state.app import Background
from agent.text.i18n import t
from agent.tokens import count as tokens

if TYPE_CHECKING:
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelMessage

    from agent.state.app import AppState


def maybe_start_background(
    state: AppState, agent: Agent[AppState, str], used: int, history: Sequence[ModelMessage] | None = None
) -> None:
    """Past the lower mark, start the summary of `history` (the history; mid-turn, the turn so far),
    asked of the turn's `agent`."""
    snapshot = list(state.history if history is None else history)
    if state.compaction.background is not None or used < lower_mark(state) or not snapshot:
        return
    figs = figures(state)
    if figs.mode == "auto":
        cleared, saved = cheap_tier(snapshot, figs.threshold)
        after = figs.count(cleared)
        if (
            cheap_tier_enough(saved, used, after, figs.threshold)
            and policy.choose(figs, snapshot, cleared, used, after, True).action == "clear"
        ):
            debuglog.log("background_skipped", reason="the cost model expects clearing")
            return
    room = figs.budgets.tail + figs.budgets.restore
    # Mid-turn, what the turn adds after the snapshot must fit that room, or the summary is thrown
    # away: by the threshold the turn has added at least the room left to it, and the step that
    # crosses it is most likely as large as its newest one.
    step = tokens.count_messages(snapshot[last_response(snapshot) + 1 :])
    if history is not None and max(figs.threshold - used, step) > room:
        debuglog.log("background_skipped", reason="the turn will outgrow the kept tail first")
        return
    incremental = previous_summary(snapshot) is not None
    prompt = compaction_prompt(state.lang, incremental=incremental, standing=state.scratch.standing)
    # Much of the snapshot never sent (a long answer, a big read): only the start the provider
    # caches is summarized, the rest follows it verbatim, unless the rest would fill more than half
    # the room it has there.
    cut = sent_split(snapshot, figs, cached(state.scratch.recorder, snapshot), prompt)
    if cut is not None and tokens.count_messages(snapshot[cut:]) <= room // 2:
        snapshot = snapshot[:cut]
    task = asyncio.get_running_loop().create_task(request_summary(state, agent, snapshot, prompt))
    # A failure is handled when the result is wanted; retrieve it so asyncio does not warn.
    task.add_done_callback(lambda done: done.cancelled() or done.exception())
    state.compaction.background = Background(snapshot, task, used)
    state.stats.background_started += 1
    debuglog.log("background_started", used=used, messages=len(snapshot))
    state.emit(Notice(t("background_started", state.lang)))


def take(
    state: AppState, room: int | None = None, prompt: ModelMessage | None = None
) -> tuple[Background, list[ModelMessage]] | None:
    """The background summary, taken to be swapped in while the history still begins with its
    snapshot, and the messages that go before those added since; else it is given up, None. In the
    middle of a turn (`room`), the messages since must fit `room` tokens, and the user's current
    request (`prompt`) goes first when the snapshot holds it (one started mid-turn)."""
    background, state.compaction.background = state.compaction.background, None
    if background is None:
        return None
    if not starts_with(state.history, background.snapshot):
        return _given_up(background, state, "history changed")
    if room is not None and tokens.count_messages(state.history[len(background.snapshot) :]) > room:
        return _given_up(background, state, "mid-turn, turn too long")
    return background, [prompt] if prompt is not None and any(m is prompt for m in background.snapshot) else []


def _given_up(background: Background, state: AppState, reason: str) -> None:
    background.task.cancel()
    discarded(state, reason)
    debuglog.log("background_discarded", reason=reason)


def cancel_background(state: AppState) -> None:
    """On exit, /clear, /undo, a model change: the snapshot no longer matters."""
    background, state.compaction.background = state.compaction.background, None
    if background is not None:
        discarded(state, "cancelled")
        if not background.task.done():
            background.task.cancel()
            debuglog.log("background_cancelled")


def discarded(state: AppState, reason: str, error: BaseException | None = None) -> None:
    """Count a background summary paid for and not used, by why (/status, the bench)."""
    state.stats.background_discarded[reason] = state.stats.background_discarded.get(reason, 0) + 1
    if error is not None:
        debuglog.log("background_failed", error=repr(error)[:300])
