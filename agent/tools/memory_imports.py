"""`@path` imports in memory files, as Claude Code reads them: a word `@path` (relative to the file
that names it, absolute, or `~/...`) outside Markdown code spans and code blocks brings that file in,
and an imported file may import in turn, five hops deep at most. A file already in is not read again,
so a cycle ends where it closes.

A project's file is someone else's text: what it imports is confined to the workspace, as the model's
reads are (a cloned repository must not pull `~/.ssh/id_rsa` into the instructions). The user's own
files (`~/.claude/CLAUDE.md`, `~/.coding-agent/AGENTS.md`) may import from the user's home too. A file
the workspace holds is project text whoever imports it. Only regular files are read (no FIFO, no
device), each cut at the memory files' size limit. What is not imported, and why, is returned for
/memory and the start-up line; a word that names no file (`@someone`) is not an import at all.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from agent.config import claude_home, data_home
from agent.store.regular_file import open_regular

MAX_HOPS = 5  # Claude Code's depth: an import of an import ... five times
MAX_IMPORTED_CHARS = 100_000  # all the imports of a session together: one large tree must not eat the window

_FENCE = re.compile(r"^[ \t]*(```|~~~).*?^[ \t]*\1[^\n]*$", re.MULTILINE | re.DOTALL)
_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.DOTALL)
_IMPORT = re.compile(r"(?:^|(?<=\s))@((?:\\ |[^\s])+)")
_TRAILING = ".,;:!?)]}\"'"


@dataclass(frozen=True)
class Skipped:
    """An import that was not read: `why` is an i18n key's tail (memory_skip_<why>)."""

    name: str  # as the file wrote it
    importer: Path
    why: str  # "outside" | "not_regular" | "too_deep" | "too_large"


@dataclass(frozen=True)
class Imported:
    path: Path  # resolved
    text: str
    importer: Path
    project: bool  # someone else's text: its own imports are confined to the workspace


def import_names(text: str) -> list[str]:
    """The `@path` words of `text` outside code blocks and code spans, in order, once each."""
    bare = _SPAN.sub(" ", _FENCE.sub(" ", text))
    return list(dict.fromkeys(m.group(1).replace("\\ ", " ") for m in _IMPORT.finditer(bare)))


def _candidates(name: str, folder: Path) -> list[Path]:
    """Where `name` may point: as written, then without trailing punctuation (`see @README.md.`)."""
    names = [name]
    if (stripped := name.rstrip(_TRAILING)) and stripped != name:
        names.append(stripped)
    found = []
    for each in names:
        path = Path(each).expanduser() if each.startswith("~") else Path(each)
        found.append(path if path.is_absolute() else folder / path)
    return found


def _resolve(name: str, folder: Path) -> Path | None:
    for candidate in _candidates(name, folder):
        try:
            real = candidate.resolve(strict=True)
        except (OSError, RuntimeError):  # missing, a loop: not a file name (an @mention of a person)
            continue
        if not real.is_dir():
            return real
    return None


def _read(path: Path, limit: int) -> str | None:
    try:
        with open_regular(path) as f:  # no FIFO, no device: never blocks
            data = f.read(limit * 4)
    except OSError:
        return None
    return data.decode("utf-8", errors="replace")[:limit]


def user_roots() -> tuple[Path, ...]:
    """Where the user's own memory files may import from: their folders and their home."""
    roots = []
    for root in (claude_home(), data_home(), Path.home()):
        try:
            roots.append(root.resolve())
        except (OSError, RuntimeError):
            continue
    return tuple(roots)


class Importer:
    """Expands the imports of the session's memory files; one per load, so that a file comes in once
    whichever file names it first, and the size limit counts them all."""

    def __init__(self, workspace: Path, limit: int, seen: set[Path]) -> None:
        self.workspace = workspace.resolve()
        self.limit = limit
        self.seen = seen  # resolved paths already in the instructions
        self.room = MAX_IMPORTED_CHARS
        self.skipped: list[Skipped] = []

    def expand(self, path: Path, text: str, project: bool) -> list[Imported]:
        """The files `text` (the memory file at `path`) imports, depth first, each after its importer."""
        found: list[Imported] = []
        self._walk(path, text, project, 1, found.append)
        return found

    def _walk(self, path: Path, text: str, project: bool, hop: int, out: Callable[[Imported], None]) -> None:
        for name in import_names(text):
            real = _resolve(name, path.parent)
            if real is None or real in self.seen:
                continue  # no such file (not an import), or in already: a cycle ends here
            if (why := self._refusal(real, project, hop)) is not None:
                self.skipped.append(Skipped(name, path, why))
                continue
            body = _read(real, self.limit)
            if body is None:
                self.skipped.append(Skipped(name, path, "not_regular"))
                continue
            if len(body) > self.room:
                self.skipped.append(Skipped(name, path, "too_large"))
                continue
            self.room -= len(body)
            self.seen.add(real)
            inside = real.is_relative_to(self.workspace)
            out(Imported(real, body.strip(), path, project or inside))
            self._walk(real, body, project or inside, hop + 1, out)

    def _refusal(self, real: Path, project: bool, hop: int) -> str | None:
        roots = (self.workspace,) if project else (*user_roots(), self.workspace)
        if not any(real.is_relative_to(root) for root in roots):
            return "outside"
        if hop > MAX_HOPS:
            return "too_deep"
        return None
