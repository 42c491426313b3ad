"""Which characters reach the terminal as themselves: a rule, not a list of known-bad ones.
(ui.approval.plain applies it to everything the UI draws; here, in agent/, so that the loop side's
few prints, e.g. the --resume picker, use the same rule.)

A character is drawn as itself only if it is visible and printable: not a control, format,
private-use, surrogate or unassigned code point, not a separator other than the plain space
(Python's `str.isprintable` is exactly that test: False for Cc, Cf, Cs, Co, Cn, Zl, Zp and Zs
but " "), not default-ignorable (a terminal may draw it as nothing), and not a glyph that looks
blank (braille blank, the Hangul fillers). Everything else is written as an escape, and a run of
one such character as one escape and a count, so 12,000 braille blanks cannot push the real
command off the screen. Unassigned means unassigned in the Python's Unicode tables (14.0 for 3.11):
a character newer than that is escaped too, which only errs on the safe side.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

# Default_Ignorable_Code_Point, from DerivedCoreProperties.txt of Unicode 15.1 (the same ranges in
# 14.0 and 16.0). unicodedata has no such property; most of these are Cf or Cn (already not
# printable), the rest (Mn variation selectors, U+034F, Khmer inherent vowels, Hangul fillers)
# would otherwise pass as visible.
DEFAULT_IGNORABLE = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
# Assigned, printable and not ignorable, yet drawn as an empty cell by common fonts.
BLANK_LOOKING = "\u2800\U0001d159\u3164\u115f\u1160\uffa0"
_INVISIBLE = frozenset(chr(c) for a, b in DEFAULT_IGNORABLE for c in range(a, b + 1)) | set(BLANK_LOOKING)
_ASCII_SHOWN = re.compile(r"[ -~]*")
RUN = 4  # this many of one hidden character in a row are shown as one escape and a count
_NAMED = {"\t": "\\t", "\r": "\\r", "\0": "\\0"}


def hidden(char: str) -> bool:
    """Whether `char` must be shown as an escape rather than drawn."""
    return not char.isprintable() or char in _INVISIBLE


def escape(char: str) -> str:
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def plain(text: str) -> str:
    """`text` with every character that is not visible and printable (newlines and tabs kept)
    written as an escape, a run of one such character as one escape and a count."""
    if text.isascii() and text.isprintable():
        return text
    return "".join(piece for piece, _ in pieces(text, keep="\n\t"))


def pieces(text: str, keep: str = "") -> Iterator[tuple[str, bool]]:
    """`text` cut into (piece, is_escape): drawn text, and escapes for every hidden character
    (those in `keep`, e.g. a newline, pass as text). A run of one hidden character is one piece."""
    pos, start, n = 0, 0, len(text)
    while pos < n:
        pos = _ASCII_SHOWN.match(text, pos).end()  # the common case, at C speed
        if pos >= n:
            break
        char = text[pos]
        if char in keep or not hidden(char):
            pos += 1
            continue
        end = pos + 1
        while end < n and text[end] == char:
            end += 1
        if pos > start:
            yield text[start:pos], False
        count = end - pos
        yield (escape(char) * count if count < RUN else f"{escape(char)}×{count}"), True
        pos = start = end
    if start < n:
        yield text[start:], False
