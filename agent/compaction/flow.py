"""One compaction, in the design's order: plan (pure), one await (the summary), commit.

Everything before the commit can fail or be cancelled and leaves everything as it was; the commit
is synchronous, so nothing interleaves. Every caller (agent.compaction.checks, compact.py) comes
through `compact`.
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
from agent.errors import CompactError, NothingToCompact
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
    figs: watermark.Figures  # what it was planned with
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
    figs: watermark.Figures,
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
        enough = cheap_tier_enough(saved, before, after, figs.threshold)
        choice = policy.choose(figs, history, cleared, before, after, enough, keep)
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
    background (agent.compaction.background.take) and what goes before the messages added since."""
    from agent.tools import hooks

    history, figs, lang = list(state.history), watermark.figures(state), state.lang
    if taken is None:
        seen, standing = cached(state.scratch.recorder, history), state.scratch.standing
        p = plan(history, figs, seen, lang, trigger=trigger, keep=keep, extra=extra, standing=standing)
    else:
        (ready, lead), before = taken, figs.count(history)
        tail = [*lead, *history[len(ready.snapshot) :]]
        p = Plan("summary", "background", figs, before, history, ready.snapshot, tail, ready=ready.task)
    try:  # the archive must be writable before the summary is paid for
        state.transcript.check_archive()
    except OSError as exc:
        raise CompactError(t("compact_no_archive", lang, path=exc.filename, error=exc.strerror or exc)) from exc
    await hooks.pre_compact(state, trigger, extra)  # it may say no
    if p.ready is None:
        state.emit(CompactionStarted(trigger, p.before, figs.threshold))
    if p.choice is not None:
        state.stats.chose(figs.mode, p.choice)  # for /status
        debuglog.log("cheap_tier_decision", mode=figs.mode, **dataclasses.asdict(p.choice))
    reply = None
    if p.tier == "summary":
        state.compaction.running = p.ready is None  # the check before a request must not recurse
        try:
            reply = await (p.ready or request_summary(state, agent, p.request, p.prompt))
        except Exception as exc:
            if p.ready is None:
                raise
            background.discarded(state, "failed", exc)  # the usual compaction instead
            return await compact(state, agent, trigger, keep=keep)
        finally:
            state.compaction.running = False
    if review is not None and reply is not None:  # /compact preview: the user may edit or cancel
        reply = await restore.reviewed(state, p.history, p.tail, figs, reply, review)
    try:
        return commit(state, p, reply)
    except Exception:
        if p.ready is not None:
            background.discarded(state, "not smaller")
        raise


def commit(state: AppState, p: Plan, reply: SummaryReply | None) -> CompactionFinished:
    """Archive, rebuild (agent.compaction.restore) and swap through the transcript; a result not
    smaller, or not fitting the window, is refused with history and file as they were."""
    from agent.tools import hooks

    figs, lang, limit, built = p.figs, state.lang, watermark.ceiling(state), []

    def build(archive: Path) -> list[ModelMessage]:
        history, new_read = restore.new_history(state, p.history, p.request, p.tail, figs, reply, str(archive))
        if refusal := refuse_result(p.before, after := figs.count(history), figs.threshold, figs.room(limit)):
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
    (history, new_read, after), cleared = built, p.saved if reply is None else 0
    report = restore.dropped(state, p.history, history, new_read)
    summary = next((text for m in history if (text := summary_text(m)) is not None), "") if reply else ""
    state.scratch.recorder.forget()  # its messages are the old history's: free them
    state.read_file_state = new_read
    state.stats.compacted(archive, report, cleared, p.before - after, p.ready is not None)
    if cleared:
        debuglog.log("cheap_tier", before=p.before, after=after, saved=cleared)
    debuglog.log("compacted", trigger=p.trigger, tier=p.tier, before=p.before, after=after, archive=archive)
    left_out = reply.left_out if reply else 0
    state.emit(done := CompactionFinished(p.trigger, p.before, after, archive, p.tier, left_out, summary, report))
    if after > figs.threshold:  # a target: a summary that fits the window is kept, and the user told
        state.emit(Notice(t("compact_over_target", lang, after=after, threshold=figs.threshold), level="warn"))
    hooks.compacted(state, p.trigger, p.before, after, archive, report)  # PostCompact, SessionStart "compact"
    return done
