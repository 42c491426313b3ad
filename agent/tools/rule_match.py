"""Permission rules, Claude Code's syntax: `Tool`, `Tool(specifier)`, `mcp__server`, `mcp__server__tool`,
`mcp__server__*`. Our tool names and Claude's (`Bash`, `Edit`, `Write`, `Read`, `Grep`, `Glob`, `LS`,
`WebFetch(domain:host)`, `Task(agent type)`, `TodoWrite`, `NotebookEdit`) both work; a Claude Code tool
this agent does not have (`WebSearch`) is NoSuchTool, which its reader reports as ignored.

A rule matches only what the parser fully resolved (agent.tools.shell_parse). An allow rule with a
wildcard matches one plain command whose every word is a literal; anything the shell would expand
or run besides (a list, a substitution, a parameter, a glob, a redirection to a file, a variable in
front, a line bashlex cannot parse) is asked. A deny or ask rule looks at every command the line
runs, wrappers read through (agent.tools.shell_wrappers), and matches where it cannot be sure.
"""

from __future__ import annotations

import fnmatch
import re
import shlex
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from agent.tools.shell_parse import Word, parse
from agent.tools.shell_wrappers import commands_run, strip_plain_wrappers

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
    "LS": ("list_files",),
    "WebFetch": ("fetch_url",),
    "Task": ("task",),
    "TodoWrite": ("todo",),
    # Notebooks are edited and read as files here: without a path, the rule is about `.ipynb` files.
    "NotebookEdit": EDIT_TOOLS,
    "NotebookRead": READ_TOOLS,
}
NOTEBOOKS = "*.ipynb"
# Claude Code's tools with nothing here to act on: a rule naming one is reported, not applied.
NO_SUCH_TOOLS = ("WebSearch", "BashOutput", "KillShell", "KillBash", "ExitPlanMode", "SlashCommand", "Skill")
# Tools whose rules name a subject, not a path or a command: fetch_url a domain (`domain:example.com`,
# `domain:*.example.com`), task a sub-agent type; todo none.
SUBJECT_TOOLS = ("fetch_url", "task")
OUR_TOOLS = ("run_command", *EDIT_TOOLS, *READ_TOOLS, *SUBJECT_TOOLS, "todo")
_RULE = re.compile(r"^([A-Za-z_][\w-]*\*?)(?:\((.*)\))?$", re.S)


class BadRule(ValueError):
    pass


class NoSuchTool(BadRule):
    """A rule for a Claude Code tool this agent does not have (`tool`): nothing for it to allow or deny."""

    def __init__(self, text: str, tool: str) -> None:
        super().__init__(text)
        self.tool = tool


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
    if name in NO_SUCH_TOOLS:
        raise NoSuchTool(text, name)
    tools = ALIASES.get(name) or ((name,) if name in OUR_TOOLS else None)
    if tools is None:
        raise BadRule(text)
    if specifier is not None and (not specifier.strip() or specifier.strip() == "*"):
        specifier = None
    if specifier is None and name.startswith("Notebook"):
        specifier = NOTEBOOKS
    if specifier is not None and (tools == ("todo",) or tools == ("fetch_url",) and not _domain(specifier)):
        raise BadRule(text)  # what would it match? A rule that can match nothing is refused, not kept void
    return Rule(text, tools, specifier)


def _domain(specifier: str) -> str | None:
    spec = specifier.strip()
    if not spec.startswith("domain:"):
        return None
    return spec[len("domain:") :].strip().lower().rstrip(".") or None


def subject_matches(specifier: str, subject: str) -> bool:
    """A fetch_url rule's `domain:` pattern against a host (case and a final dot aside), a task rule's
    sub-agent type against the one asked for; `*` matches any run of characters, as Claude Code's."""
    domain = _domain(specifier)
    if domain is not None:
        return fnmatch.fnmatchcase(subject.lower().rstrip("."), domain)
    return fnmatch.fnmatchcase(subject, specifier.strip())


# --- commands ------------------------------------------------------------------------------


@dataclass(frozen=True)
class CommandPattern:
    """A command rule's specifier, read as Claude Code reads it: `npm test:*` a prefix (word-bounded),
    a pattern with an unescaped `*` a wildcard (`\\*` a literal star, `\\\\` a literal backslash),
    anything else one exact command line."""

    kind: str  # "exact", "prefix" or "wildcard"
    text: str  # the command, the prefix or the pattern (escapes read, but a wildcard's)
    words: tuple[str, ...]  # the exact command's or the prefix's words

    def regex(self) -> re.Pattern[str]:
        return _wildcard(self.text)


@lru_cache(maxsize=256)
def command_pattern(specifier: str) -> CommandPattern:
    spec = specifier.strip()
    if len(spec) > 2 and spec.endswith(":*"):
        prefix = _unescape(spec[:-2])
        return CommandPattern("prefix", prefix, _rule_words(prefix))
    if _STAR.search(spec):
        return CommandPattern("wildcard", spec, ())
    exact = _unescape(spec)
    return CommandPattern("exact", exact, _rule_words(exact))


_STAR = re.compile(r"(?<!\\)(?:\\\\)*\*")  # a star after an even number of backslashes
_ESCAPE = re.compile(r"\\([\\*])")


def _unescape(text: str) -> str:
    # Only a text that escapes a star is read for escapes: Claude Code compares other exact rules as written.
    return _ESCAPE.sub(r"\1", text) if "\\*" in text else text


def _rule_words(text: str) -> tuple[str, ...]:
    try:
        return tuple(shlex.split(text))
    except ValueError:
        return tuple(text.split())


@lru_cache(maxsize=256)
def _wildcard(pattern: str) -> re.Pattern[str]:
    pieces, stars = [], 0
    for token in re.findall(r"\\[\\*]|\*|[^\\*]+|\\", pattern):
        if token == "*":
            pieces.append(".*")
            stars += 1
        else:
            pieces.append(re.escape(token[1] if len(token) == 2 and token[0] == "\\" else token))
    regex = "".join(pieces)
    # `git *` also matches bare `git`, as Claude Code's single trailing wildcard does.
    if stars == 1 and regex.endswith("\\ .*"):
        regex = regex[:-4] + "(?: .*)?"
    return re.compile(regex, re.S)


def escape_command(command: str) -> str:
    """The specifier of a rule that matches exactly `command`, even one with a `*` in it."""
    return command.replace("\\", "\\\\").replace("*", "\\*") if "*" in command else command


def command_allows(specifier: str, command: str) -> bool:
    """An allow rule: an exact rule matches that line as written; a prefix or wildcard rule only a
    command the parser fully resolved: one simple command, every word a plain literal after quote
    removal, no assignment in front, no redirection but `n>&m`. A pure wrapper in front (`timeout 5`,
    `nice`, `nohup`, `stdbuf -oL`, `time`) is looked through, as Claude Code does."""
    pattern = command_pattern(specifier)
    if pattern.kind == "exact":
        return command.strip() == pattern.text
    if any(c in command for c in "\n\r"):
        return False  # a second line is a second command (or a continuation no one reads as one)
    parsed = parse(command)
    plain = parsed.plain() if parsed is not None else None
    if plain is None:
        return False
    words = tuple(w for w in plain.words if w is not None)
    inner = strip_plain_wrappers(words)
    return _matches(pattern, words, plain.text) or (inner != words and _matches(pattern, inner, ""))


def command_may_match(specifier: str, command: str) -> bool:
    """A deny or ask rule: whether any command the line runs could be the one the rule names
    (every simple command, wrappers read through); a line the parser cannot fully read could be."""
    pattern = command_pattern(specifier)
    if command.strip() == pattern.text:
        return True
    seen = commands_run(command)
    if seen is None or seen.unsure:
        return True
    return any(_may_match(pattern, c.words, c.text) for c in seen.commands)


def fully_read(command: str) -> bool:
    """Whether the parser resolved every command the line runs (else deny and ask rules match it)."""
    seen = commands_run(command)
    return seen is not None and not seen.unsure


def _matches(pattern: CommandPattern, words: tuple[str, ...], text: str, loose: bool = False) -> bool:
    if pattern.kind == "prefix":
        return words[: len(pattern.words)] == pattern.words
    if pattern.kind == "exact":
        return words == pattern.words or text.strip() == pattern.text
    # A wildcard reads the command as written, or its words joined by spaces; where a word holds a
    # space that join would hide where a word ends (`'git log' x` is not `git log x`), so an allow
    # rule reads the words quoted instead.
    bare = loose or not any(c.isspace() for word in words for c in word)
    forms = [text.strip(), " ".join(words) if bare else shlex.join(words)]
    return any(form and pattern.regex().fullmatch(form) for form in forms)


def _may_match(pattern: CommandPattern, words: tuple[Word, ...], text: str) -> bool:
    """Whether `words` can be the command the pattern names; from the first unknown word on, the
    shell may put any number of words of any value."""
    if None not in words:
        return _matches(pattern, words, text, loose=True)  # type: ignore[arg-type]
    known = tuple(w for w in words[: words.index(None)] if w is not None)
    if pattern.kind == "prefix":
        n = min(len(known), len(pattern.words))
        return known[:n] == pattern.words[:n]
    if pattern.kind == "exact":
        return known == pattern.words[: len(known)]
    start = " ".join(known) + " " if known else ""
    star = _STAR.search(pattern.text)
    head = _ESCAPE.sub(r"\1", pattern.text[: star.end() - 1] if star else pattern.text)
    return start.startswith(head) or head.startswith(start)


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


_GLOB_CHARS = "*?[{"  # `]` and `}` are plain once what opens them is
_ONE_CHAR = re.compile(r"\[(.)\]")


def escape_path(path: str) -> str:
    """The specifier of an Edit rule for this one file: from the project's root (or `//` for an
    absolute path), each glob character in a class of its own (`a[*].txt`), a trailing space kept."""
    body = path.rstrip(" ")
    escaped = "".join(f"[{c}]" if c in _GLOB_CHARS else c for c in body) + "[ ]" * (len(path) - len(body))
    return "/" + escaped


def names_one_file(specifier: str) -> bool:
    """Whether a path rule is no pattern at all (a glob character only as `[c]`, one character)."""
    return not set(_GLOB_CHARS) & set(_ONE_CHAR.sub("", specifier))


def names_git(specifier: str | None) -> bool:
    """Whether a path rule says `.git` in so many words (a write there runs code: it must be named)."""
    return specifier is not None and any(part.lower() == ".git" for part in re.split(r"[/\\]", specifier))
