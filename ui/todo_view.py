"""The task list (agent.tools.todo) as the REPL draws it: when the model changes it, and at /todos."""

from __future__ import annotations

from rich.text import Text

from agent.text.i18n import t
from ui.approval import plain

STYLES = {"pending": "", "in_progress": "bold cyan", "completed": "dim strike"}
MARKS = {"pending": "☐", "in_progress": "▶", "completed": "☑"}


def todo_lines(items: tuple[tuple[str, str], ...], lang: str) -> list[Text]:
    if not items:
        return [Text(t("todo_empty", lang), style="dim")]
    done = sum(1 for _, status in items if status == "completed")
    lines = [Text(t("todo_title", lang, done=done, total=len(items)), style="bold")]
    for content, status in items:
        line = Text(f"  {MARKS.get(status, '?')} ")
        line.append(plain(content), style=STYLES.get(status, ""))
        lines.append(line)
    return lines
