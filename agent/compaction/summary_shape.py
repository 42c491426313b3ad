"""Whether a model's reply is a summary at all.

A small model asked to compact may answer "I'm ready to help. What's the task you'd like to
discuss?" (57 characters, none of the sections): committed, it would replace the whole conversation.
A reply is taken as a summary when it has the `<summary>` block the prompt asks for, or a numbered
section, or names one of the sections (agent/text/prompts/compact.*.md, "1. Primary requests and intent:
..."), in either language.
"""

from __future__ import annotations

import re
from functools import cache

from agent.text.prompts import load_prompt

_HEADING = re.compile(r"^\s*\d\.\s*([^:：]+)[:：]", re.M)


@cache
def section_titles() -> tuple[str, ...]:
    """The six section titles, English and Chinese, lower-cased (from the prompt: one owner)."""
    titles = []
    for lang in ("en", "zh"):
        titles += [m.group(1).strip().lower() for m in _HEADING.finditer(load_prompt("compact", lang))]
    return tuple(titles)


def _words(title: str) -> str:
    # "Primary requests and intent" is matched by its first words: models write "Primary requests:".
    return " ".join(title.split()[:2]) if " " in title else title[:4]


_NUMBERED = re.compile(r"^\s*[1-6]\.\s", re.M)


def is_summary_shaped(reply: str) -> bool:
    """`reply` is the model's whole text, before the <summary> block is taken out of it."""
    if "<summary>" in reply or _NUMBERED.search(reply):
        return True
    lowered = " ".join(reply.lower().split())
    return any(_words(title) in lowered for title in section_titles())


def firmer_prompt(prompt: str, lang: str) -> str:
    """The compaction prompt again, with a reminder that the last reply was not a summary."""
    return prompt + "\n\n" + load_prompt("compact_firm", lang)
