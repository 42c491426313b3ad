"""Permission rules, Claude Code's syntax: `Tool`, `Tool(specifier)`, `mcp__server`, `mcp__server__tool`,
`mcp__server__*`. Our tool names and Claude's (`Bash`, `Edit`, `Write`, `Read`, `Grep`, `Glob`) both work.

A rule never matches more than it says. A command rule with a wildcard (`npm test:*`, `git * main`)
matches one plain command only: the command line is parsed (bashlex) and anything that could run
something the rule does not name refuses the match — a list or pipeline (`;`, `&&`, `|`, `&`, a
newline), a command or process substitution, a parameter expansion, a variable assignment in front
(`LD_PRELOAD=x ls`), a redirection to a file, a compound command, a line break. A rule without a wildcard matches
that exact command line only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

READ_TOOLS = ("read_file", "grep", "list_files")
EDIT_TOOLS = ("write_file", "edit_file")
# Claude Code's names -> ours. Its Edit rules cover every tool that edits, its Read rules every
# tool that reads.
ALIASES: dict[str, tuple[str, ...]] = {
    "Bash": ("run_command",),
    "Edit": EDIT_TOOLS,
    "MultiEdit": ("edit_file",),
    "Write": ("write_file",),
    "Read": READ_TOOLS,
    "Grep": ("grep",),
    "Glob": ("list_files",),
}
OUR_TOOLS = ("run_command", *EDIT_TOOLS, *READ_TOOLS)
_RULE = re.compile(r"^([A-Za-z_][\w-]*\*?)(?:\((.*)\))?$", re.S)


class BadRule(ValueError):
    pass


@dataclass(frozen=True)
class Rule:
    text: str  # as written
    tools: tuple[str, ...]  # our tool names, or one mcp__ name (a prefix pattern for mcp__server__*)
    specifier: str | None  # what is inside the parentheses; None: every use of the tool

    def names_tool(self, tool: str) -> bool:
        for name in self.tools:
            if name.startswith("mcp__"):
                if name.endswith("*") and tool.startswith(name[:-1]):
                    return True
                # `mcp__server` names every tool of that server.
                if tool == name or (name.count("__") == 1 and tool.startswith(name + "__")):
                    return True
            elif tool == name:
                return True
        return False


def parse_rule(text: str) -> Rule:
    text = text.strip()
    m = _RULE.match(text)
    if not m:
        raise BadRule(text)
    name, specifier = m.group(1), m.group(2)
    if name.endswith("*") and not (name.startswith("mcp__") and name.count("__") >= 2):
        raise BadRule(text)  # as Claude Code: a wildcard only in an MCP tool's name, after the server's
    if name.startswith("mcp__"):
        if specifier is not None:
            raise BadRule(text)
        return Rule(text, (name,), None)
    tools = ALIASES.get(name) or ((name,) if name in OUR_TOOLS else None)
    if tools is None:
        raise BadRule(text)
    if specifier is not None and (not specifier.strip() or specifier.strip() == "*"):
        specifier = None
    return Rule(text, tools, specifier)


# --- commands ------------------------------------------------------------------------------


def simple_words(command: str) -> list[str] | None:
    """The words of `command` if it is one plain command (see the module's rule), else None."""
    if any(c in command for c in "\n\r\0"):
        return None  # a second line is a second command (or a continuation no one reads as one)
    try:
        import bashlex
    except ImportError:  # pragma: no cover - bashlex is a dependency; refuse more without it
        return _shlex_words(command)
    try:
        trees = bashlex.parse(command)
    except Exception:  # noqa: BLE001 - bashlex raises many kinds; what it cannot parse matches nothing
        return None
    if len(trees) != 1 or trees[0].kind != "command":
        return None
    words = []
    for part in trees[0].parts:
        if part.kind == "redirect":
            # `2>&1`, `>&2`: one output joined to another, no file named.
            if part.type in (">&", "<&") and isinstance(part.output, int):
                continue
            return None
        if part.kind != "word":
            return None  # an assignment (LD_PRELOAD=...), a reserved word
        if any(sub.kind != "tilde" for sub in getattr(part, "parts", ())):
            return None  # $(...), `...`, <(...), $VAR
        words.append(part.word)
    return words or None


_META = set(";&|<>$`(){}\n\r\\*?[]!#'\"~")


def _shlex_words(command: str) -> list[str] | None:
    import shlex

    if _META & set(command):
        return None
    try:
        return shlex.split(command) or None
    except ValueError:
        return None


def command_matches(specifier: str, command: str) -> bool:
    spec = specifier.strip()
    if "*" not in spec:
        return command.strip() == spec
    words = simple_words(command)
    if words is None:
        return False
    if spec.endswith(":*") and "*" not in spec[:-2]:
        # The legacy prefix form: these words first, then anything (word-bounded: `ls:*` is not `lsblk`).
        prefix = simple_words(spec[:-2])
        return prefix is not None and words[: len(prefix)] == prefix
    # `git *` also matches bare `git`, as Claude Code's trailing wildcard does.
    tail = r"(?: .*)?" if spec.endswith(" *") else ""
    body = spec[:-2] if tail else spec
    pattern = "".join(".*" if piece == "*" else re.escape(piece) for piece in re.split(r"(\*)", body)) + tail
    return re.fullmatch(pattern, " ".join(words), re.S) is not None


# --- paths ---------------------------------------------------------------------------------


def path_matches(specifier: str, target: Path, workspace: Path) -> bool:
    """Gitignore-style, as Claude Code: `docs/**` and `./docs/**` from the workspace, `/docs/**` too
    (the project's root), `//abs/path` from the file system's root, `~/x` from the home folder; a
    pattern without a slash matches a file name at any depth."""
    from agent.tools.workspace import match_glob

    spec = specifier.strip()
    anchored = "/" in spec.rstrip("/")  # `./x`, `/x`, `a/b`: from their base; a bare name: anywhere
    if spec.startswith("//"):
        base, pattern = Path("/"), spec[2:]
    elif spec.startswith("~/"):
        base, pattern = Path.home(), spec[2:]
    else:
        base, pattern = workspace.resolve(), spec.removeprefix("./").lstrip("/")
    try:
        rel = target.resolve().relative_to(base.resolve()).as_posix()
    except ValueError:
        return False
    if not anchored:
        pattern = "**/" + pattern
    if pattern.endswith("/"):
        pattern += "**"
    return match_glob(pattern, rel)


def names_git(specifier: str | None) -> bool:
    """Whether a path rule says `.git` in so many words (a write there runs code: it must be named)."""
    return specifier is not None and any(part.lower() == ".git" for part in re.split(r"[/\\]", specifier))
