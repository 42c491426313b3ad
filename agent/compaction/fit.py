"""The fit to the window: never a request over it, whatever automatic compaction may do.

The thrash guard, the failure breaker and --no-auto-compact switch automatic compaction off, and
then the context would grow until the provider refuses every request. Before each request a history
that would not fit is made to fit (`make_fit`): by a summary unless summaries are what keeps
failing, else by leaving out the oldest messages (archived first, with a note where they were). If
not even the current request fits, one clear error and the history as it was (a user message too
large for any compaction to make room for is found before it is sent: agent.turn.admission). The
last resort of a request leaving out messages cannot make small enough
(one answer larger than the window) is cutting its largest texts (`cut_to_fit`); the user's own
words are never cut, and the archive keeps every text whole.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Sequence
from operator import itemgetter
from pathlib import Path
from typing import TYPE_CHECKING

import agent.compaction.watermark as watermark
from agent import debuglog
from agent.compaction.rebuild import (
    anchored,
    checkpoints_cut,
    starts_cleanly,
    turn_prompt,
    with_attachments,
    without_usage,
)
from agent.compaction.summary import OLDER_KEY, carried_and_older, head_end, older_user_count, user_messages
from agent.compaction.watermark import budgets, ceiling, history_tokens, prefix_tokens, threshold
from agent.errors import WindowOverflow
from agent.events import Notice
from agent.marks import NOTE_KEY
from agent.text.i18n import t
from agent.tokens import count as tokens

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

    from agent.state.app import AppState

CUT_NOTE = "\n[… {n} tokens cut here to fit the context window; the full text is in the session's archive.]"
# The cut note itself and the rounding of a cut by characters; a text cut to fit keeps at least its
# start, so that the model still sees what it was and reads on in the archive.
NOTE_TOKENS, MAX_ROUNDS, HEAD_FLOOR = 40, 12, 100
# An attachment shortened to fit keeps at least this many tokens (its first lines); the left-out
# note's own words around the user's messages it carries.
READ_FLOOR, NOTE_ROOM = 100, 200


async def make_fit(
    state: AppState, messages: list[ModelMessage], keep: list[ModelMessage], summarize: Callable[[], Awaitable[object]]
) -> list[ModelMessage] | None:
    """Make `state.history` a history built from `messages` whose request fits the window, `keep`
    (the current request and the turn's newest exchanges) verbatim; `summarize` compacts it keeping
    `keep` (given from above). Raises WindowOverflow, the history unchanged, when not even `keep`
    fits. Returns None, or, when the session file cannot be written, the messages to send this once."""
    limit = ceiling(state)
    needed = prefix_tokens(state) + tokens.count_messages(keep)
    if not watermark.fits(state, needed, limit):
        raise WindowOverflow(t("overflow_nothing_fits", state.lang, needed=needed, limit=limit))
    state.emit(Notice(t("overflow_fitting", state.lang, used=history_tokens(state, messages), limit=limit), "warn"))
    state.transcript.update(messages)
    if state.compaction.off_reason != "failures" and not state.compaction.failures:
        try:
            await summarize()  # a failed one leaves the history as it was
        except Exception as exc:  # noqa: BLE001 - leaving out the oldest still works
            debuglog.log("overflow_summary_failed", error=repr(exc)[:300])
    if not watermark.fits(state, history_tokens(state, state.history), limit):
        try:
            leave_out_oldest(state, watermark.room(state, limit))
        except OSError as exc:
            debuglog.log("overflow_unsaved", error=str(exc))
            return fit_messages(messages, watermark.room(state, limit), prefix_tokens(state))[0]
    return None


def leave_out_oldest(state: AppState, limit: int) -> int:
    """Archive the session, then drop the oldest messages (calls and results together) until the
    request fits; a note where they were carries the user's words from them (verbatim within the
    user-message budget, the older ones named by count) and says where the transcript is."""
    history = list(state.history)
    head, fixed = head_end(history), prefix_tokens(state)
    budget = budgets(state.config.context_window, threshold(state), fixed).user_messages
    note_room = NOTE_ROOM
    for _ in range(4):  # the note's size depends on what is left out, and that on the note's size
        kept, dropped = fit_messages(history, limit - note_room, fixed)
        if not dropped:
            return 0
        gone = history[head : head + dropped]
        carried, older = carried_and_older(user_messages(gone), budget, state.lang)
        older += older_user_count(gone)
        if (needed := NOTE_ROOM + sum(tokens.count_texts(carried))) <= note_room:
            break
        note_room = needed
    kept, dropped = _keep_this_turn(state, history, kept, dropped, head, limit - note_room)

    def build(archive: Path) -> list[ModelMessage]:
        from pydantic_ai.messages import ModelRequest, UserPromptPart

        text = t("overflow_note", state.lang, n=dropped, archive=archive)
        if carried:
            text += "\n" + t("overflow_note_users", state.lang) + "\n" + "\n".join(f"- {m}" for m in carried)
        if older:
            text += "\n" + t("overflow_note_older", state.lang, n=older, archive=archive)
        metadata = {NOTE_KEY: "left_out", "user_messages": carried, "archives": [str(archive)], OLDER_KEY: older}
        rest, at = without_usage(kept), head_end(kept)
        return anchored(rest[:at] + [ModelRequest(parts=[UserPromptPart(text)], metadata=metadata)] + rest[at:])

    checkpoints = checkpoints_cut(state.file_history.checkpoints, head + dropped)
    archive = state.transcript.replace(build, dropped=checkpoints)
    if checkpoints:
        state.file_history.drop_from(checkpoints[0])
    state.scratch.recorder.forget()
    state.stats.left_out_messages += dropped
    state.stats.last_archive = str(archive)
    debuglog.log("overflow_left_out", messages=dropped, archive=str(archive))
    state.emit(Notice(t("overflow_left_out", state.lang, n=dropped, archive=archive), level="warn"))
    return dropped


def _keep_this_turn(
    state: AppState, history: list[ModelMessage], kept: list[ModelMessage], dropped: int, head: int, limit: int
) -> tuple[list[ModelMessage], int]:
    """`kept` and `dropped`, unless the fit cut into this turn's @-mentioned files: they were shown as
    attached, so they stay, shortened to what the window leaves them (with where to read on)."""
    from agent.tools.mentions import attached_labels
    from agent.tools.reading import shorten

    prompt_at = turn_prompt(history, answered=False)
    if prompt_at is None or prompt_at < head:
        return kept, dropped
    group = with_attachments(history, prompt_at)
    if group == prompt_at or head + dropped <= group:
        return kept, dropped
    turn = list(history[group:])
    over = prefix_tokens(state) + tokens.count_messages([*history[:head], *turn]) - limit
    returns = [
        (i, j)
        for i, m in enumerate(turn[: prompt_at - group])
        if m.kind == "request"
        for j, p in enumerate(m.parts)
        if p.part_kind == "tool-return" and isinstance(p.content, str)
    ]
    if over > 0 and returns:
        share = -(-over // len(returns)) + 20
        for i, j in returns:
            part = turn[i].parts[j]
            parts = list(turn[i].parts)
            parts[j] = dataclasses.replace(
                part, content=shorten(part.content, max(READ_FLOOR, tokens.count_text(part.content) - share))
            )
            turn[i] = dataclasses.replace(turn[i], parts=parts)
        labels = t("list_separator", state.lang).join(attached_labels(turn[: prompt_at - group], state.lang))
        state.emit(Notice(t("attachment_shortened", state.lang, paths=labels), level="warn"))
    return [*history[:head], *turn], group - head


def fit_messages(messages: Sequence[ModelMessage], limit: int, fixed: int) -> tuple[list[ModelMessage], int]:
    """Leave out the oldest messages until `fixed + tokens(messages) <= limit`, a compaction's head at
    the start kept whole (it carries everything before it) and tool calls never parted from their
    results; a re-read note whose read was left out becomes a cleared result (rebuild.anchored).
    Returns the kept messages and how many were left out."""
    head = list(messages[: head_end(messages)])
    rest = list(messages[len(head) :])
    total = fixed + tokens.count_messages(head) + tokens.count_messages(rest)
    start = 0
    while total > limit and start < len(rest) - 1:
        total -= tokens.count_message(rest[start])
        start += 1
        while start < len(rest) - 1 and not starts_cleanly(rest[start]):
            total -= tokens.count_message(rest[start])
            start += 1
    return (anchored(head + rest[start:]) if start else head + rest[start:]), start


# --- cutting the largest texts -----------------------------------------------------------------


def _cuttable(part: object) -> str | None:
    kind, content = getattr(part, "part_kind", ""), getattr(part, "content", None)
    ok = kind in ("text", "thinking", "tool-return") and isinstance(content, str) and content
    return content if ok else None


def _cut(message: ModelMessage, index: int, text: str, size: int, keep: int) -> ModelMessage:
    parts = list(message.parts)
    cut = text[: len(text) * max(0, keep) // max(1, size)] + CUT_NOTE.format(n=max(1, size - keep))
    parts[index] = dataclasses.replace(parts[index], content=cut)
    return dataclasses.replace(message, parts=parts)


def cut_each(messages: Sequence[ModelMessage], cap: int) -> list[ModelMessage]:
    """Every text larger than `cap` tokens cut to it: one huge answer must not push out the rest."""
    out = list(messages)
    for i, message in enumerate(out):
        for j, part in enumerate(message.parts):
            if (text := _cuttable(part)) is not None and (size := tokens.count_text(text)) > cap:
                out[i] = message = _cut(message, j, text, size, cap - NOTE_TOKENS)
    return out


def cut_to_fit(messages: Sequence[ModelMessage], budget: int) -> list[ModelMessage]:
    """`messages` with their largest texts cut until they count at most `budget` tokens (as close as
    the cuttable texts allow: user messages stay as they are)."""
    out = list(messages)
    done: set[tuple[int, int]] = set()  # cut down to their floor: the next largest goes next
    for _ in range(MAX_ROUNDS):
        over = tokens.count_messages(out) - budget
        if over <= 0:
            break
        sizes = [
            (tokens.count_text(text), i, j)
            for i, m in enumerate(out)
            for j, p in enumerate(m.parts)
            if (text := _cuttable(p)) is not None and (i, j) not in done
        ]
        size, i, j = max(sizes, key=itemgetter(0), default=(0, 0, 0))
        if size <= HEAD_FLOOR + NOTE_TOKENS:
            break
        keep = size - over - NOTE_TOKENS
        if keep < HEAD_FLOOR:
            keep = HEAD_FLOOR
            done.add((i, j))
        out[i] = _cut(out[i], j, _cuttable(out[i].parts[j]) or "", size, keep)
    return out
