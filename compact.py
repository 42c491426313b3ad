"""Context compaction, the driver: decide (the cheap tier or a summary), call the model
(agent.compaction.summarizer), then commit through the transcript (agent.state.transcript): the full session is
archived, the rebuilt history replaces it, the compaction state is set and the event emitted. What
to clear, keep and restore, and the new history itself, are the pure core (agent.compaction.rebuild,
agent.compaction.tiers, agent.compaction.summary).

Everything before the rewrite can fail or be cancelled and leaves history, session file,
ReadFileState and checkpoints exactly as they were: the only await is the LLM call, and the commit
is synchronous.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import session
from agent import debuglog
from agent.compaction import background as bg
from agent.compaction import policy, undo
from agent.compaction.budgets import for_state as budgets_for
from agent.compaction.budgets import restore_room
from agent.compaction.context import context_tokens, fixed_prefix_tokens, history_tokens, threshold
from agent.compaction.rebuild import (
    RESTORE_MAX_FILES,
    cheap_tier,
    cheap_tier_enough,
    checkpoints_cut,
    choose_restored,
    compacted_history,
    first_kept,
    refuse_result,
    summary_parts,
)
from agent.compaction.summarizer import request_summary, sent_split
from agent.compaction.summary import SummaryParts, build_summary_message, is_summary
from agent.compaction.undo import UndoPlan
from agent.errors import CompactError, NothingToCompact  # noqa: F401 - re-exported
from agent.events import CompactionFailed, CompactionFinished, CompactionStarted, Notice
from agent.state.file_state import ReadFileState
from agent.text.i18n import t
from agent.tokens import count as tokens
from agent.turn.loop import get_agent

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

    from agent.state.app import AppState

MAX_COMPACT_FAILURES = 3
# Two automatic compactions within this many turns count as thrashing.
THRASH_TURNS = 2
THRASH_STREAK = 2


@dataclass
class CompactResult:
    tokens_before: int
    tokens_after: int
    archive: str
    tier: str
    left_out: int = 0


def restore_file_messages(
    old_state: ReadFileState, new_state: ReadFileState, state: AppState, budget: int | None = None
) -> list:
    """Re-read the newest-read files (agent.compaction.rebuild.choose_restored: at most 5, within the budget)
    into the new history, through the same mechanism as @-mentions. A file that is gone is skipped."""
    from agent.tools.builtin import ToolError, read_for_model
    from agent.tools.mentions import read_messages

    def readable() -> Any:
        for path in reversed(old_state.paths()):
            read = ReadFileState()
            try:
                content = read_for_model(str(path), state.workspace, read)
            except ToolError:
                continue
            # The very text that goes into the history: the recount after finds its count (tokens).
            yield (str(path), content, read), tokens.count_text(content)

    picked = choose_restored(readable(), budgets_for(state).restore if budget is None else budget, RESTORE_MAX_FILES)
    for _path, _content, read in picked:
        new_state.merge(read)
    return read_messages([(path, content) for path, content, _read in picked])


def _check_archive_writable(state: AppState) -> None:
    folder = session.archive_dir(state.workspace)
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        if not os.access(folder, os.W_OK):
            raise PermissionError("permission denied")
    except OSError as exc:
        raise CompactError(t("compact_no_archive", state.lang, path=folder, error=exc)) from exc


async def run_compact(
    state: AppState, custom_instructions: str = "", *, trigger: str = "manual", keep: Sequence[ModelMessage] = ()
) -> CompactResult:
    """Compact `state.history`. `keep`: messages kept verbatim after the summary (mid-turn)."""
    history = list(state.history)
    if not history or all(is_summary(m) for m in history):
        raise NothingToCompact(t("nothing_to_compact", state.lang))
    before = context_tokens(state)
    _check_archive_writable(state)
    state.emit(CompactionStarted(trigger, before, threshold(state)))

    if trigger != "manual":
        cleared, saved = cheap_tier(history, threshold(state))
        after = history_tokens(state, cleared)
        enough = cheap_tier_enough(saved, before, after, threshold(state))
        if policy.decide(state, history, cleared, before, after, enough, keep).action == "clear":
            debuglog.log("cheap_tier", before=before, after=after, saved=saved)
            state.stats.cheap_tier_saved += saved
            state.stats.cheap_tier_spared_calls += 1
            return _commit(state, cleared, before, trigger, tier="cheap", summary=None)

    state.compaction.running = True
    try:
        tail = list(keep)
        cut = sent_split(state, history, custom_instructions)
        if cut is not None:
            # Only the start the last request sent is summarized (cached); the rest follows verbatim,
            # after what `keep` holds from before the cut (mid-turn: the user's request).
            at = {id(m): i for i, m in enumerate(history)}
            tail = [m for m in keep if at.get(id(m), cut) < cut] + history[cut:]
            debuglog.log("compact_sent_part", summarized=cut, kept=len(history) - cut)
        summarized = history if cut is None else history[:cut]
        reply = await request_summary(state, get_agent(state), summarized, custom_instructions)
    finally:
        state.compaction.running = False
    return _finish_summary(state, history, reply.summary, reply.left_out, before, trigger, tail)


def _finish_summary(
    state: AppState,
    history: list[ModelMessage],
    summary: str,
    left_out: int,
    before: int,
    trigger: str,
    tail: list[ModelMessage],
) -> CompactResult:
    parts = summary_parts(history, tail, summary, left_out, budgets_for(state).user_messages, state.lang)
    return _commit(state, None, before, trigger, tier="summary", summary=parts, tail=tail)


def finish_background(
    state: AppState, snapshot: list[ModelMessage], reply: Any, lead: Sequence[ModelMessage] = ()
) -> CompactResult:
    """Swap in a summary written in the background; messages added since follow it verbatim, after
    `lead` (mid-turn, the user's current request when the snapshot has it)."""
    before = context_tokens(state)
    _check_archive_writable(state)
    tail = list(lead) + state.history[len(snapshot) :]
    history = list(state.history)
    return _finish_summary(state, history, reply.summary, reply.left_out, before, "background", tail)


def take_background(state: AppState) -> Coroutine[None, None, CompactResult] | None:
    """A coroutine that swaps the background summary in, or None to compact as usual."""
    background = bg.take(state)
    return None if background is None else _swap(state, background)


def take_mid_turn(
    state: AppState, tail_budget: int, prompt: ModelMessage
) -> Coroutine[None, None, CompactResult] | None:
    """The same in the middle of a turn (agent.compaction.background.take_mid_turn says when it may be used)."""
    taken = bg.take_mid_turn(state, tail_budget, prompt)
    return None if taken is None else _swap(state, *taken)


async def _swap(state: AppState, background: bg.Background, lead: Sequence[ModelMessage] = ()) -> CompactResult:
    try:
        # Usually done by now; if not, the rest of the wait is shorter than a fresh request.
        reply = await background.task
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # noqa: BLE001 - a failed background summary falls back to the usual path
        bg.discarded(state, "failed")
        debuglog.log("background_failed", error=repr(exc)[:300])
        return await run_compact(state, trigger="auto")
    try:
        result = finish_background(state, background.snapshot, reply, lead)
    except Exception:
        bg.discarded(state, "not smaller")
        raise
    state.stats.background_used += 1
    return result


def _commit(
    state: AppState,
    rebuilt: list[ModelMessage] | None,
    before: int,
    trigger: str,
    *,
    tier: str,
    summary: SummaryParts | None,
    tail: Sequence[ModelMessage] = (),
) -> CompactResult:
    """Archive, rebuild, rewrite, swap, through the transcript. Synchronous on purpose: nothing can
    interleave. A result that is not smaller is refused with history and file as they were."""
    new_read_state = state.read_file_state if summary is None else ReadFileState()
    measured: list[int] = []

    def build(archive: Path) -> list[ModelMessage]:
        history = rebuilt
        if summary is not None:
            summary.archives.append(str(archive))
            head = build_summary_message(summary, state.lang, state.workspace)
            room = restore_room(budgets_for(state), fixed_prefix_tokens(state), tokens.count_messages([head, *tail]))
            restored = restore_file_messages(state.read_file_state, new_read_state, state, room)
            history = compacted_history(head, restored, tail)
        assert history is not None
        after = history_tokens(state, history)
        refusal = refuse_result(before, after, threshold(state))
        if refusal is not None:
            raise CompactError(t(refusal, state.lang, before=before, after=after, threshold=threshold(state)))
        measured.append(after)
        return history

    # The cheap tier removes no message, so checkpoints still point at the right places.
    fh = state.file_history
    dropped = checkpoints_cut(fh.checkpoints, first_kept(state.history, tail)) if summary is not None else []
    archive = state.transcript.replace(build, dropped=dropped)
    # Only now, with the new file safely on disk, does the rest of the state change.
    if dropped:
        fh.drop_from(dropped[0])
    after = measured[-1]
    state.scratch.recorder.forget()  # its messages are the old history's: free them
    state.read_file_state = new_read_state
    state.stats.compactions += 1
    state.stats.last_archive = str(archive)
    if tier == "summary":
        state.stats.summary_tier_saved += before - after
    left_out = summary.left_out if summary else 0
    debuglog.log("compacted", trigger=trigger, tier=tier, before=before, after=after, archive=str(archive))
    text = summary.summary if summary else ""
    state.emit(CompactionFinished(trigger, before, after, str(archive), tier=tier, left_out_messages=left_out,
                                  summary=text))
    return CompactResult(before, after, str(archive), tier, left_out)


def plan_undo(state: AppState) -> UndoPlan:
    """What "/compact undo" would restore (agent.compaction.undo), worked out before asking."""
    return undo.plan_undo(state.transcript, state.lang)


def undo_compaction(state: AppState, plan: UndoPlan | None = None) -> tuple[str, str, int]:
    """The "/compact undo": the newest archive's history and the turns made since (agent.compaction.undo)."""
    return undo.undo_compaction(state.transcript, state.file_history, plan or plan_undo(state))


# --- automatic compaction ------------------------------------------------------------------


def auto_allowed(state: AppState) -> bool:
    return state.config.auto_compact and state.compaction.off_reason is None


async def auto_compact_if_needed(state: AppState, pending: Sequence[ModelMessage] = ()) -> None:
    """Before the user's turn: over the threshold, compact first. A failure never blocks the turn."""
    if not auto_allowed(state):
        return
    used = context_tokens(state, pending)
    limit = threshold(state)
    if used < limit:
        bg.maybe_start_background(state, get_agent(state), used)
        return
    state.emit(Notice(t("auto_compact", state.lang, used=used, threshold=limit)))
    await attempt(state, "auto", lambda: take_background(state) or run_compact(state, trigger="auto"))


async def attempt(state: AppState, trigger: str, start: Any) -> bool:
    try:
        await start()
    except NothingToCompact:
        return False
    except CompactError as exc:
        _failed(state, trigger, str(exc))
        return False
    except Exception as exc:  # noqa: BLE001 - an automatic compaction must never break the turn
        from agent.provider.error_text import describe_error

        _failed(state, trigger, describe_error(exc, state.config))
        return False
    state.compaction.failures = 0
    _check_thrashing(state)
    return True


def _failed(state: AppState, trigger: str, reason: str) -> None:
    state.compaction.failures += 1
    debuglog.log("compact_failed", trigger=trigger, reason=reason, failures=state.compaction.failures)
    state.emit(CompactionFailed(trigger, reason))
    if state.compaction.failures >= MAX_COMPACT_FAILURES and state.compaction.off_reason is None:
        state.compaction.off_reason = "failures"
        state.emit(Notice(t("auto_compact_off", state.lang, n=state.compaction.failures), level="warn"))


def _check_thrashing(state: AppState) -> None:
    turns = state.compaction.auto_turns
    if turns and state.turns - turns[-1] <= THRASH_TURNS:
        state.compaction.thrash_streak += 1
    else:
        state.compaction.thrash_streak = 0
    turns.append(state.turns)
    if state.compaction.thrash_streak >= THRASH_STREAK:
        state.compaction.off_reason = "thrashing"
        debuglog.log("thrashing", turns=turns[-3:])
        state.emit(Notice(t("thrashing", state.lang), level="warn"))
