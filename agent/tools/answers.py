"""A tool's failure (reported as one line starting "Error": agent.marks.is_error_text), and how a long text is cut."""

from __future__ import annotations


class ToolError(Exception):
    """A failure to report to the model as "Error: <message>"."""


def cap_text(text: str, limit: int) -> str:
    """`text` if it fits in `limit` characters, else its head and tail around a marker."""
    if len(text) <= limit:
        return text
    head = limit // 2
    tail = limit - head
    cut = len(text) - head - tail
    return f"{text[:head]}\n[... {cut} characters cut ...]\n{text[len(text) - tail :]}"
