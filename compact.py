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
from agent.compaction import margin, overflow, policy, trim, undo
from agent.compaction.breakers import (  # noqa: F401 - compact's API (midturn.py, ui/status.py, the tests)
    MAX_COMPACT_FAILURES,
    REARM_TURNS,
    THRASH_STREAK,
    THRASH_TURNS,
    auto_allowed,
    auto_limit,
    backoff_text,
    check_thrashing,
    failed,
)
from agent.compaction.budgets import for_state as budgets_for
from agent.compaction.budgets import restore_room
from agent.compaction.context import context_tokens, fixed_prefix_tokens, history_tokens, threshold
from agent.compaction.rebuild import (
    RESTORE_MAX_FILES,
    Shown,
    cheap_tier,
    cheap_tier_enough,
    checkpoints_cut,
    choose_restored,
    compacted_history,
    first_kept,
    refuse_result,
    shown_reads,
    summary_parts,
)
from agent.compaction.summarizer import request_summary, sent_split, tail_budget
from agent.compaction.summary import SummaryParts, build_carried_messages, build_summary_message, head_end, is_summary
from agent.compaction.undo import UndoPlan
from agent.errors import CompactError, NothingToCompact  # noqa: F401 - re-exported
from agent.events import CompactionFinished, CompactionStarted, Notice
from agent.state.file_state import ReadFileState
from agent.text.i18n import t
from agent.tokens import count as tokens
from agent.tools.images import compaction_note
from agent.tools.nested_memory import kept as keep_nested_memory
from agent.tools.todo import restore_messages as restore_todo
from agent.turn.loop import get_agent

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

    from agent.state.app import AppState



@dataclass
class CompactResult:
    tokens_before: int
    tokens_after: int
    archive: str
    tier: str
    left_out: int = 0


def restore_file_messages(
    old_state: ReadFileState, new_state: ReadFileState, state: AppState, budget: int | None = None,
    shown: Shown | None = None,
) -> list:
    """Re-read the newest-read files (agent.compaction.rebuild.choose_restored: at most 5, within the budget)
    into the new history, through the same mechanism as @-mentions. A file that is gone is skipped.
    A file the kept tail already shows (rebuild.shown_reads: a read there gives its text now, or it
    was read whole there and has changed since only by the agent's own edits, which the tail holds
    too) counts as one of the five and is registered as read, but is not sent again: at 131k such
    copies made the rebuilt history about a fifth larger (bench/session_cost.py, seed 14)."""
    from agent.tools.answers import ToolError
    from agent.tools.mentions import read_messages
    from agent.tools.reading import read_for_model

    newest_whole = {Path(state.workspace, path).resolve(): whole for path, whole in shown.reads} if shown else {}

    def in_tail(path: Path, content: Any) -> bool:
        if shown is None:
            return False
        if isinstance(content, str) and content in shown.texts:
            return True
        # check_fresh: the file is what the agent last read or wrote (an edit is refused until a
        # change made by anyone else has been read again).
        return newest_whole.get(Path(path).resolve(), False) and old_state.check_fresh(Path(path)) is None

    def readable() -> Any:
        for path in reversed(old_state.paths()):
            read = ReadFileState()
            try:
                content = read_for_model(str(path), state.workspace, read)
            except ToolError:
                continue
            # The very text that goes into the history: the recount after finds its count (tokens).
            shown_there = in_tail(path, content)
            yield (_relative(path, state.workspace), content, read, shown_there), \
                0 if shown_there else tokens.count_text(content)

    picked = choose_restored(readable(), budgets_for(state).restore if budget is None else budget, RESTORE_MAX_FILES)
    for _path, _content, read, _shown in picked:
        new_state.merge(read)
    sent = [(path, content) for path, content, _read, shown_there in picked if not shown_there]
    # A call and its answer per file, by path (one order whatever was read when), with ids of the
    # path and the text: two compactions that restore the same files send the same bytes, and a set
    # that starts with the same files as an earlier one is served from the provider's prefix cache.
    sent.sort(key=lambda item: item[0])
    return [m for path, content in sent for m in read_messages([(path, content)], stable_ids=True)]


def _relative(path: Any, workspace: Path) -> str:
    """The path as the model and the user wrote it everywhere else: relative to the workspace."""
    try:
        return str(Path(path).relative_to(workspace))
    except ValueError:
        return str(path)  # outside the workspace (the transcript archive): only the full path says where


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
    if head_end(history) == len(history):  # nothing, or only a compaction's own head
        raise NothingToCompact(t("nothing_to_compact", state.lang))
    before = context_tokens(state)
    _check_archive_writable(state)
    await pre_compact_hooks(state, trigger, custom_instructions)
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
        cut = sent_split(state, history, custom_instructions, keep_unsent=trigger != "manual")
        if cut is not None:
            # Only the start the last request sent is summarized (cached); the rest follows verbatim,
            # after what `keep` holds from before the cut (mid-turn: the user's request).
            at = {id(m): i for i, m in enumerate(history)}
            # What came after the last request (a big mid-turn read) stays out of the summary
            # request; kept whole if it fits the room of the tail, else its largest texts are cut
            # to fit, with a note (the archive keeps them whole).
            after = trim.cut_to_fit(history[cut:], tail_budget(state))
            tail = [m for m in keep if at.get(id(m), cut) < cut] + after
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
    state: AppState, tail_budget: int, prompt: ModelMessage, keep: Sequence[ModelMessage] = ()
) -> Coroutine[None, None, CompactResult] | None:
    """The same in the middle of a turn (agent.compaction.background.take_mid_turn says when it may be used);
    should the background summary have failed, the usual mid-turn compaction keeping `keep`."""
    taken = bg.take_mid_turn(state, tail_budget, prompt)
    return None if taken is None else _swap(state, *taken, trigger="mid-turn", keep=keep)


async def pre_compact_hooks(state: AppState, trigger: str, custom_instructions: str = "") -> None:
    """PreCompact (matcher "manual" or "auto"): a hook that exits 2 keeps the history as it is."""
    from agent.tools import hooks

    kind = "manual" if trigger == "manual" else "auto"
    said = await hooks.run(state, "PreCompact", {"trigger": kind, "custom_instructions": custom_instructions}, kind)
    if said.blocked is not None:
        raise CompactError(t("hook_blocked_compact", state.lang, reason=said.blocked))


async def _swap(state: AppState, background: bg.Background, lead: Sequence[ModelMessage] = (), *,
                trigger: str = "auto", keep: Sequence[ModelMessage] = ()) -> CompactResult:
    await pre_compact_hooks(state, trigger)
    try:
        # Usually done by now; if not, the rest of the wait is shorter than a fresh request.
        reply = await background.task
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # noqa: BLE001 - a failed background summary falls back to the usual path
        bg.discarded(state, "failed")
        debuglog.log("background_failed", error=repr(exc)[:300])
        # Mid-turn, the user's current request and the newest exchanges stay verbatim (`keep`).
        return await run_compact(state, trigger=trigger, keep=keep)
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
    fit_limit = overflow.ceiling(state)

    def build(archive: Path) -> list[ModelMessage]:
        nonlocal new_read_state
        history = rebuilt
        if summary is not None:
            summary.archives.append(str(archive))
            if note := compaction_note(state.history, tail, state.lang):  # images are not restored
                summary.summary += "\n\n" + note
            head = build_summary_message(summary, state.lang, state.workspace)
            carried = build_carried_messages(summary, state.lang)
            plan = restore_todo(state.history, tail)  # the task list comes back whole (agent.tools.todo)
            kept = tokens.count_messages([*carried, head, *plan, *tail])
            room = restore_room(budgets_for(state), fixed_prefix_tokens(state), kept)
            files = restore_file_messages(state.read_file_state, new_read_state, state, room, shown_reads(tail))
            history = compacted_history(carried, files, head, tail, plan=plan)
            if (files or plan) and history_tokens(state, history) > threshold(state):
                # Over the target: the restored files go first (they can be read again), never the
                # user's messages the summary carries.
                new_read_state = ReadFileState()
                history = compacted_history(carried, [], head, tail)
        assert history is not None
        # A subfolder's AGENTS.md / CLAUDE.md the model loaded stays loaded (agent.tools.nested_memory).
        history = keep_nested_memory(state.history, history, state.workspace, state.lang, at=head_end(history))
        after = history_tokens(state, history)
        refusal = refuse_result(before, after, threshold(state), margin.room(state, fit_limit))
        if refusal is not None:
            raise CompactError(t(refusal, state.lang, before=before, after=after, threshold=threshold(state),
                                 window=fit_limit))
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
    if after > threshold(state):
        # The threshold is a target: a summary that fits the window is kept, and the user told.
        state.emit(Notice(t("compact_over_target", state.lang, after=after, threshold=threshold(state)), level="warn"))
    from agent.tools import hooks

    hooks.compacted(state, trigger, before, after, str(archive))  # PostCompact, SessionStart "compact"
    return CompactResult(before, after, str(archive), tier, left_out)


def plan_undo(state: AppState) -> UndoPlan:
    """What "/compact undo" would restore (agent.compaction.undo), worked out before asking."""
    return undo.plan_undo(state.transcript, state.lang)


def undo_compaction(state: AppState, plan: UndoPlan | None = None) -> tuple[str, str, int]:
    """The "/compact undo": the newest archive's history and the turns made since (agent.compaction.undo).
    What /status says of the last compaction no longer holds: the newest archive is the one this
    undo made, and the tier's last choice is forgotten."""
    plan = plan or plan_undo(state)
    archive, saved, count = undo.undo_compaction(state.transcript, state.file_history, plan)
    stats = state.stats
    stats.last_archive, stats.last_undo = saved, archive
    stats.tier_choice = stats.tier_reason = ""
    stats.tier_clear_cost = stats.tier_summary_cost = None
    recorder = state.scratch.recorder
    recorder.forget()
    # The next compaction summarizes the restored part, which the provider still caches, and keeps
    # the turns made since verbatim after it (summarizer.sent_split; the fuzzer's 16k seeds: the
    # summary request after an undo was 17-51% cached, its oldest messages left out to fit).
    recorder.restored = state.history[: len(plan.restored)]
    return archive, saved, count


def last_summary(state: AppState) -> str | None:
    """The compaction's own text at the start of the history, whole (/compact show): the user
    messages carried and the summary, without the restored files; or None."""
    head = state.history[: head_end(state.history)]
    texts = [str(m.parts[0].content) for m in head if is_summary(m)]
    return "\n\n".join(texts) if texts else None


# --- automatic compaction ------------------------------------------------------------------


async def auto_compact_if_needed(state: AppState, pending: Sequence[ModelMessage] = ()) -> None:
    """Before the user's turn: over the threshold, compact first. A failure never blocks the turn."""
    if not auto_allowed(state):
        return
    used = context_tokens(state, pending)
    limit = auto_limit(state)
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
        failed(state, trigger, str(exc))
        return False
    except Exception as exc:  # noqa: BLE001 - an automatic compaction must never break the turn
        from agent.provider.error_text import describe_error

        failed(state, trigger, describe_error(exc, state.config))
        return False
    state.compaction.failures = 0
    check_thrashing(state)
    return True
