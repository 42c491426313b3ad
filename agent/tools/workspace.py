"""The workspace: confinement of every path a tool touches (and of files read as instructions),
and listing what is in it. Folders the user adds (/add-dir) count as the workspace does.

The agent's own transcript archive is readable too (so the model can look back at what a
compaction summarised), but nothing under the data folder is ever writable: a model that could
rewrite its session files could rewrite its own history.
"""

from __future__ import annotations

import os
import re
import shutil
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


# Folders the user added with /add-dir, by workspace: read and written as the workspace is, for the rest
# of the run (the sub-agents and a /clear's new session work in the same folders).
_ADDED: dict[Path, list[Path]] = {}


def add_folder(workspace: Path, folder: Path) -> Path:
    """Add `folder` (resolved; it must be a directory) as a root the tools may read and write."""
    real = _resolve(folder)
    if not real.is_dir():
        raise PathError(f"{folder} is not a folder")
    added = _ADDED.setdefault(_resolve(workspace), [])
    if real not in added:
        added.append(real)
    return real


def added_folders(workspace: Path) -> tuple[Path, ...]:
    return tuple(_ADDED.get(_resolve(workspace), ()))


def root_of(path: Path, workspace: Path) -> Path:
    """The root that holds `path` (resolved): an added folder, else the workspace. What guards a
    write (.git, instruction files, /undo's confinement) is checked from there."""
    return next((folder for folder in added_folders(workspace) if path.is_relative_to(folder)), _resolve(workspace))


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
    if resolved.is_relative_to(root) or any(resolved.is_relative_to(f) for f in added_folders(root)):
        return resolved
    if not write and any(resolved.is_relative_to(_resolve(r)) for r in readable_roots):
        return resolved
    raise PathError(f"{path} is outside the workspace {root}")


# --- what is in the workspace --------------------------------------------------------------

# Skipped when git cannot say what is ignored: rarely what the model wants, often huge.
_SKIP_DIRS = {
    ".git",
    ".hg",
    ".svn",
    "node_modules",
    "__pycache__",
    ".venv",
    "venv",
    ".tox",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
}


# git runs on a workspace the model can write to, so nothing in that workspace may make it run a
# program: no repository config that names one (fsmonitor, hooks, pager), no implicit bare repository
# (a HEAD, config, objects/ and refs/ the model wrote at the top), and an environment that holds none
# of our keys. Command-line -c settings outrank every config file git reads.
GIT_SAFETY = (
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "core.pager=cat",
    "-c",
    "safe.bareRepository=explicit",
    "-c",
    "protocol.allow=never",
    "-c",
    "core.untrackedCache=false",
)


def safe_path_dirs(workspace: Path) -> str:
    """PATH without relative entries or entries inside the workspace (a `git` or `bwrap` the model wrote)."""
    root = str(workspace.resolve())
    dirs = [
        d
        for d in os.environ.get("PATH", os.defpath).split(os.pathsep)
        if os.path.isabs(d) and not (d == root or d.startswith(root + os.sep))
    ]
    return os.pathsep.join(dirs)


def git_env(workspace: Path) -> dict[str, str]:
    """A fixed, minimal environment for git: no keys, no system or user config, no prompts."""
    return {
        "PATH": safe_path_dirs(workspace),
        "LC_ALL": "C",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_OPTIONAL_LOCKS": "0",  # a listing must not write the index
        "GIT_PAGER": "cat",
        "PAGER": "cat",
    }


def git_argv(workspace: Path, *args: str) -> list[str] | None:
    """`git <safety settings> <args>`, or None when no git is installed outside the workspace."""
    git = shutil.which("git", path=safe_path_dirs(workspace))
    return [git, "--no-pager", *GIT_SAFETY, *args] if git else None


def git_output(base: Path, *args: str, timeout: float = 30) -> bytes | None:
    """What `git args` prints in `base`, run with the workspace's safety settings (git_argv, git_env);
    None outside a repository, or when git fails or takes longer than `timeout` seconds."""
    argv = git_argv(base, *args)
    if argv is None:
        return None
    try:
        done = subprocess.run(
            argv, cwd=base, env=git_env(base), stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def _git_files(base: Path) -> list[str] | None:
    """Files git knows under `base` (tracked or untracked, not ignored); None outside a repo."""
    out = git_output(base, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    if out is None:
        return None
    names = out.decode("utf-8", errors="surrogateescape").split("\0")
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


class PatternError(ValueError):
    """A glob the tools cannot match; the message is meant for the model."""


def _char_class(body: str) -> str:
    """A glob's [...] as a regex class: "!" first negates, a-z is a range, the rest is literal
    (a "[" taken raw would make a nested set, which `re` warns about on the terminal)."""
    chars = body[1:] if body.startswith("!") else body
    if not chars:
        raise PatternError(f"[{body}] matches no character")
    if "[:" in chars:
        raise PatternError("POSIX classes such as [[:alpha:]] are not supported; list the characters, e.g. [a-zA-Z]")
    out, i = [], 0
    while i < len(chars):
        if i + 2 < len(chars) and chars[i + 1] == "-":
            if chars[i] > chars[i + 2]:
                raise PatternError(f"[{body}] has a range that runs backwards ({chars[i]}-{chars[i + 2]})")
            out.append(f"{re.escape(chars[i])}-{re.escape(chars[i + 2])}")
            i += 3
        else:
            out.append(re.escape(chars[i]))
            i += 1
    return ("[^" if body.startswith("!") else "[") + "".join(out) + "]"


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
            out.append(_char_class(pattern[i + 1 : end]))
            i = end
        elif c == "{" and end > i:
            out.append("(?:" + "|".join(_translate(alt) for alt in pattern[i + 1 : end].split(",")) + ")")
            i = end
        else:  # an unmatched "[" or "{" is literal too
            out.append(re.escape(c))
        i += 1
    return "".join(out)


# --- globs without backtracking ---------------------------------------------------------------
# A regex with several stars backtracks exponentially on a path that almost matches: `*a*a*a...b`
# against a long name of `a`s froze list_files (and the REPL, the GIL held) for ever. Patterns
# with up to two stars and no {a,b} keep the fast regex (at worst quadratic in the path); others are
# matched by stepping a set of positions in the pattern through the path, linear in both.

_STARS = ("seg", "any", "dirs")
_MAX_ALTERNATIVES = 256
Token = tuple[str, object]


@lru_cache(maxsize=64)
def _glob_tokens(pattern: str) -> tuple[tuple[Token, ...], ...]:
    """The pattern as token sequences, one per {a,b} alternative."""
    seqs: list[list[Token]] = [[]]
    i = 0
    while i < len(pattern):
        c = pattern[i]
        closing = {"[": "]", "{": "}"}.get(c)
        end = pattern.find(closing, i + 1) if closing else -1
        token: Token
        if pattern.startswith("**/", i):
            token, i = ("dirs", None), i + 3
        elif pattern.startswith("**", i):
            token, i = ("any", None), i + 2
        elif c in "*?":
            token, i = ("seg" if c == "*" else "one", None), i + 1
        elif c == "[" and end > i + 1:
            token, i = ("class", _glob_regex(pattern[i : end + 1])), end + 1
        elif c == "{" and end > i:
            alts = [list(seq) for alt in pattern[i + 1 : end].split(",") for seq in _glob_tokens(alt)]
            seqs = [s + a for s in seqs for a in alts][:_MAX_ALTERNATIVES]
            i = end + 1
            continue
        else:
            token, i = ("lit", c), i + 1
        for seq in seqs:
            seq.append(token)
    return tuple(tuple(seq) for seq in seqs)


def _closure(tokens: tuple[Token, ...], states: set[tuple[int, bool]]) -> set[tuple[int, bool]]:
    """Add the positions reachable without consuming a character (a star may match nothing)."""
    todo = list(states)
    while todo:
        at, looping = todo.pop()
        if looping or at >= len(tokens) or tokens[at][0] not in _STARS:
            continue
        for state in ((at + 1, False), (at, True)) if tokens[at][0] == "dirs" else ((at + 1, False),):
            if state not in states:
                states.add(state)
                todo.append(state)
    return states


def _step(tokens: tuple[Token, ...], at: int, ch: str) -> int | None:
    """Where position `at` (not in a **/ loop) goes on `ch`, or None."""
    kind, value = tokens[at]
    if kind == "lit":
        return at + 1 if ch == value else None
    if kind == "one":
        return at + 1 if ch != "/" else None
    if kind == "class":
        return at + 1 if value.match(ch) else None  # type: ignore[union-attr]
    if kind == "seg":
        return at if ch != "/" else None
    return at if kind == "any" else None


def _match_tokens(tokens: tuple[Token, ...], path: str) -> bool:
    states = _closure(tokens, {(0, False)})
    for ch in path:
        after: set[tuple[int, bool]] = set()
        for at, looping in states:
            if looping:  # inside **/ : anything, and a "/" may end it
                after.add((at, True))
                if ch == "/":
                    after.add((at + 1, False))
            elif at < len(tokens) and (to := _step(tokens, at, ch)) is not None:
                after.add((to, False))
        states = _closure(tokens, after)
        if not states:
            return False
    return (len(tokens), False) in states


def match_glob(pattern: str, path: str) -> bool:
    """Whether the relative posix `path` matches the glob (`*`, `?`, `[...]`, `**`, `{a,b}`);
    PatternError for a glob that cannot be matched."""
    alternatives = _glob_tokens(pattern)
    # {a,b} groups backtrack too ({a,a}{a,a}... doubles the work with each): only plain patterns.
    if len(alternatives) == 1 and sum(t[0] in _STARS for t in alternatives[0]) <= 2:
        return _glob_regex(pattern).match(path) is not None
    return any(_match_tokens(seq, path) for seq in alternatives)
