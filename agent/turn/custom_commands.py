"""Custom slash commands, Claude Code's format: a Markdown file per command in the project's
`.coding-agent/commands/` (or `.claude/commands/`) or the user's `~/.coding-agent/commands/`. The file
name is the command (`review.md` is /review); optional front matter gives `description` and
`argument-hint`; the body is the prompt, with `$ARGUMENTS` (everything typed after the name), `$1`,
`$2`, ... (its words) put in. `@file` mentions in it are read like the user's own (agent.tools.mentions).
Claude Code's `!`command`` lines would run a shell command unasked: they are left as text.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from agent.config import data_home

MAX_COMMAND_FILE = 100_000  # characters: a command is a prompt, not a document
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


@dataclass(frozen=True)
class CustomCommand:
    name: str
    path: Path
    description: str
    argument_hint: str
    body: str

    def prompt(self, arguments: str) -> str:
        """The body with the arguments put in."""
        try:
            words = shlex.split(arguments)
        except ValueError:
            words = arguments.split()

        def positional(m: re.Match[str]) -> str:
            n = int(m.group(1))
            return words[n - 1] if 0 < n <= len(words) else ""

        text = self.body.replace("$ARGUMENTS", arguments)
        return re.sub(r"\$(\d+)", positional, text)


def command_dirs(workspace: Path) -> list[Path]:
    """Where commands are looked for; an earlier folder's command wins over a later one's."""
    return [workspace / ".coding-agent" / "commands", workspace / ".claude" / "commands", data_home() / "commands"]


def _front_matter(text: str) -> tuple[dict[str, str], str]:
    if not text.startswith("---"):
        return {}, text
    head, sep, body = text[3:].partition("\n---")
    if not sep:
        return {}, text
    fields = {}
    for line in head.splitlines():
        key, colon, value = line.partition(":")
        if colon and key.strip():
            fields[key.strip()] = value.strip().strip("'\"")
    return fields, body.lstrip("\n").removeprefix("-").lstrip("\n")


def _read(path: Path, workspace: Path) -> CustomCommand | None:
    from agent.tools.memory_files import read_confined

    text = read_confined(path, workspace if path.is_relative_to(workspace) else data_home(), MAX_COMMAND_FILE)
    if text is None:
        return None
    fields, body = _front_matter(text)
    return CustomCommand(path.stem, path, fields.get("description", ""), fields.get("argument-hint", ""), body.strip())


def load(workspace: Path) -> list[CustomCommand]:
    found: dict[str, CustomCommand] = {}
    for folder in command_dirs(workspace):
        try:
            files = sorted(folder.glob("*.md"))
        except OSError:
            continue
        for path in files:
            if _NAME.match(path.stem) and path.stem not in found and (cmd := _read(path, workspace)):
                found[path.stem] = cmd
    return list(found.values())
