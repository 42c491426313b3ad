"""One compaction, in the design's order: plan, one await, commit.

`plan` decides from values alone: nothing to do, clear old tool results, or a summary of the
history's start keeping a tail. The one await is the summary request, or a summary written in the
background. `commit` archives the session, builds the new history (agent.compaction.restore: the
summary's messages, the files restored, the tail), swaps it in through the transcript and drops the
checkpoints it passed. All before the commit can fail or be cancelled and leaves everything as it
was; the commit is synchronous, so nothing interleaves. Every caller (agent.compaction.checks,
compact.py) comes through `compact`.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import agent.compaction.background as background
import agent.compaction.policy as policy
import agent.compaction.restore as restore
import agent.compaction.watermark as watermark
from agent import debuglog
from agent.compaction.fit import cut_to_fit
from agent.compaction.rebuild import cheap_tier, cheap_tier_enough, checkpoints_cut, refuse_result
from agent.compaction.request import Cached, cached, request_summary, sent_split
from agent.compaction.summary import compaction_prompt, head_end, previous_summary
from agent.compaction.watermark import Figures, ceiling, figures
from agent.errors import CompactCancelled, CompactError, NothingToCompact
from agent.events import CompactionFinished, CompactionStarted, Notice
from agent.marks import summary_text
from agent.text.i18n import t

if TYPE_CHECKING:
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelMessage

    from agent.compaction.summary import SummaryReply
    from agent.state.app import AppState, Background


# /compact preview's question: (the summary, what would be dropped) -> the summary to commit, or None.
Review = Callable[[str, dict], Awaitable[str | None]]


@dataclass
class Plan:
    """What one compaction will do, decided before anything changes."""

    tier: str  # "cheap" (old tool results cleared) or "summary"
    trigger: str  # "manual", "auto", "mid-turn", "overflow", "model"; "background" for a swap
    figs: Figures  # what it was planned with
    before: int  # tokens of the history now
    history: list[ModelMessage]  # the history it replaces
    request: list[ModelMessage]  # what the summary is asked of; "cheap": the cleared history
    tail: list[ModelMessage]  # kept verbatim after the summary
    prompt: str = ""
    choice: policy.Choice | None = None  # the cost policy's, for /status
    saved: int = 0  # tokens the cheap tier cleared
    ready: asyncio.Task | None = None  # the summary of `request`, written in the background


def plan(
    history: list[ModelMessage],
    figs: Figures,
    seen: Cached,
    lang: str,
    *,
    trigger: str = "manual",
    keep: Sequence[ModelMessage] = (),
    extra: str = "",
    standing: str = "",
) -> Plan:
    """Pure. An automatic compaction clears old tool results when that is enough and costs least
    (agent.compaction.policy). A summary is asked of the start the provider caches when the rest was
    never sent or would not fit (agent.compaction.request.sent_split); the rest follows it verbatim,
    cut to the tail's room, after what `keep` holds from before the cut (mid-turn: the request)."""
    if head_end(history) == len(history):  # nothing, or only a compaction's own head
        raise NothingToCompact(t("nothing_to_compact", lang))
    before, choice = figs.count(history), None
    if trigger != "manual":
        cleared, saved = cheap_tier(history, figs.threshold)
        after = figs.count(cleared)
        choice = policy.choose(
            figs, history, cleared, before, after, cheap_tier_enough(saved, before, after, figs.threshold), keep
        )
        if choice.action == "clear":
            return Plan("cheap", trigger, figs, before, history, cleared, [], choice=choice, saved=saved)
    prompt = compaction_prompt(lang, extra, incremental=previous_summary(history) is not None, standing=standing)
    cut = sent_split(history, figs, seen, prompt, keep_unsent=trigger != "manual")
    if cut is None:
        return Plan("summary", trigger, figs, before, history, history, list(keep), prompt, choice)
    at, room = {id(m): i for i, m in enumerate(history)}, figs.budgets.tail + figs.budgets.restore
    tail = [m for m in keep if at.get(id(m), cut) < cut] + cut_to_fit(history[cut:], room)
    return Plan("summary", trigger, figs, before, history, history[:cut], tail, prompt, choice)


async def compact(
    state: AppState,
    agent: Agent[AppState, str],
    trigger: str = "manual",
    *,
    keep: Sequence[ModelMessage] = (),
    extra: str = "",
    taken: tuple[Background, list[ModelMessage]] | None = None,
    review: Review | None = None,
) -> CompactionFinished:
    """Compact the history, `keep` verbatim after the summary; `taken`: a summary written in the
    background (agent.compaction.background.take) and what goes before the messages added since;
    `review` (/compact preview): shown the summary and what would be dropped, it gives back the
    summary to commit (edited or not), or None to cancel (CompactCancelled, nothing changed)."""
    from agent.tools.memory_files import compact_instructions

    history, figs = list(state.history), figures(state)
    if taken is None:
        p = plan(
            history,
            figs,
            cached(state.scratch.recorder, history),
            state.lang,
            trigger=trigger,
            keep=keep,
            extra=extra,
            standing=compact_instructions(state.workspace, state.config.settings),
        )
    else:
        (snapshot, task), lead = (taken[0].snapshot, taken[0].task), taken[1]
        p = Plan(
            "summary",
            "background",
            figs,
            figs.count(history),
            history,
            snapshot,
            [*lead, *history[len(snapshot) :]],
            ready=task,
        )
    try:  # the archive must be writable before the summary is paid for
        state.transcript.check_archive()
    except OSError as exc:
        raise CompactError(t("compact_no_archive", state.lang, path=exc.filename, error=exc.strerror or exc)) from exc
    from agent.tools import hooks

    kind = "manual" if trigger == "manual" else "auto"
    said = await hooks.run(state, "PreCompact", {"trigger": kind, "custom_instructions": extra}, kind)
    if said.blocked is not None:  # a PreCompact hook that exits 2 keeps the history as it is
        raise CompactError(t("hook_blocked_compact", state.lang, reason=said.blocked))
    if p.ready is None:
        state.emit(CompactionStarted(trigger, p.before, figs.threshold))
    if p.choice is not None:  # for /status
        stats, c = state.stats, p.choice
        stats.tier_mode, stats.tier_choice, stats.tier_reason = figs.mode, c.action, c.reason
        stats.tier_clear_cost, stats.tier_summary_cost, stats.tier_currency = c.clear_cost, c.summary_cost, c.currency
        debuglog.log(
            "cheap_tier_decision",
            mode=figs.mode,
            action=c.action,
            reason=c.reason,
            clear=c.clear_cost,
            summary=c.summary_cost,
        )
    reply = None
    if p.tier == "summary":
        state.compaction.running = p.ready is None  # the check before a request must not recurse
        try:
            reply = await (p.ready or request_summary(state, agent, p.request, p.prompt))
        except Exception as exc:
            if p.ready is None:
                raise
            background.discarded(state, "failed")  # the usual compaction instead
            debuglog.log("background_failed", error=repr(exc)[:300])
            return await compact(state, agent, trigger, keep=keep)
        finally:
            state.compaction.running = False
    if review is not None and reply is not None:
        rebuilt = restore.rebuilt(state, p.history, p.tail, figs, reply, "")
        text = await review(reply.summary, restore.dropped(state, p.history, *rebuilt))
        if text is None:
            raise CompactCancelled(t("compact_preview_cancelled", state.lang))
        reply = dataclasses.replace(reply, summary=text)
    try:
        return commit(state, p, reply)
    except Exception:
        if p.ready is not None:
            background.discarded(state, "not smaller")
        raise


def commit(state: AppState, p: Plan, reply: SummaryReply | None) -> CompactionFinished:
    """Archive, rebuild and swap through the transcript (Transcript.replace); a result not smaller, or
    not fitting the window, is refused with history and file as they were. Then the rest of the state."""
    from agent.tools import hooks
    from agent.tools.nested_memory import kept as keep_nested_memory

    figs, lang, limit, built = p.figs, state.lang, ceiling(state), []

    def build(archive: Path) -> list[ModelMessage]:
        history, new_read = (
            (p.request, state.read_file_state)
            if reply is None
            else restore.rebuilt(state, p.history, p.tail, figs, reply, str(archive))
        )
        # A subfolder's AGENTS.md / CLAUDE.md the model loaded stays loaded.
        history = keep_nested_memory(p.history, history, state.workspace, lang, at=head_end(history))
        after = figs.count(history)
        if refusal := refuse_result(p.before, after, figs.threshold, watermark.room(state, limit)):
            raise CompactError(t(refusal, lang, before=p.before, after=after, threshold=figs.threshold, window=limit))
        built[:] = [history, new_read, after]
        return history

    kept = {id(m) for m in p.tail}
    until = next((i for i, m in enumerate(p.history) if id(m) in kept), len(p.history))
    cut = checkpoints_cut(state.file_history.checkpoints, until) if reply is not None else []
    archive = str(state.transcript.replace(build, dropped=cut))
    # Only now, with the new file safely on disk, does the rest of the state change.
    if cut:
        state.file_history.drop_from(cut[0])
    (history, new_read, after), stats = built, state.stats
    report = restore.dropped(state, p.history, history, new_read)
    summary = next((text for m in history if (text := summary_text(m)) is not None), "") if reply else ""
    state.scratch.recorder.forget()  # its messages are the old history's: free them
    state.read_file_state = new_read
    stats.compactions, stats.last_archive, stats.last_dropped = stats.compactions + 1, archive, report
    if reply is None:
        debuglog.log("cheap_tier", before=p.before, after=after, saved=p.saved)
        stats.cheap_tier_saved += p.saved
        stats.cheap_tier_spared_calls += 1
    else:
        stats.summary_tier_saved += p.before - after
        stats.background_used += p.ready is not None
    debuglog.log("compacted", trigger=p.trigger, tier=p.tier, before=p.before, after=after, archive=archive)
    done = CompactionFinished(
        p.trigger, p.before, after, archive, p.tier, reply.left_out if reply else 0, summary, report
    )
    state.emit(done)
    if after > figs.threshold:  # a target: a summary that fits the window is kept, and the user told
        state.emit(Notice(t("compact_over_target", lang, after=after, threshold=figs.threshold), level="warn"))
    hooks.compacted(state, p.trigger, p.before, after, archive, report)  # PostCompact, SessionStart "compact"
    return done
