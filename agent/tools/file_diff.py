"""The diff a write shows the user, bounded so that no file can make it slow.

difflib's matcher is quadratic in the lines that differ when they share many candidate matches
(old lines 0..n, new ones interleaved): minutes at tens of thousands of lines, on the event loop
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


class _Middle(difflib.SequenceMatcher):
    """A matcher that compares only what lies between the common head and tail, which it reports as
    equal: its hunks are grouped over the whole file, so each keeps its full context."""

    def __init__(self, a: list[str], b: list[str], head: int, tail: int) -> None:
        super().__init__(None, a[head : len(a) - tail], b[head : len(b) - tail])
        self.ends = head, len(a) - tail, len(b) - tail, len(a), len(b)

    def get_opcodes(self) -> list[tuple[str, int, int, int, int]]:
        head, a_end, b_end, a_len, b_len = self.ends
        codes = [("equal", 0, head, 0, head)] if head else []
        codes += [(tag, i1 + head, i2 + head, j1 + head, j2 + head) for tag, i1, i2, j1, j2 in super().get_opcodes()]
        if a_end < a_len:
            codes.append(("equal", a_end, a_len, b_end, b_len))
        return codes


def _range(start: int, length: int) -> str:
    # unified diff's numbering: an empty range names the line before it.
    first = start + 1 if length else start
    return str(first) if length == 1 else f"{first},{length}"


def _unified(a: list[str], b: list[str], name: str, lang: str) -> str:
    head, tail = _common_ends(a, b)
    if (len(a) - head - tail) * (len(b) - head - tail) > MAX_PAIRS:
        return _set_difference(a, b, head, tail, name, lang)
    out: list[str] = []
    for group in _Middle(a, b, head, tail).get_grouped_opcodes(3):
        first, last = group[0], group[-1]
        out.append(f"@@ -{_range(first[1], last[2] - first[1])} +{_range(first[3], last[4] - first[3])} @@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out += [" " + line for line in a[i1:i2]]
                continue
            out += ["-" + line for line in a[i1:i2]]
            out += ["+" + line for line in b[j1:j2]]
    if not out:
        return ""
    no_eol = "\n\\ No newline at end of file\n"
    out = [f"--- a/{name}\n", f"+++ b/{name}\n", *out]
    return "".join(line if line.endswith("\n") else line + no_eol for line in out)


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


def _lines(data: bytes) -> list[str]:
    # bytes.splitlines breaks only at \n, \r\n and \r, unlike str.splitlines (\f, \x1c, ...).
    return [line.decode("utf-8", errors="replace") for line in data.splitlines(keepends=True)]


def _diff(old: bytes, new: bytes, name: str, lang: str) -> str:
    return _unified(_lines(old), _lines(new), name, lang)


async def file_diff(old: bytes, new: bytes, name: str, lang: str) -> str:
    """The unified diff from `old` to `new` (or a line saying it was too large to compute)."""
    return await asyncio.to_thread(_diff, old, new, name, lang)
