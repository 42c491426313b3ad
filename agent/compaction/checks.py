"""When compaction runs by itself: the check before the user's turn, the check before every model
request inside one, and what holds it back.

Over the threshold before a turn, the history is compacted first (or its background summary swapped
in); below it, past the lower mark, the summary is started in the background. Inside a turn (one
request can run dozens of tool calls) the same check runs before each request, keeping the user's
request and the turn's newest exchanges verbatim; and whatever switched automatic compaction off, a
request over the window is made to fit (agent.compaction.fit). A failed automatic compaction never
blocks the turn: three in a row switch it off with one line saying why; compactions that keep coming
back (thrashing) raise the target, then pause, and re-arm after a few turns.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import agent.compaction.background as background
import agent.compaction.flow as flow
import agent.compaction.watermark as watermark
from agent import debuglog
from agent.compaction.fit import make_fit
from agent.compaction.rebuild import kept_for_fit, mid_turn_keep, turn_prompt
from agent.compaction.watermark import ceiling, context_tokens, figures, history_tokens, threshold
from agent.errors import CompactError, NothingToCompact
from agent.events import CompactionFailed, Notice
from agent.text.i18n import t

if TYPE_CHECKING:
    from collections.abc import Sequence

    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelMessage

    from agent.state.app import AppState

MAX_COMPACT_FAILURES = 3
# Two automatic compactions within THRASH_TURNS turns, THRASH_STREAK times in a row, are thrashing:
# for REARM_TURNS turns the target is raised, then automatic compaction pauses; then it re-arms.
THRASH_TURNS, THRASH_STREAK, REARM_TURNS = 2, 2, 5


@dataclass(frozen=True)
class Refit:
    """What the check before a request did to the run's history: replaced `state.history` (the run
    goes on from it), or, with `once`, only this request is sent as these messages."""

    once: list[ModelMessage] | None = None


def auto_limit(state: AppState, rearm: bool = True) -> int | None:
    """Where automatic compaction fires: the threshold, or while the thrash guard backs off, halfway
    from it to the largest request; None while it is off (--no-auto-compact, the failure breaker,
    the thrash guard's pause). The thrash guard re-arms here when its turns are up."""
    comp = state.compaction
    if rearm and comp.rearm_at is not None and state.turns >= comp.rearm_at:
        comp.backoff, comp.rearm_at, comp.thrash_streak = 0, None, 0
        debuglog.log("thrash_rearmed", turn=state.turns)
        state.emit(Notice(t("thrash_rearmed", state.lang)))
    if rearm and (not state.config.auto_compact or comp.off_reason is not None or comp.backoff >= 2):
        return None
    limit = threshold(state)
    return limit + max(0, ceiling(state) - limit) // 2 if comp.backoff else limit


async def before_turn(state: AppState, agent: Agent[AppState, str], pending: Sequence[ModelMessage] = ()) -> None:
    """Over the threshold, compact first; `pending`: the user's message and its attachments."""
    if (limit := auto_limit(state)) is None:
        return
    used = context_tokens(state, pending)
    if used < limit:
        background.maybe_start_background(state, agent, used)
        return
    state.emit(Notice(t("auto_compact", state.lang, used=used, threshold=limit)))
    await _attempt(state, agent, "auto", taken=background.take(state))


async def before_request(state: AppState, agent: Agent[AppState, str], messages: list[ModelMessage]) -> Refit | None:
    """The history this request of a turn may go out with: None to send `messages` as they are."""
    used = history_tokens(state, messages)  # once a request: both checks read it
    running = state.compaction.running
    limit = None if running else auto_limit(state)
    prompt_at = turn_prompt(messages) if limit is not None else None
    if prompt_at is not None and used < limit:
        # A long turn past the lower mark: its summary is written while the turn goes on.
        background.maybe_start_background(state, agent, used, messages)
    elif prompt_at is not None:
        state.emit(Notice(t("mid_turn_compact", state.lang, used=used, threshold=limit)))
        plan = figures(state).budgets
        # The turn's newest exchanges are kept within the tail budget (scaled to the window, so the
        # rebuilt history fits under the threshold); a background summary of the turn's start is
        # used when the turn since fits the room of the tail and the restored files.
        keep = mid_turn_keep(messages, prompt_at, plan.tail)
        state.transcript.update(messages)
        taken = background.take(state, plan.tail + plan.restore, messages[prompt_at])
        if await _attempt(state, agent, "mid-turn", keep=keep, taken=taken):
            return Refit()
    if running or watermark.fits(state, used, ceiling(state)):
        return None
    keep = kept_for_fit(messages, figures(state).budgets.tail)
    return Refit(await make_fit(state, messages, keep, lambda: flow.compact(state, agent, "overflow", keep=keep)))


async def _attempt(state: AppState, agent: Agent[AppState, str], trigger: str, **how: Any) -> bool:
    """An automatic compaction; a failure is counted and told, never raised."""
    comp = state.compaction
    try:
        await flow.compact(state, agent, trigger, **how)
    except NothingToCompact:
        return False
    except Exception as exc:  # noqa: BLE001 - an automatic compaction must never break the turn
        from agent.provider.error_text import describe_error

        failed(state, trigger, str(exc) if isinstance(exc, CompactError) else describe_error(exc, state.config))
        return False
    comp.failures = 0
    check_thrashing(state)
    return True


def check_thrashing(state: AppState) -> None:
    comp = state.compaction
    comp.thrash_streak = (
        comp.thrash_streak + 1 if comp.auto_turns and state.turns - comp.auto_turns[-1] <= THRASH_TURNS else 0
    )
    comp.auto_turns.append(state.turns)
    if comp.thrash_streak >= THRASH_STREAK:
        comp.backoff, comp.rearm_at, comp.thrash_streak = min(2, comp.backoff + 1), state.turns + REARM_TURNS, 0
        debuglog.log("thrashing", turns=comp.auto_turns[-3:], backoff=comp.backoff, rearm_at=comp.rearm_at)
        key = "thrash_raised" if comp.backoff == 1 else "thrash_paused"
        key += "_print" if key == "thrash_paused" and state.config.one_shot else ""
        limit = auto_limit(state, rearm=False)
        state.emit(Notice(t(key, state.lang, limit=limit, turn=comp.rearm_at, n=REARM_TURNS), level="warn"))


def failed(state: AppState, trigger: str, reason: str) -> None:
    state.compaction.failures += 1
    state.stats.compaction_failures += 1
    debuglog.log("compact_failed", trigger=trigger, reason=reason, failures=state.compaction.failures)
    state.emit(CompactionFailed(trigger, reason))
    if state.compaction.failures >= MAX_COMPACT_FAILURES and state.compaction.off_reason is None:
        state.compaction.off_reason = "failures"
        key = "auto_compact_off_print" if state.config.one_shot else "auto_compact_off"
        state.emit(Notice(t(key, state.lang, n=state.compaction.failures), level="warn"))


def backoff_text(state: AppState) -> str:
    """What the thrash guard is doing now, for /status ("" when nothing)."""
    comp = state.compaction
    if not comp.backoff or comp.rearm_at is None:
        return ""
    key = "status_thrash_raised" if comp.backoff == 1 else "status_thrash_paused"
    return t(key, state.lang, limit=auto_limit(state, rearm=False), turn=comp.rearm_at)
