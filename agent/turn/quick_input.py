"""Claude Code's two quick inputs at the prompt: `!command` runs a shell command at once, and `# note`
adds a line to a memory file. Neither asks the model anything; what they did joins the history as the
user's own message, so the model knows it from the next turn on (and /undo, /rewind take it back like
a turn).

`!` runs through the one place every allowed command runs (agent.tools.builtin.run_allowed: the
output cap, the process group, no keys in the environment, and the OS sandbox where there is one); the
user typed it, so it is not asked about. `#` writes without following a symlink (agent.store.confined):
a cloned repository's AGENTS.md that links to ~/.bashrc is refused, never appended to.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import TYPE_CHECKING

from agent.events import Listing, Notice, Question, ask
from agent.text.i18n import t

if TYPE_CHECKING:
    from agent.state.app import AppState

PREFIXES = ("!", "#")
USER_SHELL_KEY = "user_input"  # in the message's metadata: "shell" or "memory", what the user did
SHELL_TIMEOUT = 600.0  # seconds, as the model's longest; Ctrl-C or Esc ends it sooner
OUTPUT_LINES = 200  # lines of a command's output shown; the model gets the whole (capped) output
INTERRUPTED = "[interrupted by the user]"


def is_quick(text: str) -> bool:
    return text[:1] in PREFIXES


async def run(state: AppState, text: str) -> None:
    """`!command` or `# note`, as typed at the prompt."""
    body = text[1:].strip()
    if not body:
        state.emit(Notice(t("quick_usage", state.lang), "warn"))
        return
    if text.startswith("!"):
        await run_command(state, body)
    else:
        await remember(state, body)


# --- ! -----------------------------------------------------------------------------------------


async def run_command(state: AppState, command: str) -> None:
    """Run `command` in the workspace, show its output, and add both to the history; Ctrl-C kills it
    and the history says it was interrupted."""
    from agent.tools.builtin import run_allowed
    from agent.tools.sandbox import confine

    if "\0" in command:
        state.emit(Notice(t("quick_nul", state.lang), "error"))
        return
    state.file_history.make_checkpoint(len(state.history), "!" + command)
    output = INTERRUPTED
    try:
        output = await run_allowed(state, command, SHELL_TIMEOUT, confine.for_command(state, command))
    finally:
        add_user_message(state, "user_shell", "shell", command=command, output=output)
        if output != INTERRUPTED:
            state.emit(Listing(tuple(shown_output(output, state.lang))))


def shown_output(output: str, lang: str) -> list[str]:
    """The output's last lines as the user sees them, and how the command ended in their language."""
    *lines, ending = output.rstrip("\n").split("\n")
    if len(lines) > OUTPUT_LINES:
        lines = [t("lines_above", lang, n=len(lines) - OUTPUT_LINES), *lines[-OUTPUT_LINES:]]
    if code := re.fullmatch(r"\[exit code: (-?\d+)\]", ending.strip()):
        ending = t("exit_code", lang, code=code.group(1))
    elif killed := re.fullmatch(r"\[killed: timed out after (\S+) seconds\]", ending.strip()):
        ending = t("timed_out", lang, seconds=killed.group(1))
    return [*lines, ending]


# --- # -----------------------------------------------------------------------------------------


def memory_targets(workspace: Path) -> dict[str, Path]:
    """Where `#` writes: the project's memory file (AGENTS.md, or the CLAUDE.md a Claude Code user
    has), the user's (ours, or Claude Code's ~/.claude/CLAUDE.md where only that one exists)."""
    from agent.config import claude_home, data_home

    project = next(
        (workspace / name for name in ("AGENTS.md", "CLAUDE.md") if (workspace / name).exists()),
        workspace / "AGENTS.md",
    )
    ours, theirs = data_home() / "AGENTS.md", claude_home() / "CLAUDE.md"
    user = theirs if theirs.exists() and not ours.exists() else ours
    return {"p": project, "u": user}


async def remember(state: AppState, note: str) -> None:
    """Ask which memory file, append `- note` to it, and tell the model now (the instructions keep
    their bytes for the session's prompt cache; the next session reads the file)."""
    targets = memory_targets(state.workspace)
    question = t(
        "memory_where",
        state.lang,
        project=_short(targets["p"], state.workspace),
        user=_short(targets["u"], state.workspace),
    )
    choice = (await ask(state.emit, Question(question))).strip().lower()[:1]
    if choice not in targets:
        state.emit(Notice(t("memory_not_saved", state.lang), "warn"))
        return
    path = targets[choice]
    try:
        await asyncio.to_thread(append_line, path, note)
    except OSError as exc:
        state.emit(Notice(t("memory_save_failed", state.lang, path=path, error=_why(exc, state.lang)), "error"))
        return
    state.file_history.make_checkpoint(len(state.history), "# " + note)
    add_user_message(state, "user_memory", "memory", path=_short(path, state.workspace), note=note)
    state.emit(Notice(t("memory_saved", state.lang, path=path)))


def append_line(path: Path, note: str) -> None:
    """`- note` at the end of `path` (made if missing), written without following a symlink."""
    from agent.store.confined import read_under, restore_under

    root = path.parent
    old = read_under(root, path) or b""
    if old and not old.endswith(b"\n"):
        old += b"\n"
    restore_under(root, path, old + f"- {note}\n".encode())


def _why(exc: OSError, lang: str) -> str:
    from agent.store.confined import Refused

    if isinstance(exc, Refused):
        return t("memory_not_plain", lang, part=exc.part, why=t(f"confined_{exc.why}", lang))
    return str(exc.strerror or exc)


def _short(path: Path, workspace: Path) -> str:
    try:
        return "./" + path.relative_to(workspace).as_posix()
    except ValueError:
        home = Path.home()
        return "~/" + path.relative_to(home).as_posix() if path.is_relative_to(home) else str(path)


# --- the history -------------------------------------------------------------------------------


def add_user_message(state: AppState, prompt: str, kind: str, **values: str) -> None:
    """The user's message saying what they did (the prompt `prompt` filled with `values`), appended
    and saved like a turn's messages."""
    from pydantic_ai.messages import ModelRequest, UserPromptPart

    from agent.text.prompts import load_prompt
    from agent.turn.loop import sync_history

    text = load_prompt(prompt, state.lang).format(**values)
    message = ModelRequest(parts=[UserPromptPart(text)], metadata={USER_SHELL_KEY: kind})
    if error := sync_history(state, [*state.history, message]):
        state.emit(Notice(error, "warn"))
