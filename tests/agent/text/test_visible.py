"""Issue 19, findings 1 and 2: the escape rule. Every code point is either drawn as itself because
it is visible and printable, or shown as an escape; none is let through because a list forgot it."""

from __future__ import annotations

import unicodedata

import pytest

from agent.text.visible import DEFAULT_IGNORABLE, pieces
from ui.approval import plain

# Categories a terminal draws as nothing, as a movement, or as the terminal pleases.
_NOT_SHOWN = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}
_BLANK_GLYPHS = {0x2800, 0x3164, 0x115F, 0x1160, 0xFFA0, 0x1D159}  # braille blank, Hangul fillers, null notehead


def _ignorable_oracle() -> set[int]:
    """Default_Ignorable_Code_Point from the `regex` package's own Unicode tables when it is
    installed (an independent source), else from the ranges the code ships."""
    try:
        import regex
    except ImportError:
        return {c for a, b in DEFAULT_IGNORABLE for c in range(a, b + 1)}
    found = regex.findall(
        r"\p{Default_Ignorable_Code_Point}",
        "".join(chr(c) for c in range(0xD800)) + "".join(chr(c) for c in range(0xE000, 0x110000)),
    )
    return {ord(c) for c in found}


def _must_escape(code: int, ignorable: set[int]) -> bool:
    category = unicodedata.category(chr(code))
    return category in _NOT_SHOWN or (category == "Zs" and code != 0x20) or code in ignorable or code in _BLANK_GLYPHS


def test_every_code_point_is_escaped_or_visibly_printable():
    ignorable = _ignorable_oracle()
    wrong = []
    for code in range(0x110000):
        char = chr(code)
        shown = list(pieces(char))
        escaped = shown != [(char, False)]
        if escaped != _must_escape(code, ignorable):
            wrong.append(f"U+{code:04X} {unicodedata.category(char)} escaped={escaped}")
        elif escaped and not shown[0][0].isascii():
            wrong.append(f"U+{code:04X}: its escape {shown[0][0]!r} is not plain ASCII")
    assert wrong == []


@pytest.mark.parametrize(
    "char",
    [
        "\u206a",
        "\u206f",
        "\U000e0041",
        "\ufe0f",
        "\U000e0100",
        "\u180e",
        "\u034f",
        "\u061c",
        "\u1160",
        "\u17b4",
        "\u17b5",
        "\u2800",
        "\u3164",
        "\u00a0",
        "\u3000",
        "\u2028",
        "\ud800",
        "\ue000",
        "\u00ad",
    ],
)
def test_the_characters_the_review_found_are_escaped(char):
    shown = plain(char)
    assert shown.isascii() and shown.startswith(("\\u", "\\x", "\\U")) and plain(f"a{char}b") == f"a{shown}b"


def test_a_run_of_one_hidden_character_is_one_escape_and_a_count():
    assert plain("echo PWNED > f; #" + "\u2800" * 12_000 + " ls -la") == "echo PWNED > f; #\\u2800×12000 ls -la"
    assert plain("a\u200b\u200bb") == "a\\u200b\\u200bb"  # short runs stay as they are
    assert plain("x\n\ty 中文 é ü\u0301") == "x\n\ty 中文 é ü\u0301"  # text, tabs, newlines, combining marks kept
