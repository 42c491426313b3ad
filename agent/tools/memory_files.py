"""Memory files, as Claude Code and Codex read them: `AGENTS.md` (or `CLAUDE.md` where a folder has no
AGENTS.md) in every folder from the repository's root down to the working directory, the user's
`~/.claude/CLAUDE.md` and `~/.coding-agent/AGENTS.md`, and the files they import with `@path`
(agent.tools.memory_imports). They are part of the instructions of every request, so no compaction
drops them. A subfolder's own file comes in when the model reads there (agent.tools.nested_memory).

A project's file is someone else's text: it is read with read_file's confinement (a symlink that leads
out of its folder is not followed, only a regular file is read) and cut at a size limit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.config import data_home
from agent.store.regular_file import read_confined  # noqa: F401 - the memory files' reader, also imported from here

MEMORY_NAMES = ("AGENTS.md", "CLAUDE.md")  # the first a folder has is read
MEMORY_LIMIT = 20_000  # characters of one file: a huge AGENTS.md must not eat the window
# The section of a memory file that every compaction prompt is given, as Claude Code documents it.
_COMPACT_HEADING = re.compile(r"^##\s*(compact instructions|压缩说明)\s*$", re.I | re.M)
_NEXT_HEADING = re.compile(r"^#{1,2}\s", re.M)

if TYPE_CHECKING:
    from agent.tools.memory_imports import Skipped


@dataclass(frozen=True)
class MemoryFile:
    path: Path
    text: str
    scope: str  # "user" | "project"
    imported_by: Path | None = None  # the memory file whose `@path` brought it in


@dataclass(frozen=True)
class Memory:
    """What the session's instructions carry, and the imports that were not read (for /memory)."""

    files: list[MemoryFile]
    skipped: list[Skipped]


def repo_root(cwd: Path) -> Path:
    """The nearest folder up from `cwd` holding `.git`, else `cwd` itself."""
    for folder in (cwd, *cwd.parents):
        if (folder / ".git").exists():
            return folder
    return cwd


def folder_file(folder: Path, root: Path) -> MemoryFile | None:
    for name in MEMORY_NAMES:
        if (folder / name).is_file() or (folder / name).is_symlink():
            text = read_confined(folder / name, root, MEMORY_LIMIT)
            if text is not None and text.strip():
                return MemoryFile(folder / name, text.strip(), "project")
            return None  # an AGENTS.md that cannot be read does not make way for CLAUDE.md
    return None


def _user_files() -> list[MemoryFile]:
    """Claude Code's `~/.claude/CLAUDE.md`, then ours (the later wins). The user's own: it may be a
    link into their home (a dotfiles folder), never to a FIFO or a device."""
    from agent.config import claude_home
    from agent.tools.memory_imports import user_roots

    found = []
    for path in (claude_home() / "CLAUDE.md", data_home() / "AGENTS.md"):
        if not (path.is_file() or path.is_symlink()):
            continue
        text = next((text for root in user_roots() if (text := read_confined(path, root, MEMORY_LIMIT))), None)
        if text is not None and text.strip():
            found.append(MemoryFile(path, text.strip(), "user"))
    return found


def _project_files(workspace: Path) -> list[MemoryFile]:
    """From the repository's root down to `workspace` (the nearest last: it wins)."""
    cwd = workspace.resolve()
    root = repo_root(cwd)
    folders = [cwd, *cwd.parents]
    folders = list(reversed(folders[: folders.index(root) + 1]))
    # Each file is confined to the repository: a symlinked AGENTS.md that leads out is not read.
    return [memory for folder in folders if (memory := folder_file(folder, root)) is not None]


def scan(workspace: Path) -> Memory:
    """The user's files first, then the project's; each followed by what it imports."""
    from agent.tools.memory_imports import Importer

    top = _user_files() + _project_files(workspace)
    importer = Importer(workspace, MEMORY_LIMIT, {_real(memory.path) for memory in top})
    files: list[MemoryFile] = []
    for memory in top:
        files.append(memory)
        for found in importer.expand(memory.path, memory.text, memory.scope == "project"):
            scope = "project" if found.project else "user"
            files.append(MemoryFile(found.path, found.text, scope, found.importer))
    return Memory(files, importer.skipped)


def load(workspace: Path) -> list[MemoryFile]:
    """The memory files of `workspace`, imports included, in the order the instructions carry them."""
    return scan(workspace).files


def _real(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path


def instructions(workspace: Path, lang: str, found: list[MemoryFile] | None = None) -> str:
    """The system prompt with the memory files (AGENTS.md / CLAUDE.md from the repository's root
    down, and the user's; `found`: as `load` read them) after it: what every request of the session
    is instructed with."""
    from agent.text.prompts import system_prompt

    found = load(workspace) if found is None else found
    return system_prompt(workspace, lang, "\n\n".join(section(memory) for memory in found))


def section(memory: MemoryFile) -> str:
    """One file's part of the instructions: its path (and what imported it), then its text."""
    head = f"# {memory.path}" if memory.imported_by is None else f"# {memory.path} (@-imported by {memory.imported_by})"
    return f"{head}\n\n{memory.text}"


def compact_instructions(workspace: Path, settings: Any = None, files: list[MemoryFile] | None = None) -> str:
    """What every compaction is told besides its own prompt: each memory file's `## Compact
    Instructions` (or `## 压缩说明`) section, then the settings files' `compactInstructions`."""
    found = []
    for memory in load(workspace) if files is None else files:
        for heading in _COMPACT_HEADING.finditer(memory.text):
            rest = memory.text[heading.end() :]
            end = _NEXT_HEADING.search(rest)
            found.append(rest[: end.start() if end else len(rest)].strip())
    if settings is not None:
        found += [text for _layer, text in settings.section("compactInstructions")]
    return "\n\n".join(text for text in found if text)
