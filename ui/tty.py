"""The terminal while a turn runs.

Keys typed during a turn are not echoed: the terminal would print them (Ctrl-C as "^C") where the
live answer's cursor is, push it onto a new line, and the next redraw would leave a second copy of
the answer's first lines behind. Ctrl-C still interrupts (ISIG stays on), Esc interrupts as in Claude
Code (`EscapeWatch` reads the keys one by one to see it), and the rest of what was typed waits for
the next prompt (prompt-toolkit's type-ahead).
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO

ESC = b"\x1b"


def _terminal(stream: TextIO | None) -> tuple[int, list[Any]] | None:
    """The terminal's fd and its settings, or None when it is not a terminal (a pipe, Windows)."""
    try:
        import termios

        fd = (stream or sys.stdin).fileno()
        if not os.isatty(fd):
            return None
        return fd, termios.tcgetattr(fd)
    except (ImportError, OSError, ValueError):
        return None


def _set(fd: int, attrs: list[Any]) -> None:
    import termios

    try:
        termios.tcsetattr(fd, termios.TCSANOW, attrs)
    except OSError:
        pass


@contextmanager
def keys_not_echoed(stream: TextIO | None = None) -> Iterator[None]:
    found = _terminal(stream)
    if found is None:
        yield
        return
    import termios

    fd, saved = found
    quiet = list(saved)
    quiet[3] &= ~(termios.ECHO | termios.ECHOCTL)
    _set(fd, quiet)
    try:
        yield
    finally:
        _set(fd, saved)


class EscapeWatch:
    """While a turn runs: the keys are read as they come (not echoed, ISIG on, so Ctrl-C still
    signals); a lone Esc calls `on_escape`; everything else is kept in `typed` for the next prompt.
    An arrow key's sequence (Esc and more, in one read) is not an Esc. Not a terminal: does nothing."""

    def __init__(self, on_escape: Callable[[], None], stream: TextIO | None = None) -> None:
        self.on_escape = on_escape
        self.stream = stream
        self.typed = b""
        self._fd: int | None = None
        self._saved: list[Any] = []
        self._reading = False

    def __enter__(self) -> EscapeWatch:
        found = _terminal(self.stream)
        if found is not None:
            self._fd, self._saved = found
            self.resume()
        return self

    def __exit__(self, *exc: object) -> None:
        self.pause()

    def resume(self) -> None:
        """Read keys (again, after a question had the terminal)."""
        if self._fd is None or self._reading:
            return
        import termios

        keys = list(self._saved)
        keys[3] &= ~(termios.ECHO | termios.ECHOCTL | termios.ICANON)
        keys[6] = list(keys[6])
        keys[6][termios.VMIN], keys[6][termios.VTIME] = 1, 0
        _set(self._fd, keys)
        asyncio.get_running_loop().add_reader(self._fd, self._read)
        self._reading = True

    def pause(self) -> None:
        """Give the terminal back as it was (a question's prompt, the next prompt)."""
        if self._fd is None or not self._reading:
            return
        asyncio.get_running_loop().remove_reader(self._fd)
        _set(self._fd, self._saved)
        self._reading = False

    def take(self) -> bytes:
        """What was typed and not yet given to a prompt."""
        typed, self.typed = self.typed, b""
        return typed

    def _read(self) -> None:
        assert self._fd is not None
        try:
            data = os.read(self._fd, 4096)
        except OSError:
            data = b""
        if not data:  # the terminal is gone: stop watching it
            self.pause()
            return
        if data.endswith(ESC):
            self.typed += data[:-1]
            self.on_escape()
            return
        self.typed += data


def typeahead(data: bytes, input_obj: Any) -> None:
    """Hand keys read during a turn to the next prompt on `input_obj`, as prompt-toolkit keeps those
    it read too early itself."""
    if not data or input_obj is None:
        return
    from prompt_toolkit.input.typeahead import store_typeahead
    from prompt_toolkit.input.vt100_parser import Vt100Parser

    keys: list[Any] = []
    parser = Vt100Parser(keys.append)
    parser.feed(data.decode("utf-8", errors="replace"))
    parser.flush()
    store_typeahead(input_obj, keys)
