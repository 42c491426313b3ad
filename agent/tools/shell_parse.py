"""What a shell command line runs, as far as the parser can tell: every simple command in it
(lists, pipelines, compound commands, function bodies, substitutions), each word resolved to its
value after quote removal, or unknown where the shell would decide it.

A word is known only when bashlex and a second reading of its text (quote removal done here)
agree and neither finds anything the shell expands: a parameter, a substitution, a glob, a brace
group, a tilde other than `~` or `~/...`. bashlex keeps some substitutions inside a word it calls
plain (`~$(cmd)`, `${x:-$(cmd)}`, a here-document's body): those make the line `unsure`, as does
anything bashlex cannot parse (`parse` returns None).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import bashlex  # a dependency: without the parser no command rule can be judged, so fail at import

Word = str | None  # None: the shell decides the value (an expansion, a glob, a substitution)


@dataclass(frozen=True)
class Command:
    words: tuple[Word, ...]
    text: str  # the simple command as written
    assigned: tuple[str, ...] = ()  # the names of `NAME=value` words in front
    files: bool = False  # a redirection to or from a file (not `2>&1`)


@dataclass(frozen=True)
class Line:
    commands: tuple[Command, ...]  # every simple command, in the order written
    unsure: bool  # something runs that the parser did not resolve
    simple: bool  # the whole line is one simple command

    def plain(self) -> Command | None:
        """The one command of a line that is nothing but a plain command, else None."""
        if not self.simple or self.unsure or len(self.commands) != 1:
            return None
        command = self.commands[0]
        if command.assigned or command.files or not command.words or None in command.words:
            return None
        return command


# `time` before a pipeline is a reserved word bashlex does not implement; at the start of the line,
# with no option but -p (dash runs /usr/bin/time, whose `-o file` writes), it only measures what
# follows, so it is read as blanks (the positions stay those of the original).
_LEADING_TIME = re.compile(r"\A(\s*time(?:\s+-p)?\s+)(?=[^\s-])")
_SUBSTITUTION = re.compile(r"\$\(|`|\$\{")


@lru_cache(maxsize=256)
def parse(line: str) -> Line | None:
    """The line's commands, or None when bashlex cannot parse it (the caller fails closed)."""
    if "\0" in line:
        return None
    text = _LEADING_TIME.sub(lambda m: " " * len(m.group(1)), line)
    try:
        trees = bashlex.parse(text)
    except Exception:  # noqa: BLE001 - bashlex raises many kinds (NotImplementedError for case, [[, $((...)))
        return None
    walk = _Walk(text)
    try:
        for tree in trees:
            walk.node(tree)
    except (AttributeError, TypeError, ValueError):  # a tree of a shape not read here: not resolved
        return None
    simple = len(trees) == 1 and trees[0].kind == "command" and text == line
    return Line(tuple(walk.commands), walk.unsure, simple)


class _Walk:
    def __init__(self, text: str) -> None:
        self.text = text
        self.commands: list[Command] = []
        self.unsure = False

    def node(self, node: bashlex.ast.node) -> None:
        kind = node.kind
        if kind == "command":
            self.command(node)
        elif kind in ("commandsubstitution", "processsubstitution"):
            self.node(node.command)
        elif kind in ("word", "assignment"):
            self.word(node)
        elif kind == "redirect":
            self.redirect(node)
        else:
            for child in [*getattr(node, "parts", ()), *getattr(node, "list", ())]:
                self.node(child)

    def command(self, node: bashlex.ast.node) -> None:
        # Added before its substitutions: the order written, outermost first.
        at = len(self.commands)
        words: list[Word] = []
        assigned: list[str] = []
        files = False
        for part in node.parts:
            if part.kind == "word":
                words.append(self.word(part))
            elif part.kind == "assignment":
                assigned.append(part.word.split("=", 1)[0])
                self.word(part)
            elif part.kind == "redirect":
                files = self.redirect(part) or files
            else:
                self.node(part)
        start, end = node.pos
        self.commands.insert(at, Command(tuple(words), self.text[start:end], tuple(assigned), files))

    def word(self, node: bashlex.ast.node) -> Word:
        """The word's value, or None; collects the commands of its substitutions."""
        parts = getattr(node, "parts", ())
        for part in parts:
            if part.kind in ("commandsubstitution", "processsubstitution"):
                self.node(part)
            elif _SUBSTITUTION.search(getattr(part, "value", None) or ""):
                # `${x:-$(cmd)}`, `~$(cmd)`: bashlex keeps the command inside the word, unparsed.
                self.unsure = True
        start, end = node.pos
        raw = self.text[start:end]
        if _written_substitutions(raw) > _parsed_substitutions(node):
            self.unsure = True  # `~$('rm' x)`: bashlex dropped the command from the word's parts
        if any(part.kind != "tilde" for part in parts):
            return None
        value = unquote(raw)
        return value if value == node.word else None  # two readings that differ: trust neither

    def redirect(self, node: bashlex.ast.node) -> bool:
        """Whether it names a file; collects the commands in its target and here-document."""
        heredoc = getattr(node, "heredoc", None)
        if heredoc is not None and _SUBSTITUTION.search(heredoc.value):
            self.unsure = True  # an unquoted here-document runs its substitutions
        if node.type in (">&", "<&") and isinstance(node.output, int):
            return False
        if getattr(node.output, "kind", None) == "word":
            self.word(node.output)
        return True


_OPENS = re.compile(r"\$\(|<\(|>\(")


def _written_substitutions(raw: str) -> int:
    """How many command substitutions the text of a word opens, outside single quotes and escapes."""
    live, quote, escaped = [], "", False
    for c in raw:
        if escaped:
            escaped = False
        elif quote == "'":
            quote = "" if c == "'" else quote
        elif c == "\\":
            escaped = True
        elif c == "'" and not quote:
            quote = "'"
        elif c == '"':
            quote = "" if quote == '"' else '"'
        else:
            live.append(c)
    text = "".join(live)
    return len(_OPENS.findall(text)) + (text.count("`") + 1) // 2


def _parsed_substitutions(node: bashlex.ast.node) -> int:
    """How many bashlex found in the word, nested ones too."""
    count = node.kind in ("commandsubstitution", "processsubstitution")
    children = [*getattr(node, "parts", ()), *getattr(node, "list", ())]
    children += [child for child in (getattr(node, "command", None),) if child is not None]
    return count + sum(_parsed_substitutions(child) for child in children if hasattr(child, "kind"))


_GLOB = set("*?")
_SPECIAL = set("$`<>()|;&")


def unquote(raw: str) -> Word:
    """The word after quote removal, or None when the shell would expand something in it."""
    if raw.startswith("~") and raw.split("/", 1)[0] != "~":
        return None  # `~user`, `~+`, or a tilde that hides a substitution
    out: list[str] = []
    quote = ""
    i = 0
    while i < len(raw):
        c = raw[i]
        if quote == "'":
            if c == "'":
                quote = ""
            else:
                out.append(c)
        elif quote == '"':
            if c == "\\" and i + 1 < len(raw) and raw[i + 1] in '$`"\\\n':
                i += 1
                out.append(raw[i] if raw[i] != "\n" else "")
            elif c in "$`":
                return None
            elif c == '"':
                quote = ""
            else:
                out.append(c)
        elif c in "'\"":
            quote = c
        elif c == "\\":
            if i + 1 == len(raw):
                return None
            i += 1
            out.append(raw[i] if raw[i] != "\n" else "")
        elif c in _GLOB or c in _SPECIAL or (c == "[" and "]" in raw[i + 1 :]) or (c in "{}" and raw != "{}"):
            return None
        else:
            out.append(c)
        i += 1
    return None if quote else "".join(out)
