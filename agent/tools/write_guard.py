"""Writes the file tools do not make on the model's word alone.

Under `.git/` a file is code: git runs what `.git/config` names (core.fsmonitor, hooks, pagers,
filters) the next time anything, or anyone, runs git here. A file with more than one hard link may
have its other name outside the workspace, where no check can see it. An AGENTS.md is read as
rules by the next session. All are written only when the user approves, like a command
(agent.tools.permissions asks, or a rule naming them allows). Anything but a regular file (a FIFO, a
device, a socket) is not written at all: even reading it to show a diff can block forever.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from agent.text.i18n import t
from agent.tools.git_shape import makes_git_dir


def _under_git(path: Path, root: Path) -> bool:
    try:
        parts = path.relative_to(root).parts
    except ValueError:
        return False
    # .GIT is the same folder on a case-insensitive file system (macOS, Windows).
    return any(part.lower() == ".git" for part in parts)


# Files read as instructions, in any folder and any case: the next session's system prompt carries
# their text as rules (agent.text.prompts reads AGENTS.md; peers read CLAUDE.md). Memory files may add to it.
INSTRUCTION_FILES = frozenset({"agents.md", "claude.md"})


def _instructions(target: Path, asked: Path, root: Path) -> bool:
    if target.name.lower() in INSTRUCTION_FILES or asked.name.lower() in INSTRUCTION_FILES:
        return True
    # An AGENTS.md that is a symlink to this file makes it one too.
    return any(_resolves_to(root / name, target) for name in ("AGENTS.md", "CLAUDE.md"))


def _resolves_to(link: Path, target: Path) -> bool:
    try:
        return link.is_symlink() and link.resolve() == target
    except (OSError, RuntimeError):
        return False


def refusal(target: Path) -> str | None:
    """Why `target` (resolved) cannot be written at all, or None."""
    try:
        st = os.stat(target)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"cannot check {target}: {exc.strerror or exc}"
    if stat.S_ISDIR(st.st_mode):
        return f"{target} is a directory"
    if not stat.S_ISREG(st.st_mode):
        return f"{target} is not a regular file (a FIFO, device or socket); the file tools only write files"
    return None


@dataclass
class Risk:
    """Why a write needs the user's approval: an i18n key (write_reason_*) and its values."""

    key: str
    values: dict[str, object] = field(default_factory=dict)

    def text(self, lang: str) -> str:
        return t(f"write_reason_{self.key}", lang, **self.values)


def approval_reason(given: str, target: Path, workspace: Path, content: bytes) -> Risk | None:
    """Why writing `content` to `target` needs the user's approval, or None. `given` is the path as
    the model wrote it: `.git` may be a symlink, so the name is checked as well as the resolved path."""
    from agent.tools.workspace import root_of

    root = root_of(target, workspace)  # a folder added with /add-dir is guarded from its own top
    asked = Path(given) if Path(given).is_absolute() else root / given
    if _under_git(target, root) or _under_git(Path(os.path.normpath(asked)), root):
        return Risk("git")
    if makes_git_dir(target, root, content):
        return Risk("git_shape")
    if _instructions(target, asked, root):
        return Risk("instructions")
    try:
        links = os.stat(target).st_nlink
    except OSError:
        return None
    return Risk("links", {"n": links}) if links > 1 else None
