"""The approval question, drawn so that what the user sees is what runs.

The text comes from the model, i.e. from whoever wrote the files and pages it read. Drawn raw, an
escape sequence can erase the line and draw another command in its place, and sixty newlines can
push the real start of a command off the screen above a harmless tail. So every control or invisible
character is shown as an escape (in reverse video, apart from the same text typed literally), long
runs of blank lines or spaces are shown as a count, nothing is cut, and the question says how many
lines it is about. Keys typed before the question was on screen never answer it.
"""

from __future__ import annotations

import re
import sys

from rich.text import Text

from agent.text.i18n import t

# C0 and C1 controls (newline aside), DEL, and the invisible or direction-changing characters that
# make text read differently from what it is (zero-width, bidi overrides, line separators).
_HIDDEN = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")
_HIDDEN_NOT_TAB = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")
_BLANKS = re.compile(r"(?:\n[ \t]*){3,}")  # three or more newlines with only blanks between
_SPACES = re.compile(r" {16,}")
_MARK = "reverse"


def _escape(char: str) -> str:
    code = ord(char)
    named = {"\t": "\\t", "\r": "\\r", "\0": "\\0"}
    if char in named:
        return named[char]
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def plain(text: str) -> str:
    """`text` with every control or invisible character (newlines and tabs kept) written as an
    escape: for anything else the model's text reaches the terminal through (answers, tool lines)."""
    return _HIDDEN_NOT_TAB.sub(lambda m: _escape(m.group()), text)


def _append_line(out: Text, line: str, lang: str) -> None:
    pos = 0
    for m in re.finditer(f"{_HIDDEN.pattern}|{_SPACES.pattern}", line):
        out.append(line[pos : m.start()])
        spaces = m.group()[0] == " " and len(m.group()) >= 16
        shown = f"[{t('approve_spaces', lang, n=len(m.group()))}]" if spaces else _escape(m.group())
        out.append(shown, style=_MARK)
        pos = m.end()
    out.append(line[pos:])


def command_view(command: str, lang: str, header: str) -> tuple[Text, int]:
    """The whole command as a rich Text under `header`, and its number of lines."""
    lines = command.split("\n")
    count = len(lines)
    out = Text(f"{header} ({t('approve_lines', lang, n=count)}):\n", style="bold yellow")
    pos = 0
    for m in _BLANKS.finditer(command):
        for line in command[pos : m.start()].split("\n"):
            out.append("  │ ", style="dim")
            _append_line(out, line, lang)
            out.append("\n")
        blank = m.group().count("\n") - 1
        out.append("  │ ", style="dim")
        out.append(f"[{t('approve_blank_lines', lang, n=blank)}]", style=_MARK)
        out.append("\n")
        pos = m.end()
    for line in command[pos:].split("\n"):
        out.append("  │ ", style="dim")
        _append_line(out, line, lang)
        out.append("\n")
    out.rstrip()
    return out, count


def clear_typeahead(input_obj: object) -> None:
    """Forget keys typed before now: those the terminal holds, and those prompt-toolkit read past
    the end of an earlier input and keeps for the next prompt on `input_obj`."""
    from prompt_toolkit.input.typeahead import clear_typeahead as clear_kept

    try:
        import termios

        if sys.stdin.isatty():
            termios.tcflush(sys.stdin.fileno(), termios.TCIFLUSH)
    except (ImportError, OSError, ValueError):
        pass
    clear_kept(input_obj)  # type: ignore[arg-type]
