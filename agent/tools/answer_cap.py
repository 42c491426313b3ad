"""An MCP tool's answer too big for the window, cut by read_file's rule before anything reads it:
the model gets its start, at most READ_CAP characters and one read's share of the window in tokens
(agent.tools.read_cap), and the whole answer is saved under the data folder (`tool-results/` of the
project's folder), where read_file reads it in parts. Its lines longer than read_file shows are
wrapped there, and a structured answer is indented, so every part of it can be read. Images and
audio stay as they are.

It works on the answer as the MCP session gives it (agent.tools.mcp_calls hooks it into the client),
in a worker thread: after it no library parses, validates or maps more than the start (pydantic-ai
parses a text that looks like JSON, fastmcp validates a structured answer against its schema), and
a big answer takes long to write and to count.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agent.tools.reading import LINE_CAP, READ_CAP

_BATCH = 2_000  # lines written at once


def saved_path(workspace: Path, session_id: str, name: str) -> Path:
    from agent.store.project_dirs import tool_results_dir

    return tool_results_dir(workspace) / f"{session_id}-{name}.txt"


def cap_result(result: Any, max_tokens: int, path: Path) -> Any:
    """`result` (an mcp_types.CallToolResult) if its text fits, else one whose text is its start and
    a note where the rest is, with its images and audio, and without its structured content."""
    import mcp_types

    binary = (mcp_types.ImageContent, mcp_types.AudioContent)
    kept = [part for part in result.content if isinstance(part, binary)]
    parts = [_text(part) for part in result.content if not isinstance(part, binary)]
    if not parts and result.structured_content is not None:
        parts = [json.dumps(result.structured_content, ensure_ascii=False, default=str)]
    if _fits(parts, max_tokens):
        return result
    if len(parts) == 1 and result.structured_content is not None and not result.content:
        parts = [json.dumps(result.structured_content, ensure_ascii=False, default=str, indent=1)]
    cut = _save("\n".join(parts), max_tokens, path)
    content = [mcp_types.TextContent(type="text", text=cut), *kept]
    return result.model_copy(update={"content": content, "structured_content": None})


def _text(part: Any) -> str:
    text = getattr(part, "text", None)  # TextContent
    if isinstance(text, str):
        return text
    text = getattr(getattr(part, "resource", None), "text", None)  # an embedded text resource
    return text if isinstance(text, str) else part.model_dump_json(by_alias=True, exclude_none=True)


def _fits(parts: list[str], max_tokens: int) -> bool:
    from agent.tokens import count as tokens

    if sum(len(part) + 1 for part in parts) > READ_CAP + 1:
        return False
    return tokens.count_text("\n".join(parts)) <= max_tokens


def _lines(text: str) -> Iterator[tuple[str, bool]]:
    """`text`'s lines, each with whether it is part of a longer one (wrapped at LINE_CAP)."""
    pos, n = 0, len(text)
    while pos < n:
        end = text.find("\n", pos)
        end = n if end < 0 else end
        while end - pos > LINE_CAP:
            yield text[pos : pos + LINE_CAP], True
            pos += LINE_CAP
        yield text[pos:end], False
        pos = end + 1


def _save(text: str, max_tokens: int, path: Path) -> str:
    from agent.store.project_dirs import private_dir
    from agent.tokens import count as tokens

    head: list[str] = []
    room, total, wrapped, batch = READ_CAP, 0, False, []
    private_dir(path.parent)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with open(fd, "w", encoding="utf-8", errors="replace", newline="") as out:
        for line, cut in _lines(text):
            total, wrapped = total + 1, wrapped or cut
            if room > len(line) and len(head) == total - 1:
                head.append(line)
                room -= len(line) + 1
            batch.append(line)
            if len(batch) >= _BATCH:
                out.write("\n".join(batch) + "\n")
                batch.clear()
        out.write("\n".join(batch) + "\n" if batch else "")

    def note(kept: int) -> str:
        shown = f"above are its lines 1-{kept} of {total:,}" if kept else "above is the start of its first line"
        return (
            f"[The answer is {len(text):,} characters, more than one answer may take ({max_tokens:,} tokens, "
            f"a share of the context window): {shown}. The whole answer is saved in {path}"
            f"{f' (lines over {LINE_CAP:,} characters wrapped)' if wrapped else ''}; read it with read_file, "
            f"offset={kept + 1} to continue.]"
        )

    room_tokens = max_tokens - tokens.count_text(note(total)) - 1  # `total` has the most digits `kept` may have
    used, kept = 0, 0
    for n in tokens.count_texts(head):
        if used + n + 1 > room_tokens:
            break
        used, kept = used + n + 1, kept + 1
    if kept == 0 and head:  # not even one line fits: as much of the first as does
        first = head[0]
        while first and tokens.count_text(first) > room_tokens:
            first = first[: len(first) // 2]
        return "\n".join([first, note(0)]) if first else note(0)
    return "\n".join([*head[:kept], note(kept)])
