"""How a tool's answer reports a failure (one line starting "Error"), and how a long text is cut."""

from __future__ import annotations


class ToolError(Exception):
    """A failure to report to the model as "Error: <message>"."""


ERROR_PREFIX = "Error: "


def is_error_text(answer: str) -> bool:
    """Whether a tool's answer reports a failure: the one rule (the loop's ToolResult, the summary's
    files touched). Not pydantic-ai's ToolFailed and `ToolReturnPart.outcome`: the sessions on disk
    hold failures as text with outcome "success", and would no longer be read as failures; and a
    ToolFailed reaches an OpenAI-compatible model wrapped in {"error": ...}, not as the plain line
    the tool descriptions promise."""
    return answer.startswith(ERROR_PREFIX)


def cap_text(text: str, limit: int) -> str:
    """`text` if it fits in `limit` characters, else its head and tail around a marker."""
    if len(text) <= limit:
        return text
    head = limit // 2
    tail = limit - head
    cut = len(text) - head - tail
    return f"{text[:head]}\n[... {cut} characters cut ...]\n{text[len(text) - tail:]}"
