"""The terminal while a turn runs.

Keys typed during a turn are not echoed: the terminal would print them (Ctrl-C as "^C") where the
live answer's cursor is, push it onto a new line, and the next redraw would leave a second copy of
the answer's first lines behind. Ctrl-C still interrupts (ISIG stays on) and typed text still
waits for the next prompt.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO


@contextmanager
def keys_not_echoed(stream: TextIO | None = None) -> Iterator[None]:
    try:
        import termios

        fd = (stream or sys.stdin).fileno()
        if not os.isatty(fd):
            raise OSError("not a terminal")
        saved = termios.tcgetattr(fd)
    except (ImportError, OSError, ValueError):  # not a terminal (a pipe, a closed stdin, Windows)
        yield
        return
    quiet = list(saved)
    quiet[3] &= ~(termios.ECHO | termios.ECHOCTL)
    termios.tcsetattr(fd, termios.TCSANOW, quiet)
    try:
        yield
    finally:
        try:
            termios.tcsetattr(fd, termios.TCSANOW, saved)
        except OSError:
            pass
