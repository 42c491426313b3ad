"""When automatic compaction may run: the failure breaker (three failures in a row switch it off,
with one line saying why) and the thrash guard, which backs off (a higher target, then a pause) and
re-arms after a few turns instead of switching compaction off for the rest of the session."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent import debuglog
from agent.compaction import overflow
from agent.compaction.context import threshold
from agent.events import CompactionFailed, Notice
from agent.text.i18n import t

if TYPE_CHECKING:
    from agent.state.app import AppState

MAX_COMPACT_FAILURES = 3
# Two automatic compactions within this many turns count as thrashing.
THRASH_TURNS = 2
THRASH_STREAK = 2
# Thrashing backs off for this many turns (first the target is raised, then automatic compaction
# pauses), then the guard re-arms: a session that thrashed once is not left without compaction.
REARM_TURNS = 5


def auto_allowed(state: AppState) -> bool:
    _rearm(state)
    return state.config.auto_compact and state.compaction.off_reason is None and state.compaction.backoff < 2


def auto_limit(state: AppState) -> int:
    """Where automatic compaction fires: the threshold, or while the thrash guard backs off, halfway
    from it to the largest request (more work between compactions, each one still cached)."""
    limit = threshold(state)
    if state.compaction.backoff:
        limit += max(0, overflow.ceiling(state) - limit) // 2
    return limit


def _rearm(state: AppState) -> None:
    comp = state.compaction
    if comp.rearm_at is not None and state.turns >= comp.rearm_at:
        comp.backoff, comp.rearm_at, comp.thrash_streak = 0, None, 0
        debuglog.log("thrash_rearmed", turn=state.turns)
        state.emit(Notice(t("thrash_rearmed", state.lang)))


def failed(state: AppState, trigger: str, reason: str) -> None:
    state.compaction.failures += 1
    state.stats.compaction_failures += 1
    debuglog.log("compact_failed", trigger=trigger, reason=reason, failures=state.compaction.failures)
    state.emit(CompactionFailed(trigger, reason))
    if state.compaction.failures >= MAX_COMPACT_FAILURES and state.compaction.off_reason is None:
        state.compaction.off_reason = "failures"
        key = "auto_compact_off_print" if state.config.one_shot else "auto_compact_off"
        state.emit(Notice(t(key, state.lang, n=state.compaction.failures), level="warn"))


def check_thrashing(state: AppState) -> None:
    comp = state.compaction
    turns = comp.auto_turns
    if turns and state.turns - turns[-1] <= THRASH_TURNS:
        comp.thrash_streak += 1
    else:
        comp.thrash_streak = 0
    turns.append(state.turns)
    if comp.thrash_streak >= THRASH_STREAK:
        # Back off, never off for good: first a higher target, then a pause; re-armed either way.
        comp.backoff, comp.rearm_at, comp.thrash_streak = min(2, comp.backoff + 1), state.turns + REARM_TURNS, 0
        debuglog.log("thrashing", turns=turns[-3:], backoff=comp.backoff, rearm_at=comp.rearm_at)
        key = "thrash_raised" if comp.backoff == 1 else "thrash_paused"
        key += "_print" if key == "thrash_paused" and state.config.one_shot else ""
        state.emit(Notice(t(key, state.lang, limit=auto_limit(state), turn=comp.rearm_at, n=REARM_TURNS),
                          level="warn"))


def backoff_text(state: AppState) -> str:
    """What the thrash guard is doing now, for /status ("" when nothing)."""
    comp = state.compaction
    if not comp.backoff or comp.rearm_at is None:
        return ""
    key = "status_thrash_raised" if comp.backoff == 1 else "status_thrash_paused"
    return t(key, state.lang, limit=auto_limit(state), turn=comp.rearm_at)
