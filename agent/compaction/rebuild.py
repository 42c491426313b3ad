"""The pure core of a compaction: what to keep, what to restore, the summary's parts and the new
history, from values to values (no I/O, no AppState). compact.py is the driver around it: it
decides, calls the model, reads the files, and commits through the transcript (agent.state.transcript).

The rest of the core lives beside its data: what to clear and what fits (agent.compaction.tiers:
clear_tool_results, fit_messages), the summary's text and the user messages it must carry
(agent.compaction.summary), the room of each part (agent.compaction.budgets.plan, restore_room).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from agent.compaction.summary import (
    SummaryParts,
    carried_and_older,
    earlier_user_messages,
    files_touched,
    head_end,
    missing_user_messages,
    older_user_count,
    previous_summary,
    strip_wrapper,
    user_messages,
)
from agent.compaction.tiers import clear_tool_results, is_cleared, without_usage
from agent.errors import CompactError
from agent.text.i18n import t
from agent.tokens import count as tokens
from agent.tools.answers import is_error_text

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

    from agent.state.file_history import Checkpoint

T = TypeVar("T")

RESTORE_MAX_FILES = 5
# The cheap tier alone is enough when it brings the context under this share of the threshold:
# the margin keeps the next turn from triggering again at once.
CHEAP_TIER_TARGET = 0.7
# Newest tool results kept verbatim by the cheap tier, as a share of the threshold.
CHEAP_TIER_KEEP = 0.25


# --- what to clear -----------------------------------------------------------------------------


def cheap_tier(history: Sequence[ModelMessage], limit: int) -> tuple[list[ModelMessage], int]:
    """The cheap tier's history for the threshold `limit`: old tool results cleared, the newest kept
    up to CHEAP_TIER_KEEP of it (agent.compaction.tiers.clear_tool_results), and the responses without the usage
    measured on the uncleared history (the gauge must count afresh); and the tokens saved."""
    cleared, saved = clear_tool_results(history, int(limit * CHEAP_TIER_KEEP))
    return without_usage(cleared), saved


def cheap_tier_enough(saved: int, before: int, after: int, limit: int) -> bool:
    """Whether clearing alone will do: it saved something, the context drops, and well under `limit`."""
    return bool(saved) and after <= limit * CHEAP_TIER_TARGET and after < before


# --- what to keep ------------------------------------------------------------------------------


def last_prompt(messages: Sequence[ModelMessage]) -> int | None:
    """Index of the newest request carrying the user's words (the current turn's request)."""
    from pydantic_ai.messages import ModelRequest, UserPromptPart

    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if isinstance(message, ModelRequest) and any(isinstance(p, UserPromptPart) for p in message.parts):
            return index
    return None


def turn_prompt(messages: Sequence[ModelMessage]) -> int | None:
    """Index of the current user request, once the turn has had a response; else None (a run's
    first request, which the before-turn check covers, or a summary request)."""
    from pydantic_ai.messages import ModelResponse

    prompt_at = last_prompt(messages)
    if prompt_at is None or not any(isinstance(m, ModelResponse) for m in messages[prompt_at:]):
        return None
    return prompt_at


def mid_turn_tail(messages: Sequence[ModelMessage], prompt_at: int, budget: int) -> int:
    """Where the kept tail starts: the turn's newest tool exchanges after the user request, within
    `budget` tokens (the newest one whatever its size). It starts at a response, so every call
    kept has its results and every result its call."""
    from pydantic_ai.messages import ModelResponse

    start = len(messages)
    for index in range(len(messages) - 1, prompt_at, -1):
        if isinstance(messages[index], ModelResponse):
            cost = tokens.count_messages(messages[index:start])
            if cost > budget and start < len(messages):
                break
            budget -= cost
            start = index
    return start


def with_attachments(messages: Sequence[ModelMessage], prompt_at: int) -> int:
    """Where the user's request at `prompt_at` starts, its @-mentioned files included (their reads
    come right before it, marked by agent.tools.mentions): kept, or left out, together."""
    from agent.tools.mentions import is_mention

    start = prompt_at
    while start > 0 and is_mention(messages[start - 1]):
        start -= 1
    return start


def mid_turn_keep(messages: Sequence[ModelMessage], prompt_at: int, budget: int) -> list[ModelMessage]:
    """What a mid-turn compaction keeps verbatim: the user's request with its attachments, then the
    newest exchanges."""
    request = list(messages[with_attachments(messages, prompt_at) : prompt_at + 1])
    return request + list(messages[mid_turn_tail(messages, prompt_at, budget) :])


def kept_for_fit(messages: Sequence[ModelMessage], tail_budget: int) -> list[ModelMessage]:
    """What a history fitted to the window keeps verbatim: the current user request, and in the
    middle of a turn its newest tool exchanges (as a mid-turn compaction keeps)."""
    prompt_at = last_prompt(messages)
    if prompt_at is None:
        return list(messages[-1:])
    if turn_prompt(messages) is None:
        return list(messages[with_attachments(messages, prompt_at) :])
    return mid_turn_keep(messages, prompt_at, tail_budget)


def first_kept(history: Sequence[ModelMessage], tail: Sequence[ModelMessage]) -> int:
    """Index of the first message of `history` that `tail` keeps (len(history) if none)."""
    kept = {id(m) for m in tail}
    return next((i for i, m in enumerate(history) if id(m) in kept), len(history))


def checkpoints_cut(checkpoints: Sequence[Checkpoint], compacted_until: int) -> list[Checkpoint]:
    """The checkpoints a rewrite drops: from the first whose history_index points into the
    compacted messages, every later one ("/compact undo" brings them back)."""
    for index, checkpoint in enumerate(checkpoints):
        if checkpoint.history_index <= compacted_until:
            return list(checkpoints[index:])
    return []


# --- what to restore ---------------------------------------------------------------------------


def choose_restored(newest_first: Iterable[tuple[T, int]], budget: int, max_files: int = RESTORE_MAX_FILES) -> list[T]:
    """The files to re-read into the new history, from (file, tokens) pairs newest first: at most
    `max_files` within `budget`; one that does not fit is skipped and older ones may still fit.
    Returned in their original read order. No pair is taken after the last file is chosen (the
    driver reads each file as it is taken)."""
    picked: list[T] = []
    used = 0
    pairs = iter(newest_first)
    while len(picked) < max_files and (pair := next(pairs, None)) is not None:
        item, size = pair
        if used + size <= budget:
            picked.append(item)
            used += size
    picked.reverse()
    return picked


@dataclass(frozen=True)
class Shown:
    """What the kept tail already shows of the files a compaction would restore: restoring them
    too would send them twice (compact.restore_file_messages)."""

    texts: frozenset[str]  # the read_file answers, by text: a read that now gives one is shown
    # Every read of the tail in order, (path as the call wrote it, whether it was whole and its
    # answer is still there): a file whose newest read is whole and that has changed since only by
    # the agent's own edits (which the tail holds too) is shown as well.
    reads: tuple[tuple[str, bool], ...]


def shown_reads(tail: Sequence[ModelMessage]) -> Shown:
    """What of the files the kept `tail` shows (Shown)."""
    from pydantic_ai.messages import ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart

    calls = {p.tool_call_id: p for m in tail if isinstance(m, ModelResponse) for p in m.parts
             if isinstance(p, ToolCallPart) and p.tool_name == "read_file"}
    texts: set[str] = set()
    reads: list[tuple[str, bool]] = []
    for message in tail:
        if not isinstance(message, ModelRequest):
            continue
        for part in message.parts:
            call = calls.get(part.tool_call_id) if isinstance(part, ToolReturnPart) else None
            if call is None:
                continue
            args = call.args_as_dict()
            if not isinstance(args.get("path"), str):
                continue
            answer = part.content if isinstance(part.content, str) else None
            there = answer is not None and not is_error_text(answer) and not is_cleared(answer)
            if there:
                texts.add(answer)
            reads.append((args["path"], there and set(args) == {"path"}))  # whole: the defaults
    return Shown(frozenset(texts), tuple(reads))


# --- the new history ---------------------------------------------------------------------------


def summary_parts(history: Sequence[ModelMessage], tail: Sequence[ModelMessage], summary: str, left_out: int,
                  user_budget: int, lang: str) -> SummaryParts:
    """The summary message's parts for compacting `history` but `tail`: the model's `summary`, the
    user messages (every one so far, across any number of compactions) within `user_budget`, those
    the summary does not quote checked in, the files touched, the archives of earlier compactions.
    Raises CompactError for an empty summary."""
    kept = {id(m) for m in tail}
    compacted = [m for m in history if id(m) not in kept]
    earlier = previous_summary(history)
    earlier_meta = (earlier.metadata or {}) if earlier else {}
    everyone = earlier_user_messages(earlier) + user_messages(compacted)
    carried, older = carried_and_older(everyone, user_budget, lang)
    summary = strip_wrapper(summary)
    if not summary:
        raise CompactError(t("compact_empty", lang))
    return SummaryParts(
        summary=summary,
        archives=list(earlier_meta.get("archives", [])),
        missing_user_messages=missing_user_messages(summary, carried, lang),
        user_messages=carried,
        files=files_touched(compacted, earlier_meta.get("files")),
        left_out=left_out,
        older_user_messages=older + older_user_count(compacted),
    )


def compacted_history(carried: Sequence[ModelMessage], files: Sequence[ModelMessage], summary: ModelMessage,
                      tail: Sequence[ModelMessage], *, plan: Sequence[ModelMessage] = ()) -> list[ModelMessage]:
    """Laid out for the provider's prefix cache, what changes least first: the fixed line, the user
    messages carried (a list the next compaction only extends), the task list, the summary (rewritten
    every time), then the restored files and the tail kept verbatim. The files come after the
    summary because the cheap tier clears them first, and a placeholder before the summary would
    have it sent again uncached: with them before it, a whole session at 32k cost 22% more
    (bench/session_cost.py, seed 14, 400 turns: $0.0788 against $0.0644 per 100 turns)."""
    lead, users = list(carried[:1]), list(carried[1:])
    return [*lead, *users, *plan, summary, *files, *without_usage(tail)]


def left_out_history(kept: Sequence[ModelMessage], note: ModelMessage) -> list[ModelMessage]:
    """The history fit_messages kept, with `note` where the left-out messages were (after a
    compaction's head at the start, which fit_messages keeps: agent.compaction.summary.head_end)."""
    head = head_end(kept)
    kept = without_usage(kept)
    return kept[:head] + [note] + kept[head:]


def refuse_result(before: int, after: int, limit: int, window: int | None = None) -> str | None:
    """Why a compaction's result must be discarded (an i18n key), or None to keep it. Manual or
    automatic alike: a result not smaller than its input only makes things worse, and one that does
    not fit the window (`window`: the largest request, by our count) cannot be sent. The threshold
    (`limit`) is a target, not a veto: a smaller result over it that fits is kept (the caller says
    so), since throwing away a good summary for being 0.3% over it costs the user's messages."""
    if after >= before:
        return "compact_not_smaller"
    if after > (limit if window is None else max(limit, window)):
        return "compact_over_window" if window is not None else "compact_over_threshold"
    return None
