"""The workspace: confinement of every path a tool touches, and listing what is in it.

The agent's own transcript archive is readable too (so the model can look back at what a
compaction summarised), but nothing under the data folder is ever writable: a model that could
rewrite its session files could rewrite its own history.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache
from pathlib import Path

from agent.config import data_home


class PathError(ValueError):
    """A path the tools refuse; the message is meant for the model."""


def _resolve(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError) as exc:  # RuntimeError: a symlink loop
        raise PathError(f"cannot resolve {path}: {exc}") from exc


def resolve_path(
    path: str,
    workspace: Path,
    *,
    readable_roots: Sequence[Path] = (),
    write: bool = False,
) -> Path:
    """The real (symlinks followed) absolute path for `path`, or PathError if it is off limits."""
    if "\0" in path:
        raise PathError("the path contains a NUL byte")
    if not path.strip():
        raise PathError("the path is empty")
    root = _resolve(workspace)
    candidate = Path(path)
    if not candidate.is_absolute():
        candidate = root / candidate
    resolved = _resolve(candidate)
    if write:
        home = _resolve(data_home())
        if resolved.is_relative_to(home):
            raise PathError(f"{path} is inside the agent's data folder {home}, which is read-only")
    if resolved.is_relative_to(root):
        return resolved
    if not write and any(resolved.is_relative_to(_resolve(r)) for r in readable_roots):
        return resolved
    raise PathError(f"{path} is outside the workspace {root}")


# --- what is in the workspace --------------------------------------------------------------

# Skipped when git cannot say what is ignored: rarely what the model wants, often huge.
_SKIP_DIRS = {".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".tox",
              ".mypy_cache", ".pytest_cache", ".ruff_cache"}


def _git_files(base: Path) -> list[str] | None:
    """Files git knows under `base` (tracked or untracked, not ignored); None outside a repo."""
    try:
        done = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=base, capture_output=True, timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    names = done.stdout.decode("utf-8", errors="surrogateescape").split("\0")
    # --cached lists deleted files and submodules too: keep real files only.
    return [n for n in dict.fromkeys(names) if n and os.path.isfile(base / n)]


def _walk_files(base: Path) -> Iterator[str]:
    for folder, dirs, files in os.walk(base):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS)
        rel = Path(folder).relative_to(base)
        for name in files:
            yield (rel / name).as_posix()


def iter_files(base: Path) -> Iterable[str]:
    """Files under the directory `base`, as paths relative to it, honouring .gitignore if possible."""
    files = _git_files(base)
    return files if files is not None else _walk_files(base)


@lru_cache(maxsize=64)
def _glob_regex(pattern: str) -> re.Pattern[str]:
    return re.compile(_translate(pattern) + r"\Z")


def _translate(pattern: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        closing = {"[": "]", "{": "}"}.get(c)
        end = pattern.find(closing, i + 1) if closing else -1
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 2
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 1
        elif c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[" and end > i + 1:
            body = pattern[i + 1 : end].replace("\\", "\\\\")
            out.append("[^" + body[1:] + "]" if body.startswith("!") else "[" + body + "]")
            i = end
        elif c == "{" and end > i:
            out.append("(?:" + "|".join(_translate(alt) for alt in pattern[i + 1 : end].split(",")) + ")")
            i = end
        else:  # an unmatched "[" or "{" is literal too
            out.append(re.escape(c))
        i += 1
    return "".join(out)


def match_glob(pattern: str, path: str) -> bool:
    """Whether the relative posix `path` matches the glob (`*`, `?`, `[...]`, `**`, `{a,b}`)."""
    return _glob_regex(pattern).match(path) is not None
