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

from agent import tokens
from agent.prompts import load_prompt

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage, ModelRequest

# Codex CLI keeps up to 20,000 tokens of real user messages, newest first; so do we. Past that the
# oldest messages are left to the model's summary (and the archive).
USER_MESSAGES_BUDGET = 20_000
# One very long paste must not take the whole budget.
USER_MESSAGE_MAX_CHARS = 8_000


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
    """The user's own words, oldest first: prompts only (not tool results, not summaries)."""
    from pydantic_ai.messages import ModelRequest, UserPromptPart

    found = []
    for message in messages:
        if not isinstance(message, ModelRequest) or is_summary(message):
            continue
        for part in message.parts:
            if isinstance(part, UserPromptPart) and isinstance(part.content, str) and part.content.strip():
                found.append(part.content.strip())
    return found


def _normal(text: str) -> str:
    return " ".join(text.split())


def missing_user_messages(summary: str, messages: Sequence[str], lang: str) -> list[str]:
    """User messages (newest first within the budget) that the summary does not quote verbatim."""
    cut_marker = _sections(lang)["cut"]
    flat = _normal(summary)
    newest_first = [
        text[:USER_MESSAGE_MAX_CHARS] + " " + cut_marker.format(n=len(text) - USER_MESSAGE_MAX_CHARS)
        if len(text) > USER_MESSAGE_MAX_CHARS else text
        for text in reversed(messages)
    ]
    missing: list[str] = []
    budget = USER_MESSAGES_BUDGET
    # Counted a batch at a time (tokens.count_texts): a long session has thousands of them.
    for start in range(0, len(newest_first), 128):
        chunk = newest_first[start : start + 128]
        for text, cost in zip(chunk, tokens.count_texts(chunk), strict=True):
            if cost > budget:
                return missing[::-1]
            budget -= cost
            if _normal(text.split(cut_marker[:5])[0]) not in flat:
                missing.append(text)
    return missing[::-1]


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
                if not path or result.startswith("Error"):
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
    files: dict[str, FileRecord] = field(default_factory=dict)
    left_out: int = 0


def render_summary(parts: SummaryParts, lang: str, workspace: Path) -> str:
    words = _sections(lang)
    body = parts.summary
    if parts.missing_user_messages:
        quoted = "\n".join(f"- {m}" for m in parts.missing_user_messages)
        body += f"\n\n## {words['user_messages_title']}\n{quoted}"
    if parts.files:
        lines = []
        for path, record in sorted(parts.files.items()):
            exists = (workspace / path).exists()
            lines.append(f"- {path}: {record.describe(lang, exists)}")
        body += f"\n\n## {words['files_title']}\n" + "\n".join(lines)
    if parts.left_out:
        body += "\n\n" + words["left_out"].format(n=parts.left_out)
    transcript = parts.archives[-1] if parts.archives else ""
    text = load_prompt("summary_wrapper", lang).format(summary=body, transcript=transcript)
    if len(parts.archives) > 1:
        text += "\n" + words["archives_more"] + "\n" + "\n".join(f"- {a}" for a in parts.archives)
    return text


def build_summary_message(parts: SummaryParts, lang: str, workspace: Path) -> ModelRequest:
    """The design's summary message: a user prompt, marked in metadata so later compactions find
    the previous summary (to update it), the archives (to list them all) and the files touched."""
    from pydantic_ai.messages import ModelRequest, UserPromptPart

    files = {p: {"created": r.created, "edits": r.edits, "writes": r.writes} for p, r in parts.files.items()}
    metadata = {"compact_summary": parts.summary, "archives": parts.archives, "files": files}
    return ModelRequest(parts=[UserPromptPart(content=render_summary(parts, lang, workspace))], metadata=metadata)


def is_summary(message: ModelMessage) -> bool:
    metadata = getattr(message, "metadata", None)
    return bool(metadata and metadata.get("compact_summary") is not None)


def previous_summary(history: Sequence[ModelMessage]) -> ModelRequest | None:
    for message in history:
        if is_summary(message):
            return message  # type: ignore[return-value]
    return None
