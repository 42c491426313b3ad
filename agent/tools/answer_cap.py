"""A tool answer too big for the window (an MCP server's), cut by read_file's rule: the model gets
its start, at most READ_CAP characters and one read's share of the window in tokens
(agent.tools.read_cap), and the whole answer is saved under the data folder
(`tool-results/` of the project's folder), where read_file reads it in parts. Its lines longer
than read_file shows are wrapped there, so every part of it can be read. Images in the answer stay
as they are. Runs in a worker thread: a big answer takes long to write and to count."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agent.tools.reading import LINE_CAP, READ_CAP

_BATCH = 2_000  # lines written at once


def saved_path(workspace: Path, session_id: str, call_id: str) -> Path:
    from agent.store.project_dirs import tool_results_dir

    return tool_results_dir(workspace) / f"{session_id}-{re.sub(r'[^A-Za-z0-9_-]', '_', call_id)[:80]}.txt"


def cap_answer(answer: Any, max_tokens: int, path: Path) -> Any:
    """`answer` if it fits, else its start and a note where the rest is (str, or [str, *images])."""
    from pydantic_ai.messages import BinaryContent, ToolReturn

    if isinstance(answer, ToolReturn):
        answer.return_value = cap_answer(answer.return_value, max_tokens, path)
        return answer
    parts = answer if isinstance(answer, list) else [answer]
    images = [p for p in parts if isinstance(p, BinaryContent)]
    texts = [p for p in parts if not isinstance(p, BinaryContent)]
    if _fits("\n".join(_text(p) for p in texts), max_tokens):
        return answer
    # Saved, structured answers are indented: their lines stay short enough for read_file.
    cut = _save("\n".join(_text(p, indent=1) for p in texts), max_tokens, path)
    return [cut, *images] if images else cut


def _text(part: Any, indent: int | None = None) -> str:
    return part if isinstance(part, str) else json.dumps(part, ensure_ascii=False, default=str, indent=indent)


def _fits(text: str, max_tokens: int) -> bool:
    from agent.tokens import count as tokens

    return len(text) <= READ_CAP and tokens.count_text(text) <= max_tokens


def _lines(text: str) -> Iterator[tuple[str, bool]]:
    """`text`'s lines, each with whether it is part of a longer one (wrapped at LINE_CAP)."""
    pos, n = 0, len(text)
    while pos < n:
        end = text.find("\n", pos)
        end = n if end < 0 else end
        while end - pos > LINE_CAP:
            yield text[pos:pos + LINE_CAP], True
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
        return (f"[The answer is {len(text):,} characters, more than one answer may take ({max_tokens:,} tokens, "
                f"a share of the context window): {shown}. The whole answer is saved in {path}"
                f"{f' (lines over {LINE_CAP:,} characters wrapped)' if wrapped else ''}; read it with read_file, "
                f"offset={kept + 1} to continue.]")

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
