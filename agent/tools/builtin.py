"""The coding tools the model calls. Their docstrings are the tool descriptions: keep them static.

Errors go back to the model as text starting with "Error: " rather than raised: a raised
ModelRetry would end the run once the retry budget ran out, while a plain answer lets it adapt.
"""

from __future__ import annotations

import asyncio
import difflib
import os
import re
from pathlib import Path

from pydantic_ai import RunContext, Tool, ToolReturn

from agent.events import CommandRunning
from agent.state.app import AppState
from agent.store.atomic import replace_file
from agent.tools import grep_worker, images, nested_memory, permissions, write_guard
from agent.tools.answers import ToolError, cap_text
from agent.tools.file_diff import file_diff
from agent.tools.read_cap import read_token_cap
from agent.tools.reading import LINE_CAP, READ_LIMIT, read_for_model, readable_roots
from agent.tools.rereads import reference
from agent.tools.sandbox import confine, offer
from agent.tools.shell import command_env, execute
from agent.tools.workspace import PathError, PatternError, added_folders, iter_files, match_glob, resolve_path, root_of

DIFF_CAP = 50_000
LIST_CAP = 1000  # paths list_files shows
GREP_CAP = 200  # matching lines grep shows
GREP_LINE_CAP = 500  # characters shown of a matching line
MAX_TIMEOUT = 600
GREP_TIMEOUT = 20.0  # seconds a grep may search (CODING_AGENT_GREP_TIMEOUT)


def _s(n: int) -> str:
    return "" if n == 1 else "s"


def _display(path: Path, workspace: Path) -> str:
    try:
        return str(path.relative_to(workspace.resolve()))
    except ValueError:
        return str(path)


# --- read_file -----------------------------------------------------------------------------


def read_file(
    ctx: RunContext[AppState], path: str, offset: int = 1, limit: int = READ_LIMIT
) -> str | list | ToolReturn:
    """Read a text file. Lines come numbered like `cat -n` (the number, a tab, the line).

    Lines longer than 2000 characters are cut. Long files are returned in parts: the answer
    says which `offset` to pass to read the next part. A file must be read before it is edited.

    An image (PNG, JPEG, GIF, WebP) is shown to you as an image, if you take images.

    Args:
        path: File path, relative to the workspace or absolute.
        offset: Line number to start at (1 = first line).
        limit: Maximum number of lines to return.
    """
    try:
        image = images.read_image(path, ctx.deps.workspace, ctx.deps.config, readable_roots(ctx.deps.workspace))
        if image is not None:
            return _with_nested_memory(ctx, path, image)
    except images.ImageError as exc:
        return f"Error: {exc}"
    try:
        cap = read_token_cap(ctx.deps.config.context_window)
        text = read_for_model(path, ctx.deps.workspace, ctx.deps.read_file_state, offset, limit, cap)
        answer = reference([ctx.deps.history, ctx.messages], ctx.tool_call_id, text, path, ctx.deps.lang)
    except ToolError as exc:
        return f"Error: {exc}"
    return _with_nested_memory(ctx, path, answer)


def _with_nested_memory(ctx: RunContext[AppState], path: str, answer: str | list) -> str | list | ToolReturn:
    """A read below the workspace's top brings that folder's AGENTS.md / CLAUDE.md (agent.tools.nested_memory)."""
    try:
        target = resolve_path(path, ctx.deps.workspace)
    except PathError:
        return answer  # the transcript archive: no folder of the project
    return nested_memory.attach(ctx.deps, target, answer, f"{ctx.run_id}:{ctx.run_step}")


# --- write_file / edit_file ----------------------------------------------------------------


def _target_for_write(ctx: RunContext[AppState], path: str) -> Path:
    try:
        target = resolve_path(path, ctx.deps.workspace, write=True)
    except PathError as exc:
        raise ToolError(str(exc)) from exc
    if refused := write_guard.refusal(target):
        raise ToolError(refused)
    return target


async def _ask_for_write(ctx: RunContext[AppState], path: str, target: Path, new: bytes, tool: str) -> None:
    """Raise ToolError unless this write may go ahead: agent.tools.permissions decides (mode, rules, the
    user), write_guard names the risk; the user is shown the change (the diff) when asked."""
    risk = write_guard.approval_reason(path, target, ctx.deps.workspace, new)
    shown = _display(target, ctx.deps.workspace)

    async def change() -> tuple[str, bool]:
        old = target.read_bytes() if target.exists() else b""  # a regular file: write_guard.refusal saw to it
        diff = await file_diff(old, new, shown, ctx.deps.lang)
        if len(diff) <= DIFF_CAP:
            return diff, True
        if risk is not None:  # never written on an approval the user could not read
            raise ToolError(
                f"the change to {shown} is {len(diff):,} characters, too long to show the user whole "
                f"(at most {DIFF_CAP:,}); nothing was written. Make it in smaller edits (edit_file)"
            )
        return cap_text(diff, DIFF_CAP), False

    try:
        await permissions.write(ctx.deps, shown, target, risk, change, tool)
    except permissions.Refused as exc:
        raise ToolError(str(exc)) from exc


async def _commit(ctx: RunContext[AppState], target: Path, old: bytes, new: bytes, message: str) -> ToolReturn:
    ctx.deps.file_history.record_before_write(target, root_of(target, ctx.deps.workspace))
    existed = target.exists()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        replace_file(target, new)
    except OSError as exc:
        kept = "the original file is untouched" if existed else "nothing was written"
        raise ToolError(f"cannot write {target}: {exc.strerror or exc}; {kept}") from exc
    ctx.deps.read_file_state.record(target, new)
    diff = cap_text(await file_diff(old, new, _display(target, ctx.deps.workspace), ctx.deps.lang), DIFF_CAP)
    # The model only sees return_value; metadata reaches the UI through the ToolReturnPart.
    return ToolReturn(return_value=message, metadata={"diff": diff})


async def write_file(ctx: RunContext[AppState], path: str, content: str) -> ToolReturn | str:
    """Create a file, or replace the whole content of an existing one (read it first).

    Prefer edit_file to change part of an existing file. Parent directories are created.

    Args:
        path: File path, relative to the workspace or absolute.
        content: The complete new content of the file.
    """
    try:
        target = _target_for_write(ctx, path)
        new = content.encode("utf-8", errors="replace")  # a lone surrogate from the model becomes "?"
        await _ask_for_write(ctx, path, target, new, "write_file")
        existed = target.exists()
        if existed and (stale := ctx.deps.read_file_state.check_fresh(target)):
            raise ToolError(stale)
        old = target.read_bytes() if existed else b""
        lines = content.count("\n") + (0 if content.endswith("\n") or not content else 1)
        verb = "Wrote" if existed else "Created"
        return await _commit(ctx, target, old, new, f"{verb} {path} ({lines} line{_s(lines)})")
    except ToolError as exc:
        return f"Error: {exc}"
    except OSError as exc:
        return f"Error: cannot read {path}: {exc.strerror or exc}"


def _not_found_hint(text: str, old_string: str) -> str:
    first = next((line.strip() for line in old_string.splitlines() if line.strip()), "")
    lines = text.splitlines()
    if not first or len(lines) > 20_000:  # keep the hint cheap
        return ""
    stripped = [line.strip() for line in lines]
    if first in stripped:
        n = stripped.index(first) + 1
        return f" Line {n} has that text with different indentation or line breaks."
    close = difflib.get_close_matches(first, stripped, n=1, cutoff=0.6)
    if close:
        n = stripped.index(close[0]) + 1
        return f" The closest line is {n}: {cap_text(lines[n - 1].strip(), 200)!r}."
    return ""


def _replace(text: str, old: str, new: str, replace_all: bool, path: str) -> tuple[str, int]:
    count = text.count(old)
    if count == 0 and "\r\n" in text and "\n" in old and "\r\n" not in old:
        # The model writes "\n"; the file uses Windows line endings.
        old, new = old.replace("\n", "\r\n"), new.replace("\n", "\r\n")
        count = text.count(old)
    if count == 0:
        hint = _not_found_hint(text, old)
        raise ToolError(f"old_string was not found in {path}.{hint} Copy the text exactly as read_file shows")
    if count > 1 and not replace_all:
        raise ToolError(
            f"old_string occurs {count} times in {path}; add surrounding lines to make it unique, "
            "or pass replace_all=true"
        )
    return text.replace(old, new), count


async def edit_file(
    ctx: RunContext[AppState], path: str, old_string: str, new_string: str, replace_all: bool = False
) -> ToolReturn | str:
    """Replace exact text in a file you have read. `old_string` must match the file exactly
    (indentation included, without the line-number prefix read_file shows) and only once,
    unless `replace_all` is true.

    Args:
        path: File path, relative to the workspace or absolute.
        old_string: The exact text to replace.
        new_string: The text to put in its place.
        replace_all: Replace every occurrence instead of requiring exactly one.
    """
    try:
        if not old_string:
            raise ToolError("old_string is empty; use write_file to create or overwrite a file")
        if old_string == new_string:
            raise ToolError("old_string and new_string are identical; nothing to change")
        target = _target_for_write(ctx, path)
        if not target.exists():
            raise ToolError(f"no such file: {path}; use write_file to create it")
        if stale := ctx.deps.read_file_state.check_fresh(target):
            raise ToolError(stale)
        old = target.read_bytes()
        # surrogateescape: bytes that are not UTF-8 survive the round trip untouched.
        text = old.decode("utf-8", errors="surrogateescape")
        new_text, count = _replace(text, old_string, new_string, replace_all, path)
        new = new_text.encode("utf-8", errors="surrogateescape")
        await _ask_for_write(ctx, path, target, new, "edit_file")
        return await _commit(ctx, target, old, new, f"Edited {path}: replaced {count} occurrence{_s(count)}")
    except ToolError as exc:
        return f"Error: {exc}"
    except OSError as exc:
        return f"Error: cannot read {path}: {exc.strerror or exc}"


# --- list_files / grep ---------------------------------------------------------------------


def list_files(ctx: RunContext[AppState], pattern: str = "**/*") -> str:
    """List files in the workspace matching a glob pattern, sorted by path.

    `*` matches within one directory, `**` across directories, `{a,b}` either: `**/*.py` is
    every Python file, `src/*.{ts,tsx}` the TypeScript files directly in src. Files ignored by
    git (.gitignore) are left out.

    Args:
        pattern: Glob pattern, relative to the workspace.
    """
    root = ctx.deps.workspace.resolve()
    pattern = pattern.strip().removeprefix(str(root) + "/").removeprefix("./")
    # A folder the user added (/add-dir) is listed by its absolute path, as the model names it.
    added = next((f for f in added_folders(root) if pattern.startswith(f"{f}/")), None)
    if added is not None:
        pattern = pattern.removeprefix(f"{added}/")
    if pattern.startswith("/") or ".." in Path(pattern).parts:
        return "Error: the pattern must be relative to the workspace (or start with a folder the user added)"
    try:
        matches = sorted((f"{added}/{p}" if added else p) for p in iter_files(added or root) if match_glob(pattern, p))
    except PatternError as exc:
        return f"Error: invalid pattern {pattern!r}: {exc}"
    if not matches:
        return f"No files match {pattern}"
    shown = "\n".join(matches[:LIST_CAP])
    if len(matches) > LIST_CAP:
        shown += f"\n[... {len(matches) - LIST_CAP} more files not shown; use a narrower pattern]"
    return shown


def _grep_targets(base: Path, workspace: Path) -> list[tuple[str, str]]:
    """(path, shown name) of each file to search: in the workspace or the archive, symlinks included."""
    files = (
        [(base, _display(base, workspace))]
        if base.is_file()
        else [(base / rel, _display(base / rel, workspace)) for rel in sorted(iter_files(base))]
    )
    roots = readable_roots(workspace)
    targets = []
    for file, name in files:
        try:
            # A symlink inside the workspace may point out of it: its content is off limits too.
            resolve_path(str(file), workspace, readable_roots=roots)
        except PathError:
            continue
        targets.append((str(file), name))
    return targets


async def grep(ctx: RunContext[AppState], pattern: str, path: str = ".") -> str:
    """Search files for a regular expression (Python syntax; `(?i)` for case-insensitive).

    Prints matching lines as `file:line:text`. Searches a directory recursively, skipping
    binary files and files ignored by git.

    Args:
        pattern: Regular expression to search for.
        path: File or directory to search, relative to the workspace.
    """
    workspace = ctx.deps.workspace
    try:
        re.compile(pattern)
        base = resolve_path(path, workspace, readable_roots=readable_roots(workspace))
    except re.error as exc:
        return f"Error: invalid regular expression: {exc}"
    except PathError as exc:
        return f"Error: {exc}"
    if not base.exists():
        return f"Error: no such file or directory: {path}"
    files = await asyncio.to_thread(_grep_targets, base, workspace)
    # A file a deny rule keeps from grep (`Read(./.env)`) is left out of a search of its folder too.
    perms = ctx.deps.permissions
    kept = [
        f for f in files if not perms.rules["deny"] or not permissions.read_denied(perms, "grep", Path(f[0]), workspace)
    ]
    skipped, files = len(files) - len(kept), kept
    timeout = float(os.environ.get("CODING_AGENT_GREP_TIMEOUT", GREP_TIMEOUT))
    outcome = await grep_worker.run(
        pattern,
        files,
        line_cap=LINE_CAP,
        show_cap=GREP_LINE_CAP,
        max_matches=GREP_CAP,
        timeout=timeout,
        env=command_env(),
        sandbox=confine.for_commands(ctx.deps.config, workspace),
    )
    found = outcome.lines
    if len(found) > GREP_CAP:
        found[GREP_CAP:] = [f"[stopped after {GREP_CAP} matches; use a narrower pattern or path]"]
    if skipped:
        found.append(
            ("" if found else "No matches\n") + f"[{skipped} file(s) not searched: a deny permission rule covers them]"
        )
    if outcome.timed_out:
        found.append(
            f"[grep stopped after {timeout:g} s: the pattern is too slow on these files (nested "
            "repetition such as (a+)+ backtracks exponentially); any matches above are partial]"
        )
    return "\n".join(found) if found else "No matches"


# --- run_command ---------------------------------------------------------------------------


async def run_command(ctx: RunContext[AppState], command: str, timeout: int = 120) -> str:
    """Run a shell command in the workspace and return its output (stdout and stderr together)
    and exit code. The user may be asked to approve it first. Long output keeps its start and
    end. The command is killed after `timeout` seconds (at most 600); do not start commands
    that wait for input or never end (servers, watchers) in the foreground. Redirect the
    output of background commands (`cmd > log 2>&1 &`) to a file.

    Args:
        command: The shell command line.
        timeout: Seconds before the command is killed.
    """
    deps = ctx.deps
    if "\0" in command:  # no shell can be given one: say so rather than end the turn
        return "Error: the command contains a NUL byte, which no shell command can hold"
    sandbox = confine.for_command(deps, command)
    try:
        await permissions.command(deps, command, sandboxed=sandbox is not None)
    except permissions.Refused as exc:
        return f"Error: {exc}"
    return await run_allowed(deps, command, min(max(timeout, 1), MAX_TIMEOUT), sandbox)


async def run_allowed(state: AppState, command: str, timeout: float, sandbox: confine.Sandbox | None) -> str:
    """A command that may run (agent.tools.permissions said so), run as every such command is: the
    model's, and a custom command's `!` lines (agent.turn.custom_commands); in the OS sandbox if
    given one (confine.for_command), with the approved project's env."""
    state.emit(CommandRunning(command))
    env = command_env(state.project.env)
    try:
        output = await execute(command, state.workspace, timeout, sandbox, env=env)
        if sandbox is None:
            return output
        return await offer.rerun_outside(
            state, command, output, sandbox, lambda: execute(command, state.workspace, timeout, env=env)
        )
    except OSError as exc:
        return f"Error: cannot run the command: {exc.strerror or exc}"


TOOLS: list[Tool[AppState]] = [
    Tool(read_file, takes_ctx=True),
    Tool(write_file, takes_ctx=True, sequential=True),
    Tool(edit_file, takes_ctx=True, sequential=True),
    Tool(list_files, takes_ctx=True),
    Tool(grep, takes_ctx=True),
    Tool(run_command, takes_ctx=True, sequential=True),
]
