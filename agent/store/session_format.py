"""The session file's format version, and the numbered upgrades that bring an older file to it.

A session file is JSONL: a header line `{"coding_agent_session": N}`, then one pydantic-ai message per
line. When what a line holds changes (our metadata, or pydantic-ai's message schema on an upgrade),
CURRENT goes up by one and UPGRADES gets a function that turns the lines of the version before into
this one's, as simonw/llm's migrations do for its database: an old file is upgraded step by step when
read, never guessed at. A file with no header is version 0 (written before 2026-12-01).
`tests/fixtures/session_v0.jsonl`, a real file of version 0, must keep loading.
"""

from __future__ import annotations

import json
from collections.abc import Callable

HEADER_KEY = "coding_agent_session"
CURRENT = 1

Lines = list[bytes]


def upgrade_0(lines: Lines) -> Lines:
    """0 → 1: the lines are pydantic-ai 2.68's messages as they were; version 1 only adds the header."""
    return lines


# UPGRADES[n] turns the message lines of version n into those of version n + 1.
UPGRADES: list[Callable[[Lines], Lines]] = [upgrade_0]


def header() -> bytes:
    return json.dumps({HEADER_KEY: CURRENT}).encode() + b"\n"


def version_of(line: bytes) -> int | None:
    """The version a header line names, or None when the line is not a header (a message)."""
    if not line.lstrip().startswith(b'{"' + HEADER_KEY.encode() + b'"'):
        return None
    try:
        data = json.loads(line)
    except ValueError:
        return None
    version = data.get(HEADER_KEY) if isinstance(data, dict) else None
    return version if isinstance(version, int) and not isinstance(version, bool) and version >= 0 else None


def message_lines(lines: list[tuple[int, bytes]]) -> tuple[int, list[tuple[int, bytes]]]:
    """A file's (line number, line) list read: its version, and its message lines at the current
    version (numbered as in the file unless an upgrade changed how many there are)."""
    version = version_of(lines[0][1]) if lines else CURRENT
    if version is not None:
        return version, lines[1:] if version >= CURRENT else _upgraded(version, lines[1:])
    return 0, _upgraded(0, lines)


def _upgraded(version: int, lines: list[tuple[int, bytes]]) -> list[tuple[int, bytes]]:
    upgraded = upgrade(version, [raw for _, raw in lines])
    numbers = [n for n, _ in lines] if len(upgraded) == len(lines) else range(1, len(upgraded) + 1)
    return list(zip(numbers, upgraded, strict=True))


def older(start: bytes) -> bool:
    """Whether a file beginning with `start` is of an older version than this code writes."""
    version = version_of(start.split(b"\n")[0])
    return version is None or version < CURRENT


def upgraded_file(data: bytes) -> bytes:
    """A whole file's bytes at the current version: its header, then its message lines upgraded
    (a line an upgrade cannot read, such as a torn last line, it passes on as it is)."""
    lines = [line for line in data.split(b"\n") if line.strip()]
    version = version_of(lines[0]) if lines else None
    if version is not None:
        lines = lines[1:]
    return header() + b"".join(line + b"\n" for line in upgrade(version or 0, lines))


def upgrade(version: int, lines: Lines) -> Lines:
    """The message lines of a file of `version` as the current version writes them. A newer file's
    lines are left as they are: the loader reads what it can, and says the file is newer."""
    for step in range(version, CURRENT):
        lines = UPGRADES[step](lines)
    return lines
