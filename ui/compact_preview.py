"""/compact preview: the summary and what the compaction would drop are shown before anything
changes, and the user applies, edits or cancels. Editing opens $VISUAL or $EDITOR on the summary in
a temporary file, as git does for a commit message; without one, in a multi-line field in place."""

from __future__ import annotations

import asyncio
import os
import shlex
import tempfile
from pathlib import Path

from agent.text.i18n import t
from ui.registry import CommandHost
from ui.render import dropped_text

# The answers, in either language's habit.
APPLY, EDIT, CANCEL = ("a", "apply", "y", "yes", "应用"), ("e", "edit", "编辑"), ("c", "cancel", "n", "no", "取消")


def reviewer(app: CommandHost):
    """The question flow.compact asks between the summary request and the swap."""

    async def review(summary: str, dropped: dict) -> str | None:
        while True:
            app.say(t("preview_title", app.lang), "info")
            app.say(summary, "plain")
            app.say(dropped_text(dropped, app.lang, named=None), "plain")
            answer = (await app.ask(t("preview_question", app.lang))).strip().lower()
            if answer in APPLY:
                return summary
            if answer in EDIT:
                summary = await edit(app, summary)
            elif answer in CANCEL or not answer:
                return None

    return review


async def edit(app: CommandHost, summary: str) -> str:
    """The summary as the user left it in their editor, or in place where they have none (unchanged
    when the editor fails)."""
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
    if not editor:
        return await app.edit(t("preview_edit_here", app.lang), summary)
    with tempfile.TemporaryDirectory(prefix="coding-agent-summary-") as folder:
        path = Path(folder) / "summary.md"
        path.write_text(summary, encoding="utf-8")
        process = await asyncio.create_subprocess_exec(*shlex.split(editor), str(path))
        if await process.wait() != 0:
            app.say(t("preview_editor_failed", app.lang, code=process.returncode), "warn")
            return summary
        return path.read_text(encoding="utf-8").strip()
