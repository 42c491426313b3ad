"""Streaming render cost: CPU time to draw a 50 kB answer streamed in ~4-character deltas.

The answer (headings, paragraphs, lists, code blocks) goes through ui.render.Renderer into a
120x40 terminal console writing to memory, as TextDelta events like the loop emits. CPU time is
the process's (time.process_time), so it includes rich's refresh thread.
  burst   every delta at once: the cost that grows with the number of deltas
  paced   the deltas spread over some seconds, so the live region redraws at its refresh rate
Full run only: the old way (the whole answer's Markdown rebuilt on every delta) for a 6 kB answer,
for comparison; quadratic, so it is not run at 50 kB.
"""

from __future__ import annotations

import argparse
import sys
import time
from io import StringIO
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench import common  # noqa: E402

SIZE = 50_000
DELTA = 4  # characters: about one token
TARGET_SECONDS = 2.0


def answer(size: int) -> str:
    """A markdown answer of about `size` characters, with the blocks a coding answer has."""
    parts: list[str] = []
    n = 0
    while sum(map(len, parts)) < size:
        n += 1
        parts.append(f"## Step {n}\n")
        parts.append(
            f"Step {n} changes the parser so that **tokens** are read once; `lex()` keeps "
            f"its position and the caller asks for the next one when it needs it.\n"
        )
        parts.append(f"- read the grammar for rule {n}\n- write the tokenizer\n- test edge case {n}\n")
        parts.append(f"```python\ndef step_{n}(tokens):\n    for t in tokens:\n        yield t.value * {n}\n```\n")
    return "\n".join(parts)[:size]


def deltas(text: str) -> list[str]:
    return [text[i : i + DELTA] for i in range(0, len(text), DELTA)]


def console():
    from rich.console import Console

    return Console(file=StringIO(), width=120, height=40, force_terminal=True, color_system="truecolor")


def render_new(pieces: list[str], seconds: float = 0.0) -> tuple[float, float]:
    from agent.events import TextDelta
    from ui.render import Renderer

    renderer = Renderer(console(), "en")
    batch = 25  # deltas between pauses: a sleep per delta would mostly time the sleep calls
    pause = seconds * batch / len(pieces)
    cpu, wall = time.process_time(), time.perf_counter()
    for n, piece in enumerate(pieces, start=1):
        renderer(TextDelta(piece))
        if pause and n % batch == 0:
            time.sleep(pause)
    renderer.end_answer()
    return time.process_time() - cpu, time.perf_counter() - wall


def render_old(pieces: list[str]) -> float:
    """What ui/render.py did before: Live.update(Markdown(whole text)) on every delta."""
    from rich.live import Live
    from rich.markdown import Markdown

    live = Live(console=console(), refresh_per_second=8, vertical_overflow="visible")
    live.start()
    text = ""
    cpu = time.process_time()
    for piece in pieces:
        text += piece
        live.update(Markdown(text))
    live.stop()
    return time.process_time() - cpu


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true")
    args = p.parse_args(argv)
    report = common.Report("streaming render cost")
    text = answer(SIZE)
    pieces = deltas(text)
    burst_cpu, burst_wall = render_new(pieces)
    paced_for = 3.0 if args.quick else 20.0
    paced_cpu, paced_wall = render_new(pieces, paced_for)
    rows = [
        ["burst", f"{len(text):,}", len(pieces), burst_wall, burst_cpu],
        ["paced", f"{len(text):,}", len(pieces), paced_wall, paced_cpu],
    ]
    old = None
    if not args.quick:
        small = deltas(answer(6_000))
        old = render_old(small)
        rows.append(["old way (6 kB)", "6,000", len(small), "-", old])
    report.table(["run", "chars", "deltas", "wall s", "cpu s"], rows)
    report.figure("cpu_50kB_burst", burst_cpu, "s", f"<= {TARGET_SECONDS:g} s", burst_cpu <= TARGET_SECONDS)
    report.figure(
        f"cpu_50kB_paced_{paced_for:g}s", paced_cpu, "s", f"<= {TARGET_SECONDS:g} s", paced_cpu <= TARGET_SECONDS
    )
    if old is not None:
        report.figure("cpu_6kB_old_way", old, "s")
    report.finish()
    return 0


if __name__ == "__main__":
    sys.exit(main())
