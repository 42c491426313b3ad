"""Hooks, Claude Code's schema: `hooks: {Event: [{"matcher": "...", "hooks": [{"type": "command",
"command": "...", "timeout": seconds}]}]}` in any settings file.

A hook is a shell command. It gets the event as JSON on stdin (session_id, transcript_path, cwd,
permission_mode, hook_event_name and the event's fields) and answers with its exit code: 0 goes on
(stdout may be JSON: `decision`, `reason`, `continue`, `systemMessage`, `hookSpecificOutput` with
`additionalContext` or `permissionDecision`); 2 blocks what can be blocked (PreToolUse,
UserPromptSubmit, PreCompact, Stop), its stderr the reason; any other code is a failed hook, reported in
one line and otherwise ignored. Hooks run in the workspace with a timeout (60 s unless given), in their
own process group, without our API keys (agent.tools.shell.command_env). A project's hooks run only once
the user approved the project (agent.provider.trust).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

from agent.marks import HOOK_KEY
from agent.state.settings_state import Hooks
from agent.text.i18n import t
from agent.tools.preapproval import CLAUDE_TOOLS

EVENTS = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PreCompact", "PostCompact", "Stop")
BLOCKING = ("PreToolUse", "UserPromptSubmit", "PreCompact", "Stop", "PostToolUse")
DEFAULT_TIMEOUT = 60.0
OUTPUT_CAP = 64_000  # characters kept of a hook's stdout and of its stderr


@dataclass(frozen=True)
class Hook:
    event: str
    matcher: str
    command: str
    timeout: float
    layer: str


@dataclass
class Outcome:
    """What the hooks of one event said, together."""

    blocked: str | None = None  # exit 2, or "decision": "block": the reason
    context: list[str] = field(default_factory=list)  # additionalContext (and stdout where it counts)
    decision: tuple[str, str] | None = None  # PreToolUse's permissionDecision and its reason
    stop: str | None = None  # "continue": false: the stopReason


def load(settings: Any, lang: str) -> tuple[Hooks, list[str]]:
    from agent.provider.claude_settings import is_claude
    from agent.provider.settings import is_users

    hooks, warnings = Hooks(), []
    for layer, section in settings.section("hooks") if settings is not None else ():
        path = settings.path(layer)
        for event, groups in section.items():
            if event not in EVENTS and is_claude(layer):  # Claude Code has events we do not
                settings.ignore(layer, f"hooks.{event}", "hook_event")
                continue
            if event not in EVENTS:
                warnings.append(t("hook_unknown_event", lang, path=path, event=event))
                continue
            for hook in _parse_groups(event, groups, layer, path, lang, warnings):
                (hooks.active if is_users(layer) else hooks.pending).append(hook)
    return hooks, warnings


def _parse_groups(event: str, groups: Any, layer: str, path: Any, lang: str, warnings: list[str]) -> list[Hook]:
    found = []
    for group in groups if isinstance(groups, list) else [None]:
        entries = group.get("hooks") if isinstance(group, dict) else None
        matcher = group.get("matcher", "") if isinstance(group, dict) else ""
        if not isinstance(entries, list) or not isinstance(matcher, str):
            warnings.append(t("hook_bad", lang, path=path, event=event))
            continue
        for entry in entries:
            command = entry.get("command") if isinstance(entry, dict) else None
            timeout = entry.get("timeout", DEFAULT_TIMEOUT) if isinstance(entry, dict) else None
            if (
                entry.get("type", "command") != "command"
                or not isinstance(command, str)
                or not command.strip()
                or isinstance(timeout, bool)
                or not isinstance(timeout, (int, float))
                or timeout <= 0
            ):
                warnings.append(t("hook_bad", lang, path=path, event=event))
                continue
            found.append(Hook(event, matcher, command, float(timeout), layer))
    return found


def _matches(matcher: str, value: str | None) -> bool:
    if not matcher or matcher == "*" or value is None:
        return True
    # Claude Code's names of the tool too, so that a copied `"matcher": "Bash"` finds run_command.
    names = [value, *(claude for claude, ours in CLAUDE_TOOLS.items() if ours == value)]
    try:
        return any(re.fullmatch(matcher, name) for name in names)
    except re.error:
        return matcher in names


# --- running -------------------------------------------------------------------------------


def _base_input(state: Any, event: str) -> dict[str, Any]:
    import session
    from agent.tools.permissions import mode

    return {
        "session_id": state.session_id,
        "transcript_path": str(session.session_file(state.session_id, state.workspace)),
        "cwd": str(state.workspace),
        "permission_mode": mode(state),
        "hook_event_name": event,
    }


def _env(state: Any) -> dict[str, str]:
    from agent.tools.shell import command_env

    return {
        **command_env(state.project.env),
        "CODING_AGENT_PROJECT_DIR": str(state.workspace),
        "CLAUDE_PROJECT_DIR": str(state.workspace),
    }


async def _run_one(state: Any, hook: Hook, payload: bytes) -> tuple[int | None, str, str]:
    """(exit code or None for a timeout, stdout, stderr)."""
    proc = await asyncio.create_subprocess_shell(
        hook.command,
        cwd=state.workspace,
        env=_env(state),
        start_new_session=True,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        out, err = await asyncio.wait_for(proc.communicate(payload), hook.timeout)
    except TimeoutError:
        _kill(proc.pid)
        await proc.wait()
        return None, "", ""
    except asyncio.CancelledError:  # Ctrl-C: the hook goes with the turn
        _kill(proc.pid)
        raise
    decode = lambda data: data.decode("utf-8", errors="replace")[:OUTPUT_CAP]  # noqa: E731
    return proc.returncode, decode(out), decode(err)


def _kill(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _failed(state: Any, hook: Hook, why: str) -> None:
    from agent.events import Notice

    state.emit(Notice(t("hook_failed", state.lang, event=hook.event, command=hook.command, why=why), "warn"))


def _read_stdout(event: str, out: str, outcome: Outcome, state: Any) -> None:
    from agent.events import Notice

    text = out.strip()
    data = None
    if text.startswith("{"):
        try:
            data = json.loads(text)
        except ValueError:
            data = None
    if not isinstance(data, dict):
        if text and event in ("UserPromptSubmit", "SessionStart"):
            outcome.context.append(text)  # plain stdout is context for these two, as in Claude Code
        return
    if isinstance(data.get("systemMessage"), str):
        state.emit(Notice(data["systemMessage"]))
    if data.get("continue") is False:
        outcome.stop = str(data.get("stopReason") or "")
    if data.get("decision") == "block":
        outcome.blocked = str(data.get("reason") or t("hook_no_reason", state.lang))
    specific = data.get("hookSpecificOutput")
    if isinstance(specific, dict):
        if isinstance(specific.get("additionalContext"), str) and specific["additionalContext"].strip():
            outcome.context.append(specific["additionalContext"])
        decision = specific.get("permissionDecision")
        if event == "PreToolUse" and decision in ("allow", "deny", "ask"):
            outcome.decision = (decision, str(specific.get("permissionDecisionReason") or ""))


async def run(state: Any, event: str, fields: dict[str, Any], match: str | None = None) -> Outcome:
    """Run the event's hooks whose matcher fits `match` (a tool name, a source, a trigger), together."""
    outcome = Outcome()
    runner: Hooks | None = getattr(state, "hooks", None)
    chosen = [h for h in (runner.active if runner else ()) if h.event == event and _matches(h.matcher, match)]
    if not chosen:
        return outcome
    payload = json.dumps({**_base_input(state, event), **fields}, ensure_ascii=False, default=str).encode()
    results = await asyncio.gather(*(_guarded(state, hook, payload) for hook in chosen))
    for hook, (code, out, err) in zip(chosen, results, strict=True):
        if code is None:
            _failed(state, hook, err or t("hook_timed_out", state.lang, seconds=f"{hook.timeout:g}"))
        elif code == 2 and event in BLOCKING:
            outcome.blocked = err.strip() or t("hook_no_reason", state.lang)
        elif code == 0:
            _read_stdout(event, out, outcome, state)
        else:
            first = (err.strip() or out.strip()).splitlines()[:1]
            _failed(state, hook, t("hook_exit", state.lang, code=code, text=first[0] if first else ""))
    if outcome.decision and outcome.decision[0] == "deny" and outcome.blocked is None:
        outcome.blocked = outcome.decision[1] or t("hook_no_reason", state.lang)
    return outcome


async def _guarded(state: Any, hook: Hook, payload: bytes) -> tuple[int | None, str, str]:
    try:
        return await _run_one(state, hook, payload)
    except OSError as exc:  # the shell could not start
        return None, "", str(exc.strerror or exc)


# --- the events, where the agent calls them --------------------------------------------------


def tool_input(state: Any, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    """The call's arguments, plus Claude Code's `file_path` (absolute) for the file tools."""
    given = dict(args)
    if isinstance(args.get("path"), str) and tool != "grep" and tool != "list_files":
        given["file_path"] = str((state.workspace / args["path"]).resolve())
    return given


async def pre_tool_use(state: Any, tool: str, args: dict[str, Any], call_id: str) -> Outcome:
    return await run(
        state,
        "PreToolUse",
        {"tool_name": tool, "tool_input": tool_input(state, tool, args), "tool_use_id": call_id},
        tool,
    )


async def post_tool_use(state: Any, tool: str, args: dict[str, Any], call_id: str, result: Any) -> Any:
    """The result, with what a PostToolUse hook had to tell the model after it."""
    shown = getattr(result, "return_value", result)
    outcome = await run(
        state,
        "PostToolUse",
        {
            "tool_name": tool,
            "tool_input": tool_input(state, tool, args),
            "tool_response": shown,
            "tool_use_id": call_id,
        },
        tool,
    )
    return with_notes(result, [*outcome.context, *([outcome.blocked] if outcome.blocked else [])], "PostToolUse")


def with_notes(result: Any, notes: list[str], event: str) -> Any:
    """A tool's result with what a hook told the model after it."""
    if not notes:
        return result
    added = "\n\n" + "\n".join(f"[{event} hook] {note}" for note in notes)
    if hasattr(result, "return_value"):
        result.return_value = f"{result.return_value}{added}"
        return result
    return f"{result}{added}"


# In the metadata of a message that carries a hook's text to the model: framed as the hook's, never
# listed or carried as the user's words (/rewind, a compaction's user messages).
def hook_message(prompt: str, text: str, event: str, lang: str) -> Any:
    """A request carrying a hook's text, framed by the prompt `prompt` as the hook's own."""
    from pydantic_ai.messages import ModelRequest, UserPromptPart

    from agent.text.prompts import load_prompt

    return ModelRequest(parts=[UserPromptPart(load_prompt(prompt, lang).format(text=text))], metadata={HOOK_KEY: event})


def context_messages(texts: list[str], lang: str) -> list[Any]:
    """What the hooks added, as a message placed before the user's text."""
    return [hook_message("hook_context", "\n\n".join(texts), "context", lang)] if texts else []


def session_start(state: Any, source: str) -> None:
    """SessionStart in the background (the prompt does not wait); its context joins the next turn."""

    async def start() -> None:
        outcome = await run(state, "SessionStart", {"source": source}, source)
        state.hooks.queued.extend(outcome.context)

    _background(state, start)


async def pre_compact(state: Any, trigger: str, extra: str) -> None:
    """Before a compaction: a PreCompact hook that exits 2 keeps the history as it is."""
    from agent.errors import CompactError

    kind = "manual" if trigger == "manual" else "auto"
    said = await run(state, "PreCompact", {"trigger": kind, "custom_instructions": extra}, kind)
    if said.blocked is not None:
        raise CompactError(t("hook_blocked_compact", state.lang, reason=said.blocked))


def compacted(state: Any, trigger: str, before: int, after: int, archive: str, dropped: dict | None = None) -> None:
    """After a compaction: PostCompact (with what it dropped), then SessionStart with source
    "compact" (to put rules back)."""

    async def after_compact() -> None:
        kind = "manual" if trigger == "manual" else "auto"
        await run(
            state,
            "PostCompact",
            {
                "trigger": kind,
                "archive_path": archive,
                "tokens_before": before,
                "tokens_after": after,
                "dropped": dropped or {},
            },
            kind,
        )
        outcome = await run(state, "SessionStart", {"source": "compact"}, "compact")
        state.hooks.queued.extend(outcome.context)

    _background(state, after_compact)


def _background(state: Any, work: Callable[[], Coroutine[Any, Any, None]]) -> None:
    """`work` as a task the next turn waits for; with no hook set, nothing is made at all."""
    runner: Hooks | None = getattr(state, "hooks", None)
    if runner is None or not runner.active:
        return
    task = asyncio.get_running_loop().create_task(work())
    runner.tasks.add(task)
    task.add_done_callback(runner.tasks.discard)


async def settled(state: Any) -> list[str]:
    """Wait for the background hooks, then take the context they queued."""
    runner: Hooks | None = getattr(state, "hooks", None)
    if runner is None:
        return []
    if runner.tasks:
        await asyncio.gather(*list(runner.tasks), return_exceptions=True)
    queued, runner.queued = runner.queued, []
    return queued
