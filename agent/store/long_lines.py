"""Session lines too large to resume whole.

A message of 100 MB (a pasted log, say) took 204 s and 6.9 GB to resume, nearly all of it the
tokenizer counting text that no model window could hold anyway (1M tokens is a few MB). On load,
a line over MAX_LINE_BYTES has each of its long texts cut to its start and end around a marker, so
the conversation keeps its shape (a user message stays one, a tool result keeps its call) and the
user is told. The file itself is not changed; a later compaction archives it whole first.
"""

from __future__ import annotations

import json
from typing import Any

MAX_LINE_BYTES = 4 << 20
KEEP_CHARS = 200_000  # of one text in such a line: twice what read_file returns at once


def _cut(value: Any, cut: list[int]) -> Any:
    if isinstance(value, str) and len(value) > KEEP_CHARS:
        head = KEEP_CHARS // 2
        cut.append(len(value) - KEEP_CHARS)
        marker = f"\n[... {len(value) - KEEP_CHARS:,} characters cut when the session was loaded ...]\n"
        return value[:head] + marker + value[len(value) - (KEEP_CHARS - head) :]
    if isinstance(value, list):
        return [_cut(v, cut) for v in value]
    if isinstance(value, dict):
        return {k: _cut(v, cut) for k, v in value.items()}
    return value


def shrink(raw: bytes) -> tuple[bytes, dict[str, object] | None]:
    """`raw` with its long texts cut if the line is over the limit, and what was done (or None):
    the values of the i18n text "cut_line"."""
    if len(raw) <= MAX_LINE_BYTES:
        return raw, None
    try:
        data = json.loads(raw)
    except ValueError:
        return raw, None  # not JSON: the loader reports it like any bad line
    cut: list[int] = []
    data = _cut(data, cut)
    if not cut:
        return raw, None
    note = {"mb": len(raw) / (1 << 20), "texts": len(cut), "keep": KEEP_CHARS, "left_out": sum(cut)}
    return json.dumps(data, ensure_ascii=False).encode(), note
