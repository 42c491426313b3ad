"""A streamed markdown answer whose rendering cost grows with its length, not with its square.

Finished blocks (text up to a blank line outside a code fence) are printed once, for good; only
the open block is redrawn, by rich's Live at its own refresh rate rather than on every delta, and
never taller than the terminal (a region taller than the screen cannot be redrawn in place).
"""

from __future__ import annotations

import re

from rich.console import Console, ConsoleOptions, RenderResult
from rich.live import Live
from rich.segment import Segment, Segments

REFRESH_PER_SECOND = 8
_FENCES = ("```", "~~~")
_LIST_ITEM = re.compile(r"([-*+]|\d{1,9}[.)])(\s|$)")


def markdown(text: str):
    # markdown-it is slow to import: not on the start-up path.
    from rich.markdown import Markdown

    # No OSC 8 links: a link's target may differ from its text; "text (target)" shows both.
    return Markdown(text, hyperlinks=False)


def _blank(line: list[Segment]) -> bool:
    return all(not seg.text.strip() and not (seg.style and seg.style.bgcolor) for seg in line)


def block_lines(console: Console, text: str, options: ConsoleOptions, first: bool) -> list[list[Segment]]:
    """One block's lines, spaced as in a whole document: one blank line before it unless it is first.

    (Rendered alone, rich's Markdown starts some blocks with a blank line and ends others with one.)
    """
    lines = console.render_lines(markdown(text), options.update(height=None), pad=False)
    while lines and _blank(lines[0]):
        lines.pop(0)
    while lines and _blank(lines[-1]):
        lines.pop()
    return lines if first or not lines else [[], *lines]


class _OpenBlock:
    """The block still being written: its last lines, as many as the terminal has room for."""

    def __init__(self, stream: MarkdownStream) -> None:
        self.stream = stream

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        text = self.stream.open_text
        if not text.strip():
            return
        lines = block_lines(console, text, options, first=not self.stream.printed)
        for line in lines[-max(1, options.size.height - 2) :]:
            yield from line
            yield Segment.line()


class MarkdownStream:
    def __init__(self, console: Console) -> None:
        self.console = console
        self.open_text = ""  # the text after the last printed block
        self._scanned = 0  # where the first line not looked at yet starts, in open_text
        self._fence = ""  # the marker of the code fence we are in, "" outside one
        self._after_blank = False  # the last whole line was blank, outside a fence
        self._closing = False
        self.printed = 0  # blocks printed for good
        self._live = Live(
            get_renderable=self._view,
            console=console,
            refresh_per_second=REFRESH_PER_SECOND,
            transient=True,
            vertical_overflow="crop",
        )
        self._live.start()

    def _view(self) -> object:
        return "" if self._closing else _OpenBlock(self)

    def feed(self, delta: str) -> None:
        self.open_text += delta
        while (end := self.open_text.find("\n", self._scanned)) >= 0:
            start, self._scanned = self._scanned, end + 1
            self._line(start, self.open_text[start:end])

    def _line(self, start: int, line: str) -> None:
        """Look at one whole line; a new block starting at it lets the blocks before it be printed."""
        stripped = line.strip()
        if self._fence:
            if stripped.startswith(self._fence) and not stripped.strip(self._fence[0]):
                self._fence = ""
            return
        # A list stays one block: printed apart, its items would be spaced as separate lists.
        starts_block = self._after_blank and stripped and not line[:1].isspace() and not _LIST_ITEM.match(line)
        if starts_block and start > 0:
            self._print(start)
        if stripped.startswith(_FENCES):
            self._fence = stripped[:3]
        self._after_blank = not stripped

    def _print(self, end: int) -> None:
        done, self.open_text = self.open_text[:end], self.open_text[end:]
        self._scanned -= end
        self._print_block(done)

    def _print_block(self, text: str) -> None:
        lines = block_lines(self.console, text, self.console.options, first=not self.printed)
        if lines:
            self.console.print(Segments(seg for line in lines for seg in (*line, Segment.line())), end="")
            self.printed += 1

    def close(self) -> None:
        """Print the open block for good and stop redrawing."""
        self._closing = True
        self._live.stop()  # transient: the redrawn region is erased
        self._print_block(self.open_text)
        self.open_text = ""
