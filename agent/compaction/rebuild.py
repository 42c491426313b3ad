"""The rebuilt history, from values to values: what the cheap tier clears, what a compaction keeps
verbatim, the new history's layout, whether the result may be kept, and what of the task it holds
and what it dropped (the last two sections, counted on the rebuilt history itself).

Pure: messages and figures in, messages and figures out (no session file, no tools, no session state). The
summary's own text is agent.compaction.summary's; the flow (agent.compaction.flow) reads the files
and commits.

Tool results are most of a coding session's tokens and can be fetched again, so the cheap tier
replaces old ones by a one-line placeholder; a read_file result superseded by a later read of the
same file goes first. pydantic-ai-harness's ClearToolResults edits the run's history in place on
every request; here the cleared copy is a value (the archive keeps the original) with the tokens
saved, for /status.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from agent.compaction.summary import sections, user_messages
from agent.marks import is_error_text, is_mention, read_key
from agent.text.i18n_tools import is_reference
from agent.tokens import count as tokens

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage, ToolCallPart

# A checkpoint (agent.state.file_history): anything with a history_index.
Checkpoint = TypeVar("Checkpoint")

# Clearing alone is enough when it brings the context under this share of the threshold (else the
# next turn compacts again at once); the newest tool results it keeps are a share of the threshold.
CHEAP_TIER_TARGET, CHEAP_TIER_KEEP = 0.7, 0.25
# A result this small costs less than its placeholder would save.
MIN_CLEARABLE_TOKENS = 64
PLACEHOLDER = "[Old tool result cleared to save context: {call}. Run the tool again if you need it.]"
SUPERSEDED = "[Superseded: {call} was read again later; see the newer result.]"


# --- what the cheap tier clears ----------------------------------------------------------------


def cheap_tier(history: Sequence[ModelMessage], limit: int) -> tuple[list[ModelMessage], int]:
    """The cheap tier's history for the threshold `limit` (usage dropped: the gauge must count the
    cleared history afresh), and the tokens it saved."""
    cleared, saved = clear_tool_results(history, int(limit * CHEAP_TIER_KEEP))
    return without_usage(cleared), saved


def cheap_tier_enough(saved: int, before: int, after: int, limit: int) -> bool:
    return bool(saved) and after <= limit * CHEAP_TIER_TARGET and after < before


def clear_tool_results(messages: Sequence[ModelMessage], keep_tokens: int) -> tuple[list[ModelMessage], int]:
    """A copy with old tool results cleared, and the tokens saved. A result the model has not been
    sent yet is never cleared (it would read it again). The others go oldest first, the newest kept
    up to `keep_tokens`; once one does not fit every older one goes, so the current turn's results go
    last. Superseded reads go whatever their age. Untouched messages stay the same objects (their
    cached token counts still hold)."""
    calls = {p.tool_call_id: p for m in messages if m.kind == "response" for p in m.parts if p.part_kind == "tool-call"}
    seen_until, seen_reads, budget = last_response(messages), set(), keep_tokens
    result, saved = list(messages), 0
    for index in range(len(result) - 1, -1, -1):
        message = result[index]
        if message.kind != "request":
            continue
        parts, changed = [], False
        for part in reversed(message.parts):
            if part.part_kind != "tool-return":
                parts.append(part)
                continue
            call = calls.get(part.tool_call_id)
            read = _read_key(call)
            superseded = read is not None and read in seen_reads
            if not _is_note(part):  # a note shows no text: the read it points to is not superseded
                seen_reads.add(read)
            size = tokens.count_text(part.model_response_str())
            if index > seen_until or (not superseded and (size <= budget or size < MIN_CLEARABLE_TOKENS)):
                budget = budget - size if size <= budget else 0
                parts.append(part)
                continue
            if not superseded:
                budget = 0  # nothing older is kept while a newer result goes
            text = (SUPERSEDED if superseded else PLACEHOLDER).format(call=_describe(call, part.tool_name))
            parts.append(dataclasses.replace(part, content=text))
            changed = True
        if changed:
            replaced = dataclasses.replace(message, parts=parts[::-1])
            saved += tokens.count_message(message) - tokens.count_message(replaced)
            result[index] = replaced
    return anchored(result), max(saved, 0)


def _describe(call: ToolCallPart | None, tool_name: str) -> str:
    if call is None:
        return f"{tool_name}(...)"
    first = next(iter(call.args_as_dict().items()), None)
    if first is None:
        return f"{tool_name}()"
    value = json.dumps(first[1], ensure_ascii=False)
    if len(value) > 80:
        value = value[:77] + '..."'
    return f"{tool_name}({first[0]}={value})"


def _read_key(call: ToolCallPart | None) -> str | None:
    if call is None or call.tool_name != "read_file":
        return None
    return read_key(call.args_as_dict())


def _is_note(part: object) -> bool:
    content = getattr(part, "content", None)
    return getattr(part, "tool_name", None) == "read_file" and isinstance(content, str) and is_reference(content)


def anchored(messages: Sequence[ModelMessage]) -> list[ModelMessage]:
    """`messages` with every re-read note (agent.tools.rereads) whose read is no longer above it,
    its text shown, turned into a cleared result: the model reads the file again instead of looking
    for a text that is not there. The latest read of the same lines before a note is the one it
    points to. Untouched messages stay the same objects."""
    calls = {
        p.tool_call_id: p
        for m in messages
        if m.kind == "response"
        for p in m.parts
        if p.part_kind == "tool-call" and p.tool_name == "read_file"
    }
    shown: dict[str, bool] = {}  # read key -> whether its latest read shows its text
    result = list(messages)
    for index, message in enumerate(result):
        if message.kind != "request":
            continue
        parts, changed = list(message.parts), False
        for at, part in enumerate(parts):
            key = _read_key(calls.get(getattr(part, "tool_call_id", None))) if part.part_kind == "tool-return" else None
            if key is None:
                continue
            if not _is_note(part):
                text = part.content if isinstance(part.content, str) else ""
                shown[key] = bool(text) and not is_error_text(text) and not is_cleared(text)
            elif not shown.get(key, False):
                call = calls[part.tool_call_id]
                parts[at] = dataclasses.replace(part, content=PLACEHOLDER.format(call=_describe(call, "read_file")))
                changed = True
        if changed:
            result[index] = dataclasses.replace(message, parts=parts)
    return result


def is_cleared(text: str) -> bool:
    """Whether a tool's answer is one the cheap tier cleared (its placeholder, not the result)."""
    return any(text.startswith(template.split("{call}")[0]) for template in (PLACEHOLDER, SUPERSEDED))


def without_usage(messages: Sequence[ModelMessage]) -> list[ModelMessage]:
    """Responses kept after the history changed under them lose the usage measured on the old one:
    the gauge counts from the newest usage (agent.compaction.watermark), so it counts afresh instead."""
    from pydantic_ai.usage import RequestUsage

    return [dataclasses.replace(m, usage=RequestUsage()) if m.kind == "response" else m for m in messages]


def last_response(messages: Sequence[ModelMessage]) -> int:
    """Index of the newest model response (-1 if none): what comes after it the model has not seen."""
    return next((i for i in range(len(messages) - 1, -1, -1) if messages[i].kind == "response"), -1)


# --- what is kept verbatim ---------------------------------------------------------------------


def turn_prompt(messages: Sequence[ModelMessage], answered: bool = True) -> int | None:
    """Index of the current user request (the newest request with the user's words); with `answered`,
    only once the turn has had a response (else a run's first request, which the check before the
    turn covers)."""
    at = next(
        (
            i
            for i in range(len(messages) - 1, -1, -1)
            if messages[i].kind == "request" and any(p.part_kind == "user-prompt" for p in messages[i].parts)
        ),
        None,
    )
    if at is None or (answered and not any(m.kind == "response" for m in messages[at:])):
        return None
    return at


def with_attachments(messages: Sequence[ModelMessage], prompt_at: int) -> int:
    """Where the user's request at `prompt_at` starts, its @-mentioned files (read right before it)
    included: kept, or left out, together."""
    start = prompt_at
    while start > 0 and is_mention(messages[start - 1]):
        start -= 1
    return start


def mid_turn_keep(messages: Sequence[ModelMessage], prompt_at: int, budget: int) -> list[ModelMessage]:
    """What a compaction in the middle of a turn keeps: the user's request with its attachments, then
    the turn's newest tool exchanges within `budget` tokens (the newest one whatever its size). The
    kept part starts at a response, so every call kept has its results and every result its call."""
    start = len(messages)
    for index in range(len(messages) - 1, prompt_at, -1):
        if messages[index].kind == "response":
            cost = tokens.count_messages(messages[index:start])
            if cost > budget and start < len(messages):
                break
            budget -= cost
            start = index
    return list(messages[with_attachments(messages, prompt_at) : prompt_at + 1]) + list(messages[start:])


def kept_for_fit(messages: Sequence[ModelMessage], tail_budget: int) -> list[ModelMessage]:
    """What a history fitted to the window keeps verbatim: the current user request, and in the
    middle of a turn its newest tool exchanges (as a mid-turn compaction keeps)."""
    prompt_at = turn_prompt(messages, answered=False)
    if prompt_at is None:
        return list(messages[-1:])
    if turn_prompt(messages) is None:
        return list(messages[with_attachments(messages, prompt_at) :])
    return mid_turn_keep(messages, prompt_at, tail_budget)


def starts_cleanly(message: ModelMessage) -> bool:
    """Whether a history may start (or be cut) at `message`: nothing before it is needed to pair it.
    An @-mention's read call starts its user message's group; tool returns and retry prompts carry a
    tool_call_id, whose call would be left behind."""
    if message.kind == "response":
        return is_mention(message)
    return bool(message.parts) and not any(hasattr(p, "tool_call_id") for p in message.parts)


def checkpoints_cut(checkpoints: Sequence[Checkpoint], compacted_until: int) -> list[Checkpoint]:
    """The checkpoints a rewrite drops: from the first whose history_index points into the compacted
    messages, every later one ("/compact undo" brings them back)."""
    return next((list(checkpoints[i:]) for i, c in enumerate(checkpoints) if c.history_index <= compacted_until), [])  # type: ignore[attr-defined]


# --- the new history ---------------------------------------------------------------------------


def compacted_history(
    carried: Sequence[ModelMessage],
    files: Sequence[ModelMessage],
    summary: ModelMessage,
    tail: Sequence[ModelMessage],
    *,
    plan: Sequence[ModelMessage] = (),
) -> list[ModelMessage]:
    """Laid out for the provider's prefix cache, what changes least first: the fixed line, the user
    messages carried (a list the next compaction only extends), the task list, the summary (rewritten
    every time), then the restored files and the tail. The files come after the summary because the
    cheap tier clears them first, and a placeholder before the summary would have it sent again
    uncached (docs/compaction.md measured it)."""
    return anchored([*carried, *plan, summary, *files, *without_usage(tail)])


def refuse_result(before: int, after: int, limit: int, window: int | None = None) -> str | None:
    """Why a compaction's result must be discarded (an i18n key), or None to keep it: one not smaller
    than its input only makes things worse, and one that does not fit the window (`window`: the
    largest request, by our count) cannot be sent. The threshold (`limit`) is a target, not a veto:
    a smaller result over it that fits is kept (the caller says so)."""
    if after >= before:
        return "compact_not_smaller"
    if after > (limit if window is None else max(limit, window)):
        return "compact_over_window" if window is not None else "compact_over_threshold"
    return None


# --- what of the task it holds ---------------------------------------------------------------------
# The newest request counts as held when the summary or the kept tail quotes it: the list of carried
# user messages is the record of the past, and a summary whose "current work" is an older task would
# have the model resume that one.

# The newest request is quoted in the task section up to this many characters: the list of carried
# user messages holds it whole, and a long paste quoted twice could leave the result not smaller.
TASK_QUOTE_CHARS = 600


def texts(messages: Sequence[ModelMessage]) -> str:
    """Every text the messages hold, whitespace folded: what "held verbatim" is checked against."""
    found: list[str] = []
    for message in messages:
        for part in message.parts:
            if part.part_kind == "tool-call":
                found += [str(v) for v in part.args_as_dict().values()]
            elif isinstance(content := getattr(part, "content", None), str):
                found.append(content)
    return " ".join(" ".join(found).split())


def _held(text: str, flat: str) -> bool:
    return " ".join(text.split()) in flat


@dataclass
class TaskGaps:
    """What the rebuilt history would not say of the task: the newest request, open items, files."""

    request: str = ""
    todos: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.request or self.todos or self.files)


def task_gaps(
    history: Sequence[ModelMessage],
    summary: str,
    rest: Sequence[ModelMessage],
    open_items: Sequence[str],
    edited: Collection[str],
) -> TaskGaps:
    """What of the task neither the summary nor `rest` (what follows it: the task list, the restored
    files, the kept tail, the list of files changed) holds verbatim."""
    flat_summary, flat_rest = " ".join(summary.split()), texts(rest)
    newest = (user_messages(history) or [""])[-1]
    both = flat_summary + " " + flat_rest
    return TaskGaps(
        newest if newest and not _held(newest, flat_summary) and not _held(newest, flat_rest) else "",
        [item for item in open_items if not _held(item, both)],
        sorted(path for path in edited if path not in both),
    )


def task_section(gaps: TaskGaps, lang: str) -> str:
    """The short fixed section added after a summary that left part of the task out."""
    words = sections(lang)
    lines = [f"## {words['task_title']}"]
    if gaps.request:
        cut = len(gaps.request) - TASK_QUOTE_CHARS
        lines += [
            words["task_request"],
            gaps.request[:TASK_QUOTE_CHARS] + (" " + words["cut"].format(n=cut) if cut > 0 else ""),
        ]
    if gaps.todos:
        lines += [words["task_todos"], *(f"- {item}" for item in gaps.todos)]
    if gaps.files:
        lines += [words["task_files"], *(f"- {path}" for path in gaps.files)]
    return "\n".join(lines)


# --- what was dropped ------------------------------------------------------------------------------


def dropped(
    history: Sequence[ModelMessage],
    rebuilt: Sequence[ModelMessage],
    files_read: Sequence[str],
    files_kept: Collection[str],
) -> dict:
    """What `history` held that `rebuilt` does not: tool results gone or cleared (by tool, and their
    tokens), files read that were not restored, the user's messages no longer held verbatim (only the
    archive has them). A plain dict: it goes to the hooks, -p's JSON and the stats as it is."""
    now = {p.tool_call_id: p for m in rebuilt if m.kind == "request" for p in m.parts if p.part_kind == "tool-return"}
    by_tool: dict[str, int] = {}
    gone_tokens = 0
    for message in history:
        for part in message.parts if message.kind == "request" else ():
            if part.part_kind != "tool-return" or is_cleared(text := part.model_response_str()):
                continue
            kept = now.get(part.tool_call_id)
            if kept is None or (is_cleared(kept.model_response_str())):
                by_tool[part.tool_name] = by_tool.get(part.tool_name, 0) + 1
                gone_tokens += tokens.count_text(text)
    flat = texts(rebuilt)
    users = [u for u in user_messages(history) if not _held(u, flat)]
    return {
        "tool_results": dict(sorted(by_tool.items(), key=lambda kv: -kv[1])),
        "tool_result_tokens": gone_tokens,
        "files_not_restored": [f for f in files_read if f not in files_kept],
        "user_messages_archived": len(users),
    }
