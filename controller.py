"""The session controller: starting, resuming and switching the session the REPL and -p work on.

Below ui/ (its commands call in here) and above session.py (the files): main.py wires, ui/ never
imports main."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

import session
from agent.config import Config
from agent.events import Notice
from agent.state import billing
from agent.state.app import AppState, CompactionState, Stats
from agent.state.file_history import Checkpoint, FileHistory
from agent.state.file_state import ReadFileState
from agent.state.transcript import Transcript
from agent.store import session_format
from agent.text.i18n import t
from agent.text.visible import plain


def load_session(state: AppState, session_id: str) -> list:
    loaded = session.load(session_id, state.workspace)
    if loaded.version > session_format.CURRENT:
        state.emit(
            Notice(t("session_newer", state.lang, version=loaded.version, current=session_format.CURRENT), "warn")
        )
    if loaded.skipped:
        state.emit(Notice(t("skipped_lines", state.lang, n=len(loaded.skipped), first=loaded.skipped[0]), "warn"))
    for note in loaded.cut:
        state.emit(Notice(t("cut_line", state.lang, **note), "warn"))
    if not loaded.messages:
        return loaded.messages
    from agent.turn.repair import repair_history

    # A crash mid-tool leaves a call without its result: unrepaired, every later prompt is refused.
    messages, fixes = repair_history(loaded.messages)
    if fixes:
        state.emit(Notice(t("repaired_calls", state.lang, n=fixes), "warn"))
    return messages


def switch_session(state: AppState, session_id: str, messages: list) -> None:
    """Make `session_id` current: a new transcript with its lock (taken before the old one goes),
    and the per-session state reset."""
    transcript = Transcript.open(session_id, state.workspace, messages)
    state.transcript.close()
    state.transcript = transcript
    saved = session.load_stats(session_id, state.workspace)
    state.stats = Stats.from_dict(saved)
    billing.carry_old_totals(state.stats, saved, state.config)
    state.scratch.stats_on_disk = state.stats.to_dict()
    state.read_file_state = ReadFileState()
    state.file_history = FileHistory()
    # The breakers and the background summary are the old session's; the agent's scratch is kept.
    state.compaction = CompactionState()
    state.scratch.recorder.forget()


def start_sandbox(config: Config) -> list[str]:
    """The sandbox policy in force (the flag's or the environment's mode over the settings files'),
    and its mechanism probed in the background meanwhile (agent.tools.sandbox)."""
    if config.sandbox is None:
        return []
    from agent.tools.sandbox import detect, policy

    given = config.sandbox if config.sandbox.origin in ("flag", "env") else None
    config.sandbox, warnings = policy.load(config.settings, given, config.lang)
    if policy.sandboxed_mode(config.sandbox):
        detect.find_soon(config.workspace)
    return warnings


def start_state(args: argparse.Namespace, config: Config) -> AppState:
    from agent.events import EventLog

    # Loading may warn (skipped lines) before any UI exists: the warnings wait here for replay_early.
    state = AppState(config=config, transcript=Transcript("", config.workspace), emit=EventLog())
    from agent.tools import hooks, permissions

    state.permissions, rule_warnings = permissions.load(
        config.settings, config.permission_mode, config.yes, config.lang
    )
    if config.allowed_tools or config.disallowed_tools:  # the tool set imports pydantic-ai: only when needed
        from agent.tools.preapproval import add_flag_rules
        from agent.tools.toolset import tool_names

        # --allowed-tools "Bash(git diff:*)", --disallowed-tools mcp__github: rules of the session.
        add_flag_rules(state.permissions, config, tool_names())
    from agent.tools import mcp_servers

    state.hooks, hook_warnings = hooks.load(config.settings, config.lang)
    state.mcp, mcp_warnings = mcp_servers.load(config.settings, config.workspace, config.lang)
    sandbox_warnings = start_sandbox(config)
    for warning in [
        *getattr(config.settings, "warnings", ()),
        *rule_warnings,
        *hook_warnings,
        *mcp_warnings,
        *sandbox_warnings,
    ]:
        state.emit(Notice(warning, "warn"))
    if (said := claude_notice(config)) is not None:
        state.emit(Notice(said, "dim"))
    session_id = None
    if args.cont:
        session_id = session.latest_session(config.workspace)
    elif args.resume == "":
        session_id = pick_session(config)
    elif args.resume:
        session_id = args.resume
        # An id is a file name in this directory's session folder, never a path out of it.
        if (
            session_id in (".", "..")
            or Path(session_id).name != session_id
            or not session.session_file(session_id, config.workspace).exists()
        ):
            raise SystemExit(t("no_such_session", config.lang, id=session_id))
    if legacy := billing.legacy_line(config, config.lang):
        state.emit(Notice(legacy))
    messages = load_session(state, session_id) if session_id else []
    switch_session(state, session_id or session.new_session_id(), messages)
    check_server(state)
    return state


def claude_notice(config: Config) -> str | None:
    """In the REPL, once: which of Claude Code's settings files were read, when something in them is not
    applied here (never silently; -p keeps its stderr for what went wrong)."""
    from agent.provider.claude_settings import is_claude

    settings = config.settings
    if config.one_shot or settings is None:
        return None
    ignored = [entry for entry in settings.ignored if is_claude(entry[0])]
    files = [str(layer.path) for layer in settings.layers if is_claude(layer.name) and layer.path.is_file()]
    if not ignored or not files:
        return None
    return t("claude_settings_read", config.lang, files=", ".join(files), n=len(ignored))


def check_server(state: AppState) -> None:
    """Ask a local server once what it can do (tools, its context) and to count for us (/tokenize)."""
    from agent.provider import server_caps
    from agent.tokens import server_tokens

    for line in server_caps.check(state.config):
        state.emit(Notice(line, "warn"))
    server_tokens.use(state.config.base_url, state.config.model)


def pick_session(config: Config) -> str | None:
    """`--resume` without an id: list this directory's sessions and read a number."""
    sessions = session.list_sessions(config.workspace)
    if not sessions:
        print(t("no_sessions_yet", config.lang), file=sys.stderr)
        return None
    print(plain("\n".join(session.pick_lines(sessions))))  # previews quote session files
    try:
        return session.picked(sessions, input(t("pick_number", config.lang)))
    except EOFError:
        return None


def start_warm_up(state: AppState) -> None:
    """pydantic-ai and the tokenizer take about a second to load, in a worker thread that starts
    once the prompt is on screen. The tokenizer loads after pydantic-ai, in the same thread: its
    load holds the GIL for ~0.3 s, which would otherwise freeze the prompt just as it appears."""
    from agent.turn.warmup import warm_up

    state.scratch.ready = asyncio.get_running_loop().run_in_executor(None, warm_up, state)


def undo_turn(state: AppState) -> Checkpoint | None:
    """/undo: the last turn's files come back (file_history), and history and session file end before it."""
    from agent.tools.workspace import added_folders

    checkpoint = state.file_history.undo(state.workspace.resolve(), state.lang, added_folders(state.workspace))
    if checkpoint is None:
        return None
    from agent.compaction import cancel_background  # not at start-up: main imports this module

    cancel_background(state)
    state.transcript.truncate(checkpoint.history_index)
    return checkpoint
