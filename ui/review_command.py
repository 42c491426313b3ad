"""/review: the model reviews the working tree's changes (`git diff HEAD`), as Claude Code's /review
does for a pull request. git runs with the workspace's safety settings (agent.tools.workspace.git_argv:
no repository config may make it run a program, no keys in its environment); the diff is the
project's text and goes to the model framed as such."""

from __future__ import annotations

import asyncio
from pathlib import Path

from agent.text.i18n import t
from ui.registry import CommandHost as App
from ui.registry import command

DIFF_LIMIT = 60_000  # characters of the diff in the request; the model can run git diff for the rest


EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"  # git's empty tree: a repository with no commit yet


def _git(workspace: Path, *args: str) -> str | None:
    from agent.tools.workspace import git_output

    out = git_output(workspace, *args, timeout=60)
    return None if out is None else out.decode("utf-8", errors="replace")


def working_diff(workspace: Path) -> tuple[str, str | None]:
    """(the diff of the working tree against HEAD, with the untracked files named), or ("", the i18n
    key of why there is none)."""
    if _git(workspace, "rev-parse", "--is-inside-work-tree") is None:
        return "", "review_not_a_repo"
    options = ("diff", "--no-ext-diff", "--no-textconv", "--no-color")
    text = _git(workspace, *options, "HEAD")
    if text is None:
        text = _git(workspace, *options, EMPTY_TREE) or ""
    untracked = (_git(workspace, "ls-files", "--others", "--exclude-standard") or "").splitlines()
    if untracked:
        text += "\n# untracked files (not in the diff):\n" + "\n".join(untracked) + "\n"
    return (text, None) if text.strip() else ("", "review_no_changes")


@command("review")
async def cmd_review(app: App) -> None:
    from agent.text.prompts import load_prompt

    diff, why = await asyncio.to_thread(working_diff, app.state.workspace)
    if why is not None:
        app.say(t(why, app.lang), "warn")
        return
    cut = ""
    if len(diff) > DIFF_LIMIT:
        cut = t("review_cut", app.lang, n=len(diff) - DIFF_LIMIT)
        diff = diff[:DIFF_LIMIT]
    files = sum(1 for line in diff.splitlines() if line.startswith("diff --git "))
    app.say(t("review_sending", app.lang, files=files, chars=len(diff)), "dim")
    diff = diff.replace("</git-diff>", "<\\/git-diff>")  # the frame closes only where we close it
    await app.prompt(load_prompt("review", app.lang).format(diff=diff, cut=cut))
