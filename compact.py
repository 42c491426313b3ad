"""Context compaction: the design's run_compact / auto_compact_if_needed, and what goes past it.

Order of a compaction (the design's): one LLM call writes the summary; the full session file is
archived; the history is rebuilt from the summary plus the files read most recently; the session
file is rewritten atomically. Everything before the rewrite can fail or be cancelled and leaves
history, session file, ReadFileState and checkpoints exactly as they were: the only await is the
LLM call, and the steps after it are synchronous.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import session
from agent import background as bg
from agent import debuglog, policy, tokens
from agent.budgets import RESTORE_MAX_FILES, restore_room
from agent.budgets import for_state as budgets_for
from agent.context import context_tokens, fixed_prefix_tokens, history_tokens, threshold
from agent.errors import CompactError, NothingToCompact  # noqa: F401 - re-exported
from agent.events import CompactionFailed, CompactionFinished, CompactionStarted, Notice
from agent.faults import fault
from agent.file_history import Checkpoint
from agent.file_state import ReadFileState
from agent.i18n import t
from agent.policy import CHEAP_TIER_KEEP, CHEAP_TIER_TARGET
from agent.summarizer import request_summary, sent_split
from agent.summary import (
    SummaryParts,
    build_summary_message,
    carried_user_messages,
    earlier_user_messages,
    files_touched,
    is_summary,
    missing_user_messages,
    previous_summary,
    strip_wrapper,
    user_messages,
)
from agent.tiers import clear_tool_results
from agent.tiers import without_usage as _without_usage
from agent.undo import UndoPlan, plan_undo, undo_compaction, undo_note, write_undo_note  # noqa: F401

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

    from agent.state import AppState

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
    """Re-read the newest-read files (at most 5, within the budget) into the new history.

    Newest first; a file that is gone or no longer fits is skipped and older ones may still fit;
    restored in their original read order, through the same mechanism as @-mentions.
    """
    from agent.mentions import read_messages
    from agent.tools import ToolError, read_for_model

    picked: list[tuple[str, str, ReadFileState]] = []
    used = 0
    if budget is None:
        budget = budgets_for(state).restore
    for path in reversed(old_state.paths()):
        if len(picked) >= RESTORE_MAX_FILES:
            break
        read = ReadFileState()
        try:
            content = read_for_model(str(path), state.workspace, read)
        except ToolError:
            continue
        # The very text that goes into the history: the recount after finds its count (tokens).
        size = tokens.count_text(content)
        if used + size > budget:
            continue
        picked.append((str(path), content, read))
        used += size
    picked.reverse()
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
        keep_tokens = int(threshold(state) * CHEAP_TIER_KEEP)
        cleared, saved = clear_tool_results(history, keep_tokens)
        # The responses' usage measured the uncleared history: the gauge must count afresh.
        cleared = _without_usage(cleared)
        after = history_tokens(state, cleared)
        enough = bool(saved) and after <= threshold(state) * CHEAP_TIER_TARGET and after < before
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
        reply = await request_summary(state, history if cut is None else history[:cut], custom_instructions)
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
    kept = {id(m) for m in tail}
    compacted = [m for m in history if id(m) not in kept]
    earlier = previous_summary(history)
    earlier_files = (earlier.metadata or {}).get("files") if earlier else None
    # Every user message so far, not only those since the previous summary: the guarantee holds
    # across any number of compactions.
    everyone = earlier_user_messages(earlier) + user_messages(compacted)
    carried = carried_user_messages(everyone, budgets_for(state).user_messages, state.lang)
    summary = strip_wrapper(summary)
    if not summary:
        raise CompactError(t("compact_empty", state.lang))
    parts = SummaryParts(
        summary=summary,
        archives=list((earlier.metadata or {}).get("archives", [])) if earlier else [],
        missing_user_messages=missing_user_messages(summary, carried, state.lang),
        user_messages=carried,
        files=files_touched(compacted, earlier_files),
        left_out=left_out,
    )
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
    """The same in the middle of a turn (agent.background.take_mid_turn says when it may be used)."""
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
    """Archive, rebuild, rewrite, swap. Synchronous on purpose: nothing can interleave."""
    # The archive must hold the whole transcript: append what the session file does not have yet.
    if state.persisted < len(state.history):
        session.append_messages(state.session_id, state.history[state.persisted :], state.workspace)
        state.persisted = len(state.history)
    archive = session.archive_session(state.session_id, state.workspace)
    new_read_state = state.read_file_state
    if summary is not None:
        summary.archives.append(str(archive))
        new_read_state = ReadFileState()
        head = [build_summary_message(summary, state.lang, state.workspace)]
        kept = _without_usage(tail)
        room = restore_room(budgets_for(state), fixed_prefix_tokens(state), tokens.count_messages(head + kept))
        restored = restore_file_messages(state.read_file_state, new_read_state, state, room)
        rebuilt = head + restored + kept
    assert rebuilt is not None
    after = history_tokens(state, rebuilt)
    refusal = refuse_result(before, after, threshold(state))
    if refusal is not None:
        _discard_archive(archive)
        raise CompactError(t(refusal, state.lang, before=before, after=after, threshold=threshold(state)))
    session.rewrite_messages(state.session_id, rebuilt, state.workspace)
    fault("rewrite_done")
    # After the rewrite: a note for a rewrite that never happened would misplace the later turns.
    write_undo_note(archive, len(rebuilt))

    # Only now, with the new file safely on disk, does memory change.
    # The cheap tier removes no message, so checkpoints still point at the right places.
    dropped = _drop_checkpoints(state, _first_kept(state.history, tail)) if summary is not None else []
    state.compact_undo.append((archive, dropped))
    state.history = rebuilt
    state.persisted = len(rebuilt)
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


def refuse_result(before: int, after: int, limit: int) -> str | None:
    """Why a compaction's result must be discarded (an i18n key), or None to keep it. Manual or
    automatic alike: a result not smaller than its input, or still over the threshold, only makes
    things worse (and an automatic one would fire again at once)."""
    if after >= before:
        return "compact_not_smaller"
    if after > limit:
        return "compact_over_threshold"
    return None


def _discard_archive(archive: Path) -> None:
    for path in (archive, undo_note(archive)):
        try:
            path.unlink()
        except OSError:
            pass


def _first_kept(history: Sequence[ModelMessage], tail: Sequence[ModelMessage]) -> int:
    kept = {id(m) for m in tail}
    return next((i for i, m in enumerate(history) if id(m) in kept), len(history))


def _drop_checkpoints(state: AppState, compacted_until: int) -> list[Checkpoint]:
    """Checkpoints whose history_index points into the compacted messages go; they are kept aside so
    "/compact undo" can bring them back."""
    return state.file_history.drop_compacted(compacted_until)


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
        bg.maybe_start_background(state, used)
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
        from agent.error_text import describe_error

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
