"""Writes that make a git repository somewhere other than `.git/`.

git takes any folder holding a HEAD, objects/ and refs/ for a repository (a bare one, or a
worktree's through `commondir`), and a file starting with `gitdir:` for a pointer to one. Run in
there, by the user's shell prompt, an editor or an approved `git -C vendor status`, git obeys that
folder's config (core.fsmonitor, core.worktree, hooks): the model's program runs. So a write that
completes such a folder, lands inside one, writes a pointer, or writes a `config` that names
programs, is asked like a write under `.git/`.
"""

from __future__ import annotations

import re
from pathlib import Path

# Settings under which git runs a program or looks elsewhere for the files it obeys.
_RISKY_CONFIG = re.compile(
    rb"(?im)^\s*(fsmonitor|worktree|hookspath|sshcommand|pager|editor|askpass|gitproxy|textconv)\s*=|"
    rb"^\s*\[\s*(core|include|includeif|filter|diff|credential|alias)\b"
)


def _holds(folder: Path, name: str, target: Path) -> bool:
    """Whether `folder` has `name` once `target` is written (a file for HEAD and commondir)."""
    path = folder / name
    if name in ("HEAD", "commondir"):
        return path == target or path.is_file()
    return target.is_relative_to(path) or path.is_dir()


def _repository(folder: Path, target: Path) -> bool:
    if not _holds(folder, "HEAD", target):
        return False
    return _holds(folder, "commondir", target) or (_holds(folder, "objects", target) and _holds(folder, "refs", target))


def makes_git_dir(target: Path, root: Path, content: bytes) -> bool:
    """Whether writing `content` to `target` (resolved, inside `root`) makes or feeds a git repository."""
    if content.lstrip().startswith(b"gitdir:"):
        return True
    if target.name == "config" and _RISKY_CONFIG.search(content):
        return True
    folder = target.parent
    while folder.is_relative_to(root):
        if _repository(folder, target):
            return True
        if folder == root:
            break
        folder = folder.parent
    return False
