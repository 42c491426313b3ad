"""Custom slash commands' files, Claude Code's format: a Markdown file per command in the project's
`.coding-agent/commands/` or `.claude/commands/`, or the user's `~/.coding-agent/commands/` or
`~/.claude/commands/` (the first folder that has a name wins). The file's path is the command:
`review.md` is /review, `frontend/component.md` is /frontend:component (and /component, Claude Code's
name for it, unless another command has that name). Front matter may give
`description`, `argument-hint`, `allowed-tools` (rules granted for that command's turn) and `model`;
the body is the prompt, with `$ARGUMENTS`, `$1`, `$2`, ... and `` !`command` `` (a command whose
output goes in its place: agent.turn.custom_commands runs it).

The folders are looked at again each time a command is looked up, so a file added while the agent
runs is found; a file read before is parsed again only when it changed.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from agent.config import claude_home, data_home
from agent.provider import front_matter
from agent.store.regular_file import read_confined

MAX_COMMAND_FILE = 100_000  # characters: a command is a prompt, not a document
MAX_DEPTH = 3  # folders below commands/: frontend/forms/field.md is /frontend:forms:field
_PART = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
# Claude Code's inline command: `!` and a command in backticks, on one line.
INLINE = re.compile(r"!`([^`\n]+)`")


@dataclass(frozen=True)
class CommandFile:
    name: str  # "review", "frontend:component"
    path: Path
    scope: str  # "project" | "user"
    description: str
    argument_hint: str
    allowed_tools: tuple[str, ...]  # rules as written, for this command's turn
    model: str | None
    body: str

    def prompt(self, arguments: str) -> str:
        """The body with the arguments put in (also into its `!` commands, as Claude Code does)."""
        try:
            words = shlex.split(arguments)
        except ValueError:
            words = arguments.split()

        def positional(m: re.Match[str]) -> str:
            n = int(m.group(1))
            return words[n - 1] if 0 < n <= len(words) else ""

        text = self.body.replace("$ARGUMENTS", arguments)
        return re.sub(r"\$(\d+)", positional, text)

    def inline_commands(self) -> list[str]:
        """The `` !`command` `` of the body as written (before the arguments are put in)."""
        return INLINE.findall(self.body)


def command_dirs(workspace: Path) -> list[tuple[Path, str]]:
    """Where commands are looked for, and whose they are; an earlier folder's command wins."""
    return [
        (workspace / ".coding-agent" / "commands", "project"),
        (workspace / ".claude" / "commands", "project"),
        (data_home() / "commands", "user"),
        (claude_home() / "commands", "user"),
    ]


_cache: dict[Path, tuple[tuple[int, int], CommandFile | None]] = {}


def _read(path: Path, name: str, scope: str, root: Path) -> CommandFile | None:
    try:
        info = path.stat()
    except OSError:
        return None
    stamp = (info.st_mtime_ns, info.st_size)
    if (cached := _cache.get(path)) is not None and cached[0] == stamp:
        return cached[1]
    text = read_confined(path, root, MAX_COMMAND_FILE)
    found = None
    if text is not None:
        fields, body = front_matter.split(text)
        model = front_matter.text_of(fields, "model").strip() or None
        found = CommandFile(
            name,
            path,
            scope,
            front_matter.text_of(fields, "description"),
            front_matter.text_of(fields, "argument-hint"),
            tuple(front_matter.list_of(fields, "allowed-tools") or ()),
            model,
            body.strip(),
        )
    _cache[path] = (stamp, found)
    return found


def _files(folder: Path) -> list[tuple[str, Path]]:
    """(name, path) of the command files under `folder`, its own first, then its subfolders'."""
    found: list[tuple[str, Path]] = []
    for current, dirs, files in os.walk(folder):  # symlinked folders are not entered
        parts = Path(current).relative_to(folder).parts
        dirs[:] = sorted(d for d in dirs if _PART.match(d) and len(parts) < MAX_DEPTH)
        if not all(_PART.match(p) for p in parts):
            continue
        for file in sorted(files):
            stem, dot, ext = file.rpartition(".")
            if dot and ext == "md" and _PART.match(stem):
                found.append((":".join((*parts, stem)), Path(current) / file))
    return found


def load(workspace: Path) -> list[CommandFile]:
    found: dict[str, CommandFile] = {}
    for folder, scope in command_dirs(workspace):
        # A project's file may be a link within the repository, a user's within their folder: no further.
        root = workspace if scope == "project" else folder.parent
        for name, path in _files(folder):
            if name not in found and (command := _read(path, name, scope, root)):
                found[name] = command
    return list(found.values())


def short_names(commands: list[CommandFile]) -> dict[str, CommandFile]:
    """Claude Code's name of a namespaced command (`frontend/component.md` is its `/component`), where
    no other command has it: the folder-qualified name is ours and always works."""
    flat = {c.name for c in commands if ":" not in c.name}
    leaves: dict[str, list[CommandFile]] = {}
    for command in commands:
        if ":" in command.name:
            leaves.setdefault(command.name.rsplit(":", 1)[1], []).append(command)
    return {leaf: found[0] for leaf, found in leaves.items() if len(found) == 1 and leaf not in flat}


def find(workspace: Path, name: str) -> CommandFile | None:
    commands = load(workspace)
    return next((c for c in commands if c.name == name), None) or short_names(commands).get(name)


def project_grants(workspace: Path) -> dict[str, dict[str, list[str]]]:
    """What the project's command files would let run unasked once the project is trusted: their
    `allowed-tools` and the `!` commands beside them (agent.provider.trust lists them in its question)."""
    grants = {}
    for command in load(workspace):
        if command.scope == "project" and command.allowed_tools:
            grants[f"/{command.name}"] = {
                "allowed-tools": list(command.allowed_tools),
                "runs": command.inline_commands(),
            }
    return grants
