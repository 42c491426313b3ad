"""Memory files, as Claude Code and Codex read them: `AGENTS.md` (or `CLAUDE.md` where a folder has no
AGENTS.md) in every folder from the repository's root down to the working directory, and the user's
`~/.coding-agent/AGENTS.md`. They are part of the instructions of every request, so no compaction
drops them.

A project's file is someone else's text: it is read with read_file's confinement (a symlink that leads
out of its folder is not followed, only a regular file is read) and cut at a size limit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.config import data_home
from agent.store.regular_file import read_confined  # noqa: F401 - the memory files' reader, also imported from here

MEMORY_NAMES = ("AGENTS.md", "CLAUDE.md")  # the first a folder has is read
MEMORY_LIMIT = 20_000  # characters of one file: a huge AGENTS.md must not eat the window
# The section of a memory file that every compaction prompt is given, as Claude Code documents it.
_COMPACT_HEADING = re.compile(r"^##\s*(compact instructions|压缩说明)\s*$", re.I | re.M)
_NEXT_HEADING = re.compile(r"^#{1,2}\s", re.M)


@dataclass(frozen=True)
class MemoryFile:
    path: Path
    text: str
    scope: str  # "user" | "project"


def repo_root(cwd: Path) -> Path:
    """The nearest folder up from `cwd` holding `.git`, else `cwd` itself."""
    for folder in (cwd, *cwd.parents):
        if (folder / ".git").exists():
            return folder
    return cwd


def _folder_file(folder: Path, root: Path) -> MemoryFile | None:
    for name in MEMORY_NAMES:
        if (folder / name).is_file() or (folder / name).is_symlink():
            text = read_confined(folder / name, root, MEMORY_LIMIT)
            if text is not None and text.strip():
                return MemoryFile(folder / name, text.strip(), "project")
            return None  # an AGENTS.md that cannot be read does not make way for CLAUDE.md
    return None


def load(workspace: Path) -> list[MemoryFile]:
    """The user's file first, then the project's from the root down (the nearest last: it wins)."""
    found = []
    user = data_home() / "AGENTS.md"
    if user.is_file() and (text := read_confined(user, data_home(), MEMORY_LIMIT)) and text.strip():
        found.append(MemoryFile(user, text.strip(), "user"))
    cwd = workspace.resolve()
    root = repo_root(cwd)
    folders = [cwd, *cwd.parents]
    folders = list(reversed(folders[: folders.index(root) + 1]))
    for folder in folders:
        # Each file is confined to the repository: a symlinked AGENTS.md that leads out is not read.
        if (memory := _folder_file(folder, root)) is not None:
            found.append(memory)
    return found


def instructions(workspace: Path, lang: str) -> str:
    """The system prompt with the memory files (AGENTS.md / CLAUDE.md from the repository's root
    down, and the user's) after it: what every request of the session is instructed with."""
    from agent.text.prompts import system_prompt

    found = load(workspace)
    return system_prompt(workspace, lang, "\n\n".join(f"# {memory.path}\n\n{memory.text}" for memory in found))


def compact_instructions(workspace: Path, settings: Any = None) -> str:
    """What every compaction is told besides its own prompt: each memory file's `## Compact
    Instructions` (or `## 压缩说明`) section, then the settings files' `compactInstructions`."""
    found = []
    for memory in load(workspace):
        for heading in _COMPACT_HEADING.finditer(memory.text):
            rest = memory.text[heading.end():]
            end = _NEXT_HEADING.search(rest)
            found.append(rest[: end.start() if end else len(rest)].strip())
    if settings is not None:
        found += [text for _layer, text in settings.section("compactInstructions")]
    return "\n\n".join(text for text in found if text)
