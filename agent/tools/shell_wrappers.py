"""The commands a command runs for it: `env rm x` and `timeout 5 rm x` run `rm x`, `/bin/rm` is
`rm`, `sh -c 'a; b'`, `eval` and `trap` run `a` and `b`, `xargs rm` runs `rm` with more arguments,
`find . -exec rm {} ;` runs `rm`. Deny and ask rules look at each of them and at the wrapper.

Where a wrapper's words cannot be read for sure (an option it does not know, a word the shell
decides, a shell that reads its commands from a stream the line fills, an alias that makes a later
word another command) the line is `unsure`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agent.tools.shell_parse import Command, Word, parse

Words = tuple[Word, ...]
_DEPTH = 8  # wrappers inside wrappers deeper than this are not read: unsure


@dataclass(frozen=True)
class Options:
    """A wrapper's command line, as getopt reads it, up to the command it runs."""

    takes_value: str = ""  # short options with a value: `-n 5`, `-n5`
    flags: str = ""  # short options without one
    long_value: tuple[str, ...] = ()  # `--signal=9`, `--signal 9`
    long_flags: tuple[str, ...] = ()
    optional_value: str = ""  # xargs' `-e[eof]`, `-i[replace]`, `-l[lines]`: a value only when attached
    operands: int = 0  # words between the options and the command (timeout's duration)
    assignments: bool = False  # env: `NAME=value` words before the command
    numbers: bool = False  # nice's `-10`


WRAPPERS: dict[str, Options] = {
    "command": Options(flags="pvV"),
    "builtin": Options(),
    "exec": Options(takes_value="a", flags="cl"),
    "nohup": Options(),
    "setsid": Options(flags="cfw", long_flags=("ctty", "fork", "wait")),
    "env": Options(
        takes_value="uCS",
        flags="i0v",
        long_value=("unset", "chdir", "split-string"),
        long_flags=("ignore-environment", "null", "debug"),
        assignments=True,
    ),
    "time": Options(
        takes_value="fo",
        flags="pvaq",
        long_value=("format", "output"),
        long_flags=("portability", "verbose", "append", "quiet"),
    ),
    "nice": Options(takes_value="n", long_value=("adjustment",), numbers=True),
    "timeout": Options(
        takes_value="sk",
        flags="v",
        long_value=("signal", "kill-after"),
        long_flags=("preserve-status", "foreground", "verbose"),
        operands=1,
    ),
    "stdbuf": Options(takes_value="ioe", long_value=("input", "output", "error")),
    "xargs": Options(
        takes_value="adEILnPs",
        flags="0prtxo",
        optional_value="eil",
        long_value=(
            "arg-file",
            "delimiter",
            "eof",
            "replace",
            "max-lines",
            "max-args",
            "max-procs",
            "max-chars",
            "process-slot-var",
        ),
        long_flags=("null", "interactive", "no-run-if-empty", "verbose", "exit", "open-tty"),
    ),
}
SHELLS = ("sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash")
_SHELL_VALUE = ("-o", "+o", "-O", "+O", "--rcfile", "--init-file")
_FIND_EXEC = ("-exec", "-execdir", "-ok", "-okdir")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


@dataclass
class Seen:
    commands: list[Command]
    unsure: bool = False


def commands_run(line: str) -> Seen | None:
    """Every command the line runs, wrappers read through (the wrapper is kept too); None when the
    line cannot be parsed."""
    parsed = parse(line)
    if parsed is None:
        return None
    seen = Seen([], parsed.unsure)
    for command in parsed.commands:
        _add(command, seen, 0)
    return seen


# Variables that make a shell read commands from a file named at run time.
_STARTUP_FILES = ("BASH_ENV", "ENV")
# Where a file named for a shell to read is a stream the line itself fills (`bash <(echo rm x)`).
_STREAMS = ("/dev/", "/proc/")


def _add(command: Command, seen: Seen, depth: int) -> None:
    if depth > _DEPTH:
        seen.unsure = True
        return
    words = command.words
    seen.commands.append(command)
    if set(command.assigned) & set(_STARTUP_FILES):
        seen.unsure = True
    if not words or words[0] is None:
        return
    name = words[0].rsplit("/", 1)[-1]
    if name != words[0]:  # `/bin/rm` is `rm`
        words = (name, *words[1:])
        seen.commands.append(Command(words, ""))
    for inner in _inner(name, words[1:], seen, depth):
        _add(Command(inner, ""), seen, depth + 1)


def _inner(name: str, args: Words, seen: Seen, depth: int) -> list[Words]:
    """The commands `name args` runs for it (run through `seen` as they are read)."""
    if name in WRAPPERS:
        return _wrapped(name, args, seen, depth)
    if name in SHELLS:
        return _shell(args, seen, depth)
    if name == "busybox":
        return [args] if args else []
    if name == "eval":
        _line(" ".join(args) if None not in args else None, seen, depth)
        return []
    if name == "trap" and args and args[0] not in ("-", "-l", "-p"):
        _line(args[0], seen, depth)  # the handler is a command line, run later
        return []
    if (name == "alias" and args) or (name == "hash" and "-p" in args):
        seen.unsure = True  # an alias, bash's `hash -p`: a later word runs something else
        return []
    if name in (".", "source") and args and _stream(args[0]):
        seen.unsure = True
    if name == "find":
        return _find(args, seen)
    return []


def _stream(word: Word) -> bool:
    return word is None or word.startswith(_STREAMS)


def _wrapped(name: str, args: Words, seen: Seen, depth: int) -> list[Words]:
    options = WRAPPERS[name]
    at, split = _skip(args, options)
    if at is None:
        seen.unsure = True
        return []
    if any(w is not None and w.split("=", 1)[0] in _STARTUP_FILES for w in args[:at] if "=" in (w or "")):
        seen.unsure = True  # env BASH_ENV=... bash: a file the shell reads first
    if split is not None:  # env -S 'cmd args': a command line of its own
        _line(split, seen, depth, args[at:])
        return []
    rest = args[at + options.operands :]
    if name == "xargs":
        # More arguments come from standard input; with no command xargs runs echo.
        return [(*rest, None)] if rest else []
    return [rest] if rest else []


# Wrappers that only change how a command runs, not what it may do: an allow rule looks through them.
PLAIN_WRAPPERS = ("nohup", "nice", "timeout", "stdbuf", "time")


def strip_plain_wrappers(words: tuple[str, ...]) -> tuple[str, ...]:
    """`timeout 5 nice npm test` -> `npm test`; words unchanged where a wrapper's options are not sure."""
    while words and words[0] in PLAIN_WRAPPERS:
        options = WRAPPERS[words[0]]
        at, _ = _skip(words[1:], options)
        if at is None or at + options.operands + 1 >= len(words):
            return words
        if words[0] == "time" and any(w.startswith(("-o", "-a", "--o", "--a")) for w in words[1 : 1 + at]):
            return words  # /usr/bin/time -o FILE writes that file
        words = words[1 + at + options.operands :]
    return words


def _skip(args: Words, options: Options) -> tuple[int | None, str | None]:
    """Where the command starts in `args` (None: unsure), and env -S's string."""
    i, split = 0, None
    while i < len(args):
        word = args[i]
        if word is None:
            return None, None
        if word == "--":
            return i + 1, split
        if options.assignments and (_NAME.match(word) or word == "-"):
            i += 1
            continue
        if word.startswith("--"):
            name, has_value, value = word[2:].partition("=")
            if name in options.long_value:
                value = value if has_value else (args[i + 1] if i + 1 < len(args) else None)
                if value is None:
                    return None, None
                split = value if name == "split-string" else split
                i += 1 if has_value else 2
            elif name in options.long_flags:
                i += 1
            else:
                return None, None
            continue
        if not word.startswith("-") or word == "-":
            return i, split
        if options.numbers and word[1:].isdigit():
            i += 1
            continue
        step, value = _cluster(word, args[i + 1] if i + 1 < len(args) else None, options)
        if step is None:
            return None, None
        split = value if value is not None else split
        i += step
    return i, split


def _cluster(word: str, following: Word, options: Options) -> tuple[int | None, str | None]:
    """How many words a short-option cluster (`-pv`, `-n5`, `-n 5`) takes, and -S's value."""
    for j, letter in enumerate(word[1:], start=1):
        if letter in options.optional_value:
            return 1, None
        if letter in options.takes_value:
            value = word[j + 1 :] or following
            if value is None:
                return None, None
            return (1 if word[j + 1 :] else 2), (value if letter == "S" else None)
        if letter not in options.flags:
            return None, None
    return 1, None


def _shell(args: Words, seen: Seen, depth: int) -> list[Words]:
    """`sh -c 'cmd'` runs cmd; a shell with no script operand reads its commands from standard input."""
    command_mode, i = False, 0
    while i < len(args):
        word = args[i]
        if word is None:
            seen.unsure = True
            return []
        if word in _SHELL_VALUE:
            i += 2
            continue
        if word == "--" or word == "-":
            i += 1
            break
        if not word.startswith(("-", "+")):
            break
        command_mode = command_mode or "c" in word.lstrip("-+") and not word.startswith("--")
        i += 1
    if command_mode:
        _line(args[i] if i < len(args) else None, seen, depth)
    elif i >= len(args) or _stream(args[i]):
        seen.unsure = True  # `... | sh`, `bash <(...)`: the commands come from a stream the line fills
    return []


def _find(args: Words, seen: Seen) -> list[Words]:
    """`-exec cmd {} ;` (and -execdir, -ok, -okdir) run cmd with each file found."""
    found: list[Words] = []
    i = 0
    while i < len(args):
        if args[i] is None:
            seen.unsure = True  # a word the shell decides could be -exec
            return found
        if args[i] in _FIND_EXEC:
            end = next((j for j in range(i + 1, len(args)) if args[j] in (";", "+")), len(args))
            found.append(tuple(None if w == "{}" else w for w in args[i + 1 : end]))
            i = end
        i += 1
    return [words for words in found if words]


def _line(text: Word, seen: Seen, depth: int, more: Words = ()) -> None:
    """A command line inside a command (`sh -c`, `eval`, `env -S`): its commands, read the same way."""
    parsed = parse(text) if text is not None else None
    if parsed is None:
        seen.unsure = True
        return
    seen.unsure = seen.unsure or parsed.unsure
    for i, command in enumerate(parsed.commands):
        words = (*command.words, *more) if i == 0 and more else command.words
        _add(Command(words, command.text, command.assigned, command.files), seen, depth + 1)
