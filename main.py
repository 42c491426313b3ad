"""coding-agent-compact: arguments, start-up and on_submit (the design's order)."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

# pydantic-ai prints a banner on first use; a terminal app has its own start-up line.
os.environ.setdefault("PYDANTIC_AI_NO_BANNER", "1")

import session
from agent.config import DEFAULT_MODEL, Config, known_context_window
from agent.events import Notice
from agent.file_history import FileHistory
from agent.file_state import ReadFileState
from agent.i18n import default_lang, t
from agent.state import AppState

__version__ = "0.1.0"
KEY_VARIABLES = ("API_KEY", "DEEPSEEK_API_KEY")


def _env(name: str, default: str | None = None) -> str | None:
    return os.environ.get(f"CODING_AGENT_{name.upper()}", default)


def _env_flag(name: str) -> bool:
    return (_env(name) or "").lower() in ("1", "true", "yes", "on")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="main.py",
        description="A terminal coding agent whose long sessions never hit the context wall. "
        "Every flag can also be set as CODING_AGENT_<NAME> (e.g. CODING_AGENT_MODEL).",
    )
    p.add_argument("--model", default=_env("model", DEFAULT_MODEL), help="model name (default deepseek-chat)")
    p.add_argument("--base-url", default=_env("base_url"), help="any OpenAI-compatible endpoint")
    p.add_argument("--context-window", type=int, default=_env("context_window"), help="the model's window, tokens")
    p.add_argument("--compact-at", default=_env("compact_at"), help="auto-compact at N tokens or P%% of the window")
    p.add_argument("--no-auto-compact", action="store_true", default=_env_flag("no_auto_compact"))
    p.add_argument("--cheap-tier", choices=("auto", "on", "off"), default=(_env("cheap_tier") or "auto").lower(),
                   help="clear old tool results instead of summarizing: auto (when cheaper), on, off")
    p.add_argument("-p", "--print", dest="prompt", default=_env("print"), help="run one turn, print, exit")
    p.add_argument("--continue", dest="cont", action="store_true", default=_env_flag("continue"),
                   help="resume the latest session of this directory")
    p.add_argument("--resume", nargs="?", const="", default=_env("resume"), help="resume a session (by id)")
    p.add_argument("--yes", action="store_true", default=_env_flag("yes"), help="run shell commands without asking")
    p.add_argument("--lang", choices=("zh", "en"), default=_env("lang") or default_lang())
    p.add_argument("--debug", action="store_true", default=_env_flag("debug"), help="write a debug log")
    p.add_argument("--version", action="version", version=f"coding-agent-compact {__version__}")
    return p.parse_args(argv)


def api_key(args: argparse.Namespace) -> str | None:
    names = KEY_VARIABLES + (("OPENAI_API_KEY",) if args.base_url else ())
    return next((os.environ[n] for n in names if os.environ.get(n)), None)


def build_config(args: argparse.Namespace) -> Config:
    known = known_context_window(args.model)
    window = int(args.context_window) if args.context_window else (known or 131_072)
    return Config(
        model=args.model,
        base_url=args.base_url,
        api_key=api_key(args),
        context_window=window,
        window_known=bool(args.context_window) or known is not None,
        compact_at=args.compact_at,
        auto_compact=not args.no_auto_compact,
        cheap_tier=args.cheap_tier,
        yes=args.yes,
        lang=args.lang,
        workspace=Path.cwd().resolve(),
        debug=args.debug,
    )


# --- sessions ------------------------------------------------------------------------------


def load_session(state: AppState, session_id: str) -> list:
    loaded = session.load(session_id, state.workspace)
    if loaded.skipped:
        state.emit(Notice(t("skipped_lines", state.lang, n=len(loaded.skipped), first=loaded.skipped[0]), "warn"))
    if not loaded.messages:
        return loaded.messages
    from agent.loop import repair_history

    # A crash mid-tool leaves a call without its result: unrepaired, every later prompt is refused.
    messages, fixes = repair_history(loaded.messages)
    if fixes:
        text = (f"会话文件：修复了 {fixes} 处没有结果的工具调用（上次在工具运行中退出）" if state.lang == "zh"
                else f"Session file: closed {fixes} tool call(s) left without a result (the agent stopped mid-tool)")
        state.emit(Notice(text, "warn"))
    return messages


def switch_session(state: AppState, session_id: str, messages: list) -> None:
    """Make `session_id` current: take its lock, reset per-session state."""
    new_lock = session.SessionLock(session_id, state.workspace)
    if getattr(state, "lock", None) is not None:
        state.lock.release()
    state.lock = new_lock
    state.session_id = session_id
    state.history = messages
    state.persisted = len(messages)
    state.read_file_state = ReadFileState()
    state.file_history = FileHistory()
    state.compact_undo = []
    state.compact_failures = 0
    state.auto_compact_off_reason = None
    state.auto_compact_turns = []
    state.thrash_streak = 0
    state.recorder.forget()


def start_state(args: argparse.Namespace, config: Config) -> AppState:
    from agent.events import EventLog

    # Loading may warn (skipped lines) before any UI exists: the warnings wait here for replay_early.
    state = AppState(config=config, session_id="", emit=EventLog())
    session_id = None
    if args.cont:
        session_id = session.latest_session(config.workspace)
    elif args.resume == "":
        session_id = pick_session(config)
    elif args.resume:
        session_id = args.resume
        # An id is a file name in this directory's session folder, never a path out of it.
        if session_id in (".", "..") or Path(session_id).name != session_id or \
                not session.session_file(session_id, config.workspace).exists():
            raise SystemExit(f"No session {session_id} in this directory.")
    messages = load_session(state, session_id) if session_id else []
    switch_session(state, session_id or session.new_session_id(), messages)
    return state


def pick_session(config: Config) -> str | None:
    """`--resume` without an id: list this directory's sessions and read a number."""
    sessions = session.list_sessions(config.workspace)
    if not sessions:
        print("No sessions in this directory yet; starting a new one.", file=sys.stderr)
        return None
    print("\n".join(session.pick_lines(sessions)))
    try:
        return session.picked(sessions, input("Session number (Enter for a new one): "))
    except EOFError:
        return None


def replay_early(state: AppState, early: object) -> None:
    """Show what start_state had to say, now that `state.emit` reaches the user."""
    for event in getattr(early, "events", ()):
        state.emit(event)


# --- a turn --------------------------------------------------------------------------------


async def on_submit(state: AppState, user_input: str) -> None:
    """Commands first; then the watermark check; then the checkpoint, the @-mentions and the loop."""
    from pydantic_ai.messages import ModelRequest, UserPromptPart

    import compact
    from agent.loop import run_turn
    from agent.mentions import build_mention_messages, find_mentions

    # The mentioned files count in the watermark, but their reads join the ReadFileState only
    # after a compaction, which would otherwise forget them (or restore them twice).
    reads = ReadFileState()
    prelude, notices = build_mention_messages(find_mentions(user_input), state, read_file_state=reads)
    await compact.auto_compact_if_needed(state, prelude + [ModelRequest(parts=[UserPromptPart(user_input)])])
    state.read_file_state.merge(reads)

    state.turns += 1
    state.file_history.make_checkpoint(len(state.history), user_input)
    for notice in notices:
        state.emit(Notice(notice, "warn"))
    await run_turn(state, user_input, prelude)


async def submit(app, text: str) -> None:  # the REPL's callback
    if app.state.ready is not None:
        # Two threads importing pydantic-ai at once can see it half-initialised: wait for the warm-up.
        await asyncio.shield(app.state.ready)
    try:
        if text.startswith("/"):
            from ui.commands import dispatch

            await dispatch(app, text)
        else:
            await on_submit(app.state, text)
    except session.SessionLocked as exc:  # /resume of a session another process has open
        app.say(str(exc), "red")
    except Exception as exc:  # noqa: BLE001 - one failed input must not end the REPL and its session
        from agent import debuglog
        from agent.loop import describe_error

        debuglog.log("submit_error", error=repr(exc)[:500])
        app.say(describe_error(exc, app.state), "red")


async def print_mode(state: AppState, prompt: str) -> int:
    from agent.events import CompactionFailed, CompactionFinished, TextDelta
    from ui.render import compaction_done

    errors: list[str] = []

    def emit(event) -> None:
        # The answer goes to stdout; everything said about it to stderr, so scripts can pipe it.
        if isinstance(event, TextDelta):
            sys.stdout.write(event.text)
            sys.stdout.flush()
        elif isinstance(event, Notice):
            print(event.text, file=sys.stderr)
            if event.level == "error":
                errors.append(event.text)
        elif isinstance(event, CompactionFailed):
            print(t("auto_compact_failed", state.lang, reason=event.reason), file=sys.stderr)
        elif isinstance(event, CompactionFinished):
            print(compaction_done(event, state.lang), file=sys.stderr)

    early, state.emit = state.emit, emit
    replay_early(state, early)
    await on_submit(state, prompt)
    sys.stdout.write("\n")
    return 1 if errors else 0


def check_config(config: Config) -> None:
    """Bad numbers stop here with one line, not with a traceback at the first turn."""
    from agent.context import compact_threshold

    if config.context_window <= 0:
        raise ValueError(f"--context-window must be a positive number of tokens, not {config.context_window}")
    try:
        compact_threshold(config.context_window, config.compact_at)
    except ValueError as exc:
        raise ValueError(f"--compact-at takes N tokens, Nk or P% of the window, not {config.compact_at!r}") from exc


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    config = build_config(args)
    try:
        check_config(config)
    except ValueError as exc:
        print(f"main.py: {exc}", file=sys.stderr)
        return 2
    if not config.api_key and not config.base_url:
        print("No API key: set API_KEY or DEEPSEEK_API_KEY (or use --base-url for a local endpoint).",
              file=sys.stderr)
        return 2
    if config.debug:
        from agent import debuglog

        debuglog.enable()
    from agent import tokens

    if args.prompt is not None:
        tokens.preload()  # one-shot: nothing to show first, load the tokenizer meanwhile
    try:
        state = start_state(args, config)
    except session.SessionLocked as exc:
        print(str(exc), file=sys.stderr)
        return 2
    if args.prompt is not None:
        return asyncio.run(print_mode(state, args.prompt))
    return asyncio.run(repl(state))


def start_warm_up(state: AppState) -> None:
    """pydantic-ai and the tokenizer take about a second to load, in a worker thread that starts
    once the prompt is on screen. The tokenizer loads after pydantic-ai, in the same thread: its
    load holds the GIL for ~0.3 s, which would otherwise freeze the prompt just as it appears."""
    from agent.loop import warm_up

    state.ready = asyncio.get_running_loop().run_in_executor(None, warm_up, state)


async def repl(state: AppState) -> int:
    from agent.background import cancel_background
    from ui.app import App

    early = state.emit
    app = App(state, submit)
    window = f"{state.config.context_window:,}" + ("" if state.config.window_known else " (assumed)")
    app.say(f"{state.config.model} · {state.workspace} · session {state.session_id} · window {window}", "dim")
    if state.history:
        app.say(("已恢复 " if state.lang == "zh" else "Resumed ") + f"{len(state.history)} messages", "dim")
    replay_early(state, early)
    try:
        await app.run(on_first_paint=lambda: start_warm_up(state))
    finally:
        cancel_background(state)
    return 0


if __name__ == "__main__":
    sys.exit(main())
