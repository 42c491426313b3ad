"""The summary: the compaction prompt, extracting the model's answer, and the summary message.

What must survive a compaction is checked mechanically here rather than trusted to the model:
every user message (verbatim) and every file the agent changed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from agent.text.prompts import load_prompt
from agent.tokens import count as tokens
from session import NOTE_KEY, SUMMARY_KEY

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage, ModelRequest

# One very long paste must not take the whole budget (the budget itself: agent.compaction.budgets).
USER_MESSAGE_MAX_CHARS = 8_000
# Transcripts named in the summary message, newest last.
ARCHIVES_SHOWN = 5
# A message is cut to fit what is left of the budget only if this much is left; else it goes.
MIN_CUT_TOKENS = 32
# Marks (NOTE_KEY) the message that opens a rebuilt history with the user messages carried.
CARRIED = "carried"


@dataclass
class SummaryReply:
    """What the compaction's LLM call brought back (agent.compaction.summarizer): the summary, how many of the
    oldest messages it had to leave out, and the call's usage."""

    summary: str
    left_out: int
    input_tokens: int
    output_tokens: int
    cache_hit_tokens: int


def extract_summary(text: str) -> str:
    """Drop <analysis>, take <summary>, else the whole text; strip stray tags (the design)."""
    text = re.sub(r"<analysis>.*?</analysis>", "", text, flags=re.DOTALL)
    match = re.search(r"<summary>(.*)</summary>", text, re.DOTALL)
    if match is None:
        match = re.search(r"<summary>(.*)", text, re.DOTALL)  # cut off before the closing tag
    text = match.group(1) if match else text
    return re.sub(r"</?(analysis|summary)>", "", text).strip()


def compaction_prompt(lang: str, extra: str = "", incremental: bool = False) -> str:
    prompt = load_prompt("compact", lang)
    if incremental:
        prompt = load_prompt("compact_update", lang) + "\n\n" + prompt
    if extra.strip():
        prompt += "\n\n" + load_prompt("compact_extra", lang).format(extra=extra.strip())
    return prompt


def _sections(lang: str) -> dict[str, str]:
    lines = load_prompt("summary_sections", lang).splitlines()
    return dict(line.split(": ", 1) for line in lines if ": " in line)


# --- what survives -------------------------------------------------------------------------


def user_messages(messages: Sequence[ModelMessage]) -> list[str]:
    """The user's own words, oldest first: prompts only (not tool results, not summaries, not our
    notes; a note where messages were left out gives back the user's words it carries)."""
    from pydantic_ai.messages import ModelRequest, UserPromptPart

    from agent.tools.hooks import is_hook_message
    from session import is_agent_note

    found = []
    for message in messages:
        if not isinstance(message, ModelRequest) or is_summary(message) or is_hook_message(message):
            continue
        if is_agent_note(message.metadata):
            found += [m for m in (message.metadata or {}).get("user_messages") or [] if isinstance(m, str)]
            continue
        for part in message.parts:
            if isinstance(part, UserPromptPart) and isinstance(part.content, str) and part.content.strip():
                found.append(part.content.strip())
    return found


def older_user_count(messages: Sequence[ModelMessage]) -> int:
    """How many user messages the summaries and notes among `messages` could not carry at all."""
    older = ((getattr(m, "metadata", None) or {}).get(OLDER_KEY) for m in messages)
    return sum(n for n in older if isinstance(n, int))


# In a summary's or a left-out note's metadata: how many older user messages it could not carry.
OLDER_KEY = "older_user_messages"


def _normal(text: str) -> str:
    return " ".join(text.split())


def _cut(text: str, chars: int, marker: str) -> str:
    return text[:chars] + " " + marker.format(n=len(text) - chars)


def carried_user_messages(messages: Sequence[str], budget: int, lang: str) -> list[str]:
    """The user messages a summary guarantees verbatim, oldest first: newest first within `budget`
    tokens; a long one is cut (with the cut marker) to USER_MESSAGE_MAX_CHARS, and the one that
    crosses the budget is cut to what is left. `messages` are every user message so far: the
    previous summary's carried list, then those since; so the guarantee holds across compactions."""
    marker = _sections(lang)["cut"]
    newest_first = [_cut(m, USER_MESSAGE_MAX_CHARS, marker) if len(m) > USER_MESSAGE_MAX_CHARS else m
                    for m in reversed(messages)]
    kept: list[str] = []
    left = budget
    # Counted a batch at a time (tokens.count_texts): a long session has thousands of them.
    for start in range(0, len(newest_first), 128):
        chunk = newest_first[start : start + 128]
        for text, cost in zip(chunk, tokens.count_texts(chunk), strict=True):
            if cost > left:
                if left >= MIN_CUT_TOKENS:
                    kept.append(_cut_to(text, left, marker))
                return kept[::-1]
            left -= cost
            kept.append(text)
    return kept[::-1]


# A user message beyond the budget is still named by its first words and the cut marker; by fewer
# words when the room left is small (a 4k window has a few dozen tokens for them), so that the
# newest of the older ones are named before none is.
HEAD_CHARS, SHORT_HEAD_CHARS = 80, 24


def carried_and_older(messages: Sequence[str], budget: int, lang: str) -> tuple[list[str], int]:
    """The user's messages a summary or a left-out note carries, oldest first: the newest verbatim
    within `budget` (carried_user_messages), the older ones by their first words and the cut marker
    within half as much again; and how many are left that not even so fit (the transcripts have
    them, and the text says how many)."""
    carried = carried_user_messages(messages, budget, lang)
    older = messages[: len(messages) - len(carried)]
    heads = message_heads(older, budget // 2, lang)
    return heads + carried, len(older) - len(heads)


def message_heads(messages: Sequence[str], budget: int, lang: str) -> list[str]:
    """The newest of `messages` as their first words and the cut marker, within `budget` tokens:
    what stands for user messages older than a budget holds verbatim. Newest first, each as long a
    head as fits; the first that fits not even shortened ends the list (only the oldest go)."""
    marker = _sections(lang)["cut"]
    kept: list[str] = []
    left = budget
    for message in reversed(messages):
        for chars in (HEAD_CHARS, SHORT_HEAD_CHARS):
            head = _cut(message, chars, marker) if len(message) > chars else message
            cost = tokens.count_text(head)
            if cost <= left:
                break
        else:
            break
        left -= cost
        kept.append(head)
    return kept[::-1]


def _cut_to(text: str, budget: int, marker: str) -> str:
    """`text` cut (marker included) to at most `budget` tokens."""
    original = _uncut(text, marker)
    chars = len(original) * budget // max(1, tokens.count_text(original))
    while chars > 0:
        cut = _cut(original, chars, marker)
        if tokens.count_text(cut) <= budget:
            return cut
        chars = int(chars * 0.8)
    return _cut(original, 0, marker)


def _uncut(text: str, marker: str) -> str:
    """The part of a carried message before an earlier cut marker (if it was cut)."""
    head = marker.split("{")[0]
    return text.split(" " + head)[0] if head and (" " + head) in text else text


def missing_user_messages(summary: str, carried: Sequence[str], lang: str) -> list[str]:
    """The carried user messages the summary does not quote verbatim (up to a cut marker)."""
    marker = _sections(lang)["cut"]
    flat = _normal(summary)
    return [text for text in carried if _normal(_uncut(text, marker)) not in flat]


def strip_wrapper(summary: str) -> str:
    """The model's summary without the lines of our own summary message that it copied (its
    header, transcript note, section titles): quoting the previous summary message whole would
    nest it, header and all, one level deeper at every compaction."""
    fixed: list[str] = []
    for lang in ("en", "zh"):
        lines = load_prompt("summary_wrapper", lang).splitlines() + load_prompt("summary_users", lang).splitlines()
        words = _sections(lang)
        lines += [words["user_messages_title"], words["files_title"], words["archives_more"]]
        for line in lines:
            text = line.split("{")[0].strip()
            if len(text) >= 12:
                fixed.append(text)
    kept = [line for line in summary.splitlines() if not any(text in line for text in fixed)]
    return "\n".join(kept).strip()


@dataclass
class FileRecord:
    created: bool = False
    edits: int = 0
    writes: int = 0

    def describe(self, lang: str, exists: bool) -> str:
        words = _sections(lang)
        parts = []
        if self.created:
            parts.append(words["created"])
        if self.edits:
            parts.append(words["edited"].format(n=self.edits))
        if self.writes and not (self.created and self.writes == 1):
            parts.append(words["written"].format(n=self.writes))
        if not exists:
            parts.append(words["deleted"])
        return ", ".join(parts)


def files_touched(messages: Sequence[ModelMessage], earlier: dict[str, dict] | None = None) -> dict[str, FileRecord]:
    """Files the agent changed, from the tool calls and their successful results in the history."""
    from pydantic_ai.messages import ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart

    from agent.tools.answers import is_error_text

    records = {path: FileRecord(**fields) for path, fields in (earlier or {}).items()}
    calls: dict[str, ToolCallPart] = {}
    for message in messages:
        if isinstance(message, ModelResponse):
            for part in message.parts:
                if isinstance(part, ToolCallPart) and part.tool_name in ("write_file", "edit_file"):
                    calls[part.tool_call_id] = part
        elif isinstance(message, ModelRequest):
            for part in message.parts:
                call = calls.pop(getattr(part, "tool_call_id", ""), None)
                if call is None or not isinstance(part, ToolReturnPart):
                    continue
                result = part.model_response_str()
                path = str(call.args_as_dict().get("path", ""))
                if not path or is_error_text(result):
                    continue
                record = records.setdefault(path, FileRecord())
                if call.tool_name == "edit_file":
                    record.edits += 1
                else:
                    record.writes += 1
                    record.created = record.created or result.lower().startswith("created")
    return records


# --- the summary message -------------------------------------------------------------------


@dataclass
class SummaryParts:
    summary: str
    archives: list[str]
    missing_user_messages: list[str] = field(default_factory=list)
    # Every user message the summary guarantees (carried to the next compaction in metadata).
    user_messages: list[str] = field(default_factory=list)
    files: dict[str, FileRecord] = field(default_factory=dict)
    left_out: int = 0
    older_user_messages: int = 0  # not even named by their first words here: in the transcripts


def render_carried(parts: SummaryParts, lang: str) -> tuple[str, str]:
    """The start of a rebuilt history, laid out for the provider's prefix cache: a fixed line, and
    the user's messages verbatim, oldest first ("" if none). A later compaction only extends the
    list (while the budget holds), so the request after it shares this start with the requests
    after this one."""
    words = _sections(lang)
    quoted = "\n".join(f"- {m}" for m in parts.user_messages)
    if parts.older_user_messages:
        quoted += "\n" + words["older_users"].format(n=parts.older_user_messages)
    return (load_prompt("summary_users", lang).strip(),
            f"## {words['user_messages_title']}\n{quoted}" if parts.user_messages else "")


def render_summary(parts: SummaryParts, lang: str, workspace: Path) -> str:
    """What every compaction rewrites, so it comes last (after the restored files): the files
    changed, the summary, the transcripts."""
    words = _sections(lang)
    text = ""
    if parts.files:
        lines = []
        for path, record in sorted(parts.files.items()):
            exists = (workspace / path).exists()
            lines.append(f"- {path}: {record.describe(lang, exists)}")
        text += f"## {words['files_title']}\n" + "\n".join(lines) + "\n\n"
    body = parts.summary
    if parts.left_out:
        body += "\n\n" + words["left_out"].format(n=parts.left_out)
    transcript = parts.archives[-1] if parts.archives else ""
    text += load_prompt("summary_wrapper", lang).format(summary=body, transcript=transcript)
    if len(parts.archives) > 1:
        # The newest few: listing every one would grow the summary message at every compaction
        # (the others are in the same folder, and in the metadata).
        shown = parts.archives[-ARCHIVES_SHOWN:]
        text += "\n" + words["archives_more"] + "\n" + "\n".join(f"- {a}" for a in shown)
    return text


def build_carried_messages(parts: SummaryParts, lang: str) -> list[ModelRequest]:
    """The fixed line and the user messages carried (render_carried), each a message marked as the
    agent's own: the restored files may go between them (agent.compaction.rebuild.compacted_history)."""
    from pydantic_ai.messages import ModelRequest, UserPromptPart

    return [ModelRequest(parts=[UserPromptPart(content=text)], metadata={NOTE_KEY: CARRIED})
            for text in render_carried(parts, lang) if text]


def build_summary_message(parts: SummaryParts, lang: str, workspace: Path) -> ModelRequest:
    """The design's summary message: a user prompt, marked in metadata so later compactions find
    the previous summary (to update it), the archives (to list them all) and the files touched."""
    from pydantic_ai.messages import ModelRequest, UserPromptPart

    files = {p: {"created": r.created, "edits": r.edits, "writes": r.writes} for p, r in parts.files.items()}
    metadata = {SUMMARY_KEY: parts.summary, "archives": parts.archives, "files": files,
                "user_messages": parts.user_messages, OLDER_KEY: parts.older_user_messages}
    return ModelRequest(parts=[UserPromptPart(content=render_summary(parts, lang, workspace))], metadata=metadata)


def is_summary(message: ModelMessage) -> bool:
    """Whether `message` is a compaction's own text: its summary message, or the carried user
    messages that open the rebuilt history. The one rule (context, policy, tiers, undo, rewind, the
    overflow and the /context view call it); never the user's words."""
    metadata = getattr(message, "metadata", None) or {}
    return summary_text(message) is not None or metadata.get(NOTE_KEY) == CARRIED


def head_end(messages: Sequence[ModelMessage]) -> int:
    """Where the head a compaction rebuilt ends (0 if `messages` do not start with one): the carried
    user messages and the summary (the restored files follow it, as clearable as any tool result);
    or, in a session written before that layout, the summary alone. The one owner of "where the
    summary is": what fits a history to the window keeps the head whole, and a note of left-out
    messages goes right after it."""
    if not messages or not is_summary(messages[0]):
        return 0
    for index, message in enumerate(messages):
        if summary_text(message) is not None:
            return index + 1
    return 1


def summary_text(message: ModelMessage) -> str | None:
    """The summary a summary message carries, as the model wrote it; None for any other message."""
    text = (getattr(message, "metadata", None) or {}).get(SUMMARY_KEY)
    return text if isinstance(text, str) else None


def earlier_user_messages(summary: ModelMessage | None) -> list[str]:
    """The user messages a previous summary carried (none for a summary from before they were)."""
    carried = (getattr(summary, "metadata", None) or {}).get("user_messages") or []
    return [m for m in carried if isinstance(m, str)]


def previous_summary(history: Sequence[ModelMessage]) -> ModelRequest | None:
    """The summary message (the one with the metadata), not the carried messages before it."""
    for message in history:
        if summary_text(message) is not None:
            return message  # type: ignore[return-value]
    return None
