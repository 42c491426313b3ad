"""The diff a write shows the user, bounded so that no file can make it slow.

difflib's matcher is quadratic in the lines that differ when they share many candidate matches
(old lines 0..n, new ones interleaved): 34 s at 8,000 lines, minutes at 20,000, on the event loop
where Ctrl-C could not reach it. Here the common head and tail are cut off first (linear), and
when what is left would still take the matcher long (more than MAX_PAIRS line pairs to compare)
the change is shown another way instead, linear in the lines: every line of the new file that the
old one lacks and every old line the new one drops, with their line numbers (a set difference).
That still shows each added line, so an approval never rests on a change the user could not read
(agent.tools.builtin refuses a risky write whose change is too long to show whole); only lines that
merely moved are not listed, and the view says so. What is compared runs in a thread, off the event loop.
"""

from __future__ import annotations

import asyncio
import difflib

from agent.text.i18n import t

MAX_PAIRS = 1_000_000  # old x new lines left after the common ends: about 0.3 s at worst


def _common_ends(a: list[str], b: list[str]) -> tuple[int, int]:
    head = 0
    while head < len(a) and head < len(b) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < len(a) - head and tail < len(b) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    return head, tail


def _unified(a: list[str], b: list[str], name: str, lang: str) -> str:
    head, tail = _common_ends(a, b)
    if (len(a) - head - tail) * (len(b) - head - tail) > MAX_PAIRS:
        return _set_difference(a, b, head, tail, name, lang)
    context = 3  # unified_diff's default; the ends cut off keep that many lines for it
    start = max(0, head - context)
    a_mid, b_mid = a[start : len(a) - max(0, tail - context)], b[start : len(b) - max(0, tail - context)]
    lines = list(difflib.unified_diff(a_mid, b_mid, f"a/{name}", f"b/{name}"))
    # unified_diff numbers the lines of what it was given: move the hunks back to the file's lines.
    lines = [_shift(line, start) for line in lines]
    no_eol = "\n\\ No newline at end of file\n"
    return "".join(line if line.endswith("\n") else line + no_eol for line in lines)


def _set_difference(a: list[str], b: list[str], head: int, tail: int, name: str, lang: str) -> str:
    """The lines the new file adds and those it drops, each after its line number: `+12: text`."""
    a_mid, b_mid = a[head : len(a) - tail], b[head : len(b) - tail]
    out = [f"--- a/{name}\n", f"+++ b/{name}\n", t("diff_too_large", lang, old=len(a), new=len(b)) + "\n"]
    for sign, lines, other in (("-", a_mid, set(b_mid)), ("+", b_mid, set(a_mid))):
        for n, line in enumerate(lines, start=head + 1):
            if line not in other:
                end = "" if line.endswith("\n") else "\n\\ No newline at end of file\n"
                out.append(f"{sign}{n}: {line}{end}")
    return "".join(out)


def _shift(line: str, by: int) -> str:
    if not by or not line.startswith("@@ "):
        return line
    old, new = line.split(" ")[1:3]

    def moved(part: str) -> str:
        first, _, count = part[1:].partition(",")
        return f"{part[0]}{int(first) + by}" + (f",{count}" if count else "")

    return f"@@ {moved(old)} {moved(new)} @@" + line.split("@@", 2)[2]


def _lines(data: bytes) -> list[str]:
    # bytes.splitlines breaks only at \n, \r\n and \r, unlike str.splitlines (\f, \x1c, ...).
    return [line.decode("utf-8", errors="replace") for line in data.splitlines(keepends=True)]


def _diff(old: bytes, new: bytes, name: str, lang: str) -> str:
    return _unified(_lines(old), _lines(new), name, lang)


async def file_diff(old: bytes, new: bytes, name: str, lang: str) -> str:
    """The unified diff from `old` to `new` (or a line saying it was too large to compute)."""
    return await asyncio.to_thread(_diff, old, new, name, lang)
