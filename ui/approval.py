"""The approval question, drawn so that what the user sees is what runs.

The text comes from the model, i.e. from whoever wrote the files and pages it read. Drawn raw, an
escape sequence can erase the line and draw another command in its place, and sixty newlines can
push the real start of a command off the screen above a harmless tail. So every character that is
not visible and printable (agent.text.visible's rule) is shown as an escape (in reverse video, apart from
the same text typed literally), long runs of blank lines, spaces or one hidden character as a
count, nothing is cut, and the question says how many lines it is about. Keys typed before the
question was on screen never answer it.
"""

from __future__ import annotations

import re
import sys

from rich.text import Text

from agent.text.i18n import t
from agent.text.visible import pieces
from agent.text.visible import plain as plain  # the one escaping function, for everything the UI draws

_BLANKS = re.compile(r"(?:\n[ \t]*){3,}")  # three or more newlines with only blanks between
_SPACES = re.compile(r" {16,}")
_MARK = "reverse"


def _append_line(out: Text, line: str, lang: str) -> None:
    for piece, escaped in pieces(line):
        if escaped:
            out.append(piece, style=_MARK)
            continue
        pos = 0
        for m in _SPACES.finditer(piece):
            out.append(piece[pos : m.start()])
            out.append(f"[{t('approve_spaces', lang, n=len(m.group()))}]", style=_MARK)
            pos = m.end()
        out.append(piece[pos:])


def command_view(command: str, lang: str, header: str, whole: bool = True) -> tuple[Text, int]:
    """The whole command as a rich Text under `header`, and its number of lines. `whole` False: the
    text is a cut of something longer, and the header says so instead of "shown whole"."""
    lines = command.split("\n")
    count = len(lines)
    out = Text(
        f"{header} ({t('approve_lines' if whole else 'approve_lines_cut', lang, n=count)}):\n", style="bold yellow"
    )
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


def grants_view(lines: tuple[str, ...], lang: str, header: str) -> Text:
    """A project's grants under `header`, each one line however it is made: a newline in a grant is
    an escape like any hidden character, so one grant cannot pose as several."""
    out = Text(f"{header}\n", style="bold yellow")
    for line in lines:
        out.append("  │ ", style="dim")
        _append_line(out, line, lang)
        out.append("\n")
    out.rstrip()
    return out


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
