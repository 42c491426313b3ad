"""/export: the conversation as Markdown, as a reader wants it: the user's messages, the answers, and
each tool call with the start of its result (the session file keeps everything whole)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from agent.text.i18n import t

RESULT_CHARS = 2_000  # of a tool's result in the export; a file read whole would drown the conversation


def _fenced(text: str) -> str:
    """`text` in a code fence longer than any run of backticks it holds."""
    longest = max((len(run) for run in text.split("\n") if set(run) == {"`"}), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}\n{text}\n{fence}"


def _cut(text: str, lang: str) -> str:
    if len(text) <= RESULT_CHARS:
        return text
    return text[:RESULT_CHARS] + "\n" + t("export_cut", lang, n=len(text) - RESULT_CHARS)


def conversation_markdown(history: Sequence[Any], lang: str) -> str:
    from pydantic_ai.messages import (
        ModelRequest,
        ModelResponse,
        TextPart,
        ToolCallPart,
        ToolReturnPart,
        UserPromptPart,
    )

    out = [f"# {t('export_heading', lang)}", ""]
    for message in history:
        if isinstance(message, ModelRequest):
            for part in message.parts:
                if isinstance(part, UserPromptPart):
                    text = part.content if isinstance(part.content, str) else t("export_not_text", lang)
                    out += [f"## {t('export_user', lang)}", "", text, ""]
                elif isinstance(part, ToolReturnPart):
                    out += [_fenced(_cut(part.model_response_str(), lang)), ""]
        elif isinstance(message, ModelResponse):
            for part in message.parts:
                if isinstance(part, TextPart) and part.content.strip():
                    out += [f"## {t('export_assistant', lang)}", "", part.content, ""]
                elif isinstance(part, ToolCallPart):
                    args = json.dumps(part.args_as_dict(), ensure_ascii=False)
                    out += [f"**{part.tool_name}** `{args[:300]}`", ""]
    return "\n".join(out).rstrip() + "\n"
