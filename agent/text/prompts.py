"""The system prompt, one text per language. Prompts are data: the texts live in prompts/*.md.

The rendered prompt must stay byte-identical from turn to turn (no clock, no counters), so that the
provider's prefix cache serves every request of a session.
"""

from __future__ import annotations

import platform
from functools import cache
from pathlib import Path

PROMPTS_DIR = Path(__file__).resolve().parent / "prompts"


@cache
def load_prompt(name: str, lang: str) -> str:
    path = PROMPTS_DIR / f"{name}.{lang}.md"
    if not path.exists():
        path = PROMPTS_DIR / f"{name}.en.md"
    return path.read_text(encoding="utf-8").strip()


def system_prompt(workspace: Path, lang: str, rules: str = "") -> str:
    """The system prompt, with `rules` (the memory files' text, agent/tools/memory_files.py) after it."""
    text = load_prompt("system", lang).format(workspace=workspace, os=f"{platform.system()} {platform.release()}")
    if rules:
        text += "\n\n" + load_prompt("agents_md", lang).format(rules=rules)
    return text
