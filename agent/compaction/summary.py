"""The summary: the prompt that asks for it, reading the reply, and the messages a rebuilt history
opens with.

What must survive a compaction is checked mechanically here rather than trusted to the model: every
user message (verbatim, carried from one summary to the next within a budget) and every file the
agent changed (from the session's own tool calls). Pure: values in, values out.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import asdict, dataclass, field
from functools import cache
from itertools import chain
from typing import TYPE_CHECKING

from agent.marks import (
    CARRIED,
    NOTE_KEY,
    SUMMARY_KEY,
    is_agent_note,
    is_error_text,
    is_hook_message,
    is_summary,
    summary_text,
)
from agent.text.prompts import load_prompt
from agent.tokens import count as tokens

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage, ModelRequest

# One very long paste must not take the whole budget of user messages.
USER_MESSAGE_MAX_CHARS = 8_000
# A message is cut to what is left of the budget only if this much is left; else it goes.
MIN_CUT_TOKENS = 32
# Beyond the budget a user message is still named by its first words, fewer when little room is
# left (a 4k window has a few dozen tokens for them): the newest older ones are named before none.
HEAD_CHARS, SHORT_HEAD_CHARS = 80, 24
# Transcripts named in the summary message, newest last (all of them are in its metadata).
ARCHIVES_SHOWN = 5
# In a summary's or a left-out note's metadata: how many older user messages it could not carry.
OLDER_KEY = "older_user_messages"
_HEADING = re.compile(r"^\s*\d\.\s*([^:：]+)[:：]", re.M)
_NUMBERED = re.compile(r"^\s*[1-6]\.\s", re.M)


@dataclass
class SummaryReply:
    """What the summary request brought back: the summary, how many of the oldest messages it had to
    leave out, and the request's usage."""

    summary: str
    left_out: int
    input_tokens: int
    output_tokens: int
    cache_hit_tokens: int


# --- asking and reading ------------------------------------------------------------------------


def compaction_prompt(lang: str, extra: str = "", incremental: bool = False, standing: str = "") -> str:
    """The built-in text, the project's and user's standing instructions (memory files' and settings'),
    then the instructions given to this /compact."""
    prompt = load_prompt("compact", lang)
    if incremental:
        prompt = load_prompt("compact_update", lang) + "\n\n" + prompt
    if standing.strip():
        prompt += "\n\n" + load_prompt("compact_standing", lang).format(standing=standing.strip())
    if extra.strip():
        prompt += "\n\n" + load_prompt("compact_extra", lang).format(extra=extra.strip())
    return prompt


def extract_summary(text: str) -> str:
    """Drop <analysis>, take <summary> (to the end if it was cut off before its closing tag), else
    the whole text; strip stray tags."""
    text = re.sub(r"<analysis>.*?</analysis>", "", text, flags=re.DOTALL)
    match = re.search(r"<summary>(.*)</summary>", text, re.DOTALL) or re.search(r"<summary>(.*)", text, re.DOTALL)
    return re.sub(r"</?(analysis|summary)>", "", match.group(1) if match else text).strip()


@cache
def section_titles() -> tuple[str, ...]:
    """The sections the prompt asks for, English and Chinese, by their first words (models write
    "Primary requests:" for "Primary requests and intent")."""
    prompts = load_prompt("compact", "en") + "\n" + load_prompt("compact", "zh")
    titles = [m.group(1).strip().lower() for m in _HEADING.finditer(prompts)]
    return tuple(" ".join(t.split()[:2]) if " " in t else t[:4] for t in titles)


def is_summary_shaped(reply: str) -> bool:
    """Whether a reply is a summary at all (its block, a numbered section or a section's title): a small
    model may answer "I'm ready to help. What's the task?", which would replace the whole conversation."""
    lowered = " ".join(reply.lower().split())
    return "<summary>" in reply or bool(_NUMBERED.search(reply)) or any(t in lowered for t in section_titles())


def has_next_step(summary: str) -> bool:
    """Whether a summary has section 6, "current work and next step" (numbered, or by its title's
    first words in either language): without it the work resumes from a guess."""
    lowered, titles = " ".join(summary.lower().split()), section_titles()
    return bool(re.search(r"^\s*6[.)、]", summary, re.M)) or any(
        title in lowered for title in (titles[5], titles[len(titles) // 2 + 5])
    )


def strip_wrapper(summary: str) -> str:
    """The model's summary without the lines of our own summary message it copied (header, transcript
    note, titles): quoting the previous summary message would nest it one level deeper each time."""
    fixed: list[str] = []
    for lang in ("en", "zh"):
        words = sections(lang)
        lines = load_prompt("summary_wrapper", lang).splitlines() + load_prompt("summary_users", lang).splitlines()
        lines += [words["user_messages_title"], words["files_title"], words["archives_more"], words["task_title"]]
        fixed += [text for line in lines if len(text := line.split("{")[0].strip()) >= 12]
    return "\n".join(line for line in summary.splitlines() if not any(text in line for text in fixed)).strip()


@cache
def sections(lang: str) -> dict[str, str]:
    return dict(line.split(": ", 1) for line in load_prompt("summary_sections", lang).splitlines() if ": " in line)


# --- what survives -----------------------------------------------------------------------------


def user_messages(messages: Sequence[ModelMessage]) -> list[str]:
    """The user's own words, oldest first: prompts only (not tool results, summaries or hooks' text;
    a note where messages were left out gives back the user's words it carries)."""
    found: list[str] = []
    for message in messages:
        if message.kind != "request" or is_summary(message) or is_hook_message(message):
            continue
        if is_agent_note(message.metadata):
            found += [m for m in (message.metadata or {}).get("user_messages") or [] if isinstance(m, str)]
            continue
        found += [
            p.content.strip()
            for p in message.parts
            if p.part_kind == "user-prompt" and isinstance(p.content, str) and p.content.strip()
        ]
    return found


def older_user_count(messages: Sequence[ModelMessage]) -> int:
    """How many user messages the summaries and notes among `messages` could not carry at all."""
    return sum(n for m in messages if isinstance(n := (getattr(m, "metadata", None) or {}).get(OLDER_KEY), int))


def carried_and_older(messages: Sequence[str], budget: int, lang: str) -> tuple[list[str], int]:
    """The user messages a summary or a left-out note carries, oldest first: newest first verbatim
    within `budget` tokens (a long one cut to USER_MESSAGE_MAX_CHARS, the one that crosses the budget
    cut to what is left), then the older ones by their first words within half as much again; and
    how many are left that not even so fit (the transcripts have them)."""
    cut = sections(lang)["cut"]
    newest = [_cut(m, USER_MESSAGE_MAX_CHARS, cut) for m in reversed(messages)]
    # Counted lazily, a batch at a time: a long session has thousands.
    sizes = chain.from_iterable(tokens.count_texts(newest[i : i + 128]) for i in range(0, len(newest), 128))
    kept: list[str] = []
    left = budget
    for text, size in zip(newest, sizes, strict=True):
        if size > left:
            kept += [_cut_to(text, left, cut)] if left >= MIN_CUT_TOKENS else []
            break
        left -= size
        kept.append(text)
    older, heads, left = messages[: len(messages) - len(kept)], [], budget // 2
    for message in reversed(older):
        for chars in (HEAD_CHARS, SHORT_HEAD_CHARS):
            head = _cut(message, chars, cut)
            if (size := tokens.count_text(head)) <= left:
                break
        else:
            break
        left -= size
        heads.append(head)
    return heads[::-1] + kept[::-1], len(older) - len(heads)


def _cut(text: str, chars: int, marker: str) -> str:
    return text if len(text) <= chars else text[:chars] + " " + marker.format(n=len(text) - chars)


def _cut_to(text: str, budget: int, marker: str) -> str:
    """`text` cut (marker included) to at most `budget` tokens."""
    original = _uncut(text, marker)
    chars = len(original) * budget // max(1, tokens.count_text(original))
    while chars > 0 and tokens.count_text(cut := _cut(original, chars, marker)) > budget:
        chars = int(chars * 0.8)
    return cut if chars > 0 else _cut(original, 0, marker)


def _uncut(text: str, marker: str) -> str:
    """The part of a carried message before an earlier cut marker (if it was cut)."""
    head = marker.split("{")[0]
    return text.split(" " + head)[0] if head else text


def missing_user_messages(summary: str, carried: Sequence[str], lang: str) -> list[str]:
    """The carried user messages the summary does not quote verbatim (up to a cut marker)."""
    marker, flat = sections(lang)["cut"], " ".join(summary.split())
    return [text for text in carried if " ".join(_uncut(text, marker).split()) not in flat]


@dataclass
class FileRecord:
    created: bool = False
    edits: int = 0
    writes: int = 0

    def describe(self, lang: str, exists: bool) -> str:
        words = sections(lang)
        parts = [words["created"]] if self.created else []
        if self.edits:
            parts.append(words["edited"].format(n=self.edits))
        if self.writes and not (self.created and self.writes == 1):
            parts.append(words["written"].format(n=self.writes))
        return ", ".join(parts + ([] if exists else [words["deleted"]]))


def files_touched(messages: Sequence[ModelMessage], earlier: dict[str, dict] | None = None) -> dict[str, FileRecord]:
    """Files the agent changed, from the tool calls and their successful results in the history."""
    records = {path: FileRecord(**fields) for path, fields in (earlier or {}).items()}
    calls = {}
    for message in messages:
        for part in message.parts:
            if part.part_kind == "tool-call" and part.tool_name in ("write_file", "edit_file"):
                calls[part.tool_call_id] = part
            elif (call := calls.pop(getattr(part, "tool_call_id", ""), None)) and part.part_kind == "tool-return":
                result, path = part.model_response_str(), str(call.args_as_dict().get("path", ""))
                if not path or is_error_text(result):
                    continue
                record = records.setdefault(path, FileRecord())
                if call.tool_name == "edit_file":
                    record.edits += 1
                else:
                    record.writes += 1
                    record.created = record.created or result.lower().startswith("created")
    return records


# --- the messages a rebuilt history opens with -------------------------------------------------


@dataclass
class SummaryParts:
    summary: str
    archives: list[str]
    # Every user message the summary guarantees (carried to the next compaction in metadata).
    user_messages: list[str] = field(default_factory=list)
    files: dict[str, FileRecord] = field(default_factory=dict)
    left_out: int = 0
    older_user_messages: int = 0  # not even named by their first words here: in the transcripts


def summary_parts(
    history: Sequence[ModelMessage],
    tail: Sequence[ModelMessage],
    summary: str,
    left_out: int,
    user_budget: int,
    lang: str,
) -> SummaryParts | None:
    """The summary message's parts for compacting `history` but `tail`: the model's summary, every user
    message so far (across any number of compactions) within `user_budget`, the files touched, the
    archives of earlier compactions; None when the summary is empty."""
    summary = strip_wrapper(summary)
    if not summary:
        return None
    kept = {id(m) for m in tail}
    compacted = [m for m in history if id(m) not in kept]
    earlier = previous_summary(history)
    meta = (earlier.metadata or {}) if earlier else {}
    everyone = [m for m in meta.get("user_messages") or [] if isinstance(m, str)] + user_messages(compacted)
    carried, older = carried_and_older(everyone, user_budget, lang)
    return SummaryParts(
        summary,
        list(meta.get("archives", [])),
        carried,
        files_touched(compacted, meta.get("files")),
        left_out,
        older + older_user_count(compacted),
    )


def summary_messages(
    parts: SummaryParts, lang: str, gone: Collection[str] = ()
) -> tuple[list[ModelRequest], ModelRequest]:
    """The carried messages (a fixed line, then the user's messages verbatim, oldest first: a later
    compaction only extends the list, so the requests after it share this start) and the summary
    message: the files changed (`gone`: those deleted since), the summary, the transcripts. Marked in
    metadata, so later compactions find the previous summary, its archives and files."""
    from pydantic_ai.messages import ModelRequest, UserPromptPart

    words = sections(lang)
    texts = [load_prompt("summary_users", lang).strip()]
    if parts.user_messages:
        quoted = "\n".join(f"- {m}" for m in parts.user_messages)
        older = "\n" + words["older_users"].format(n=parts.older_user_messages) if parts.older_user_messages else ""
        texts.append(f"## {words['user_messages_title']}\n{quoted}{older}")
    carried = [ModelRequest(parts=[UserPromptPart(content=text)], metadata={NOTE_KEY: CARRIED}) for text in texts]
    text = ""
    if parts.files:
        lines = [f"- {path}: {record.describe(lang, path not in gone)}" for path, record in sorted(parts.files.items())]
        text += f"## {words['files_title']}\n" + "\n".join(lines) + "\n\n"
    body = parts.summary + ("\n\n" + words["left_out"].format(n=parts.left_out) if parts.left_out else "")
    text += load_prompt("summary_wrapper", lang).format(summary=body, transcript=(parts.archives or [""])[-1])
    if len(parts.archives) > 1:
        text += "\n" + words["archives_more"] + "\n" + "\n".join(f"- {a}" for a in parts.archives[-ARCHIVES_SHOWN:])
    metadata = {
        SUMMARY_KEY: parts.summary,
        "archives": parts.archives,
        "files": {path: asdict(record) for path, record in parts.files.items()},
        "user_messages": parts.user_messages,
        OLDER_KEY: parts.older_user_messages,
    }
    return carried, ModelRequest(parts=[UserPromptPart(content=text)], metadata=metadata)


def head_end(messages: Sequence[ModelMessage]) -> int:
    """Where the head a compaction rebuilt ends (0 if `messages` do not start with one): the carried
    user messages and the summary (the restored files follow it, as clearable as any tool result); in
    a session written before that layout, the summary alone. What fits a history to the window keeps
    the head whole, and a note of left-out messages goes right after it."""
    if not messages or not is_summary(messages[0]):
        return 0
    return next((i + 1 for i, m in enumerate(messages) if summary_text(m) is not None), 1)


def previous_summary(history: Sequence[ModelMessage]) -> ModelRequest | None:
    """The summary message (the one with the metadata), not the carried messages before it."""
    return next((m for m in history if summary_text(m) is not None), None)  # type: ignore[return-value]
