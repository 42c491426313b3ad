"""coding-agent-compact: arguments, start-up and on_submit (the design's order)."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

# pydantic-ai prints a banner on first use; a terminal app has its own start-up line.
os.environ.setdefault("PYDANTIC_AI_NO_BANNER", "1")

import lifecycle
import session
from agent.config import DEFAULT_WINDOW, RETIRED_MODELS, Config, Endpoint, SandboxPolicy, is_deepseek_url
from agent.events import Notice
from agent.provider.prices import BadPrices, merged_overrides
from agent.state.app import AppState, Stats
from agent.state.file_state import ReadFileState
from agent.text.i18n import t
from agent.tools.preapproval import parse_tool_list
from cli import PROG, VERSION, apply_settings, parse_args  # noqa: F401 - main's own API

__version__ = VERSION
from controller import start_state

if TYPE_CHECKING:
    from agent.turn.loop import TurnOutcome

# The agent's own source folder: a session started there is about the agent, rarely what a newcomer meant.
CHECKOUT = Path(__file__).resolve().parent


def key_name(base_url: str | None) -> str | None:
    """The variable whose key goes to `base_url`: API_KEY goes anywhere; DEEPSEEK_API_KEY only to
    DeepSeek; OPENAI_API_KEY only with a base URL.

    A DeepSeek key sent to a local or third-party server would hand it to whoever runs that server."""
    names = ["API_KEY"]
    if is_deepseek_url(base_url):
        names.append("DEEPSEEK_API_KEY")
    if base_url:
        names.append("OPENAI_API_KEY")
    return next((n for n in names if os.environ.get(n)), None)


def api_key(args: argparse.Namespace) -> str | None:
    if getattr(args, "demo", False):
        return None  # the emulator needs no key, and gets none of the user's
    name = key_name(args.base_url)
    return os.environ[name] if name else None


def project_endpoint(args: argparse.Namespace) -> Endpoint | None:
    """The project's baseUrl where nothing of the user's set one (--demo is theirs too), with the key
    that would go there: used only once the project is approved (agent.provider.trust)."""
    pending = getattr(getattr(args, "settings", None), "pending", {}).get("baseUrl")
    if pending is None or getattr(args, "demo", False):
        return None
    name = key_name(pending[0])
    return Endpoint(pending[0], name, os.environ[name] if name else None)


def build_config(args: argparse.Namespace) -> Config:
    from agent.provider.prices import known_context_window

    known = known_context_window(args.model)
    window = int(args.context_window) if args.context_window else (known or DEFAULT_WINDOW)
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
        one_shot=args.prompt is not None,
        max_requests=args.max_requests,
        thinking=None if args.thinking is None else args.thinking == "on",
        reasoning_effort=args.reasoning_effort,
        prices=merged_overrides(getattr(args, "settings", None), args.prices),
        permission_mode=args.permission_mode,
        settings=getattr(args, "settings", None),
        allowed_tools=parse_tool_list(args.allowed_tools),
        disallowed_tools=parse_tool_list(args.disallowed_tools),
        fetch_allow_networks=args.fetch_allow_network,
        images=None if args.images is None else args.images == "on",
        trust_project=bool(getattr(args, "trust_project", False)),
        project_endpoint=project_endpoint(args),
        # The flag's or the environment's mode; the settings files' `sandbox` joins it in start_state.
        sandbox=SandboxPolicy(mode=args.sandbox, origin=args.sandbox_origin)
        if getattr(args, "sandbox", None)
        else SandboxPolicy(),
    )


def replay_early(state: AppState, early: object) -> None:
    """Show what start_state had to say, now that `state.emit` reaches the user."""
    for event in getattr(early, "events", ()):
        state.emit(event)


# --- a turn --------------------------------------------------------------------------------


async def on_submit(state: AppState, user_input: str, typed: str | None = None) -> TurnOutcome | None:
    """Commands first; then the watermark check; then the checkpoint, the @-mentions and the loop.
    `typed`: the input is a project file's text (a command's body) and this is what the user typed
    into it; the image paths the file's text names (not those the user typed) are confined to the
    workspace like the model's reads."""
    from pydantic_ai.messages import ModelRequest, UserPromptPart

    import compact
    from agent.tools import hooks
    from agent.tools.images import image_paths, pasted_paths
    from agent.tools.mentions import attached_labels, attachments
    from agent.turn.loop import run_turn

    asked = await hooks.run(state, "UserPromptSubmit", {"prompt": user_input})
    if asked.blocked is not None or asked.stop is not None:
        state.emit(Notice(t("hook_blocked_prompt", state.lang, reason=asked.blocked or asked.stop), "warn"))
        return
    context = hooks.context_messages([*await hooks.settled(state), *asked.context], state.lang)
    # The mentioned files count in the watermark, but their reads join the ReadFileState only
    # after a compaction, which would otherwise forget them (or restore them twice).
    reads = ReadFileState()
    pasted = pasted_paths(user_input if typed is None else typed)
    named = [] if typed is None else [p for p in image_paths(user_input) if p not in image_paths(typed)]
    from agent.turn.admission import attachments_refused, mention_room

    prelude, notices = await attachments(
        state, user_input, reads, pasted=pasted, named=named, room=mention_room(state, user_input)
    )
    if (refused := attachments_refused(state, prelude, user_input)) is not None:
        state.emit(Notice(refused, level="error"))
        return None
    prelude = context + prelude
    from agent.tools import mcp_servers

    try:
        await compact.auto_compact_if_needed(state, prelude + [ModelRequest(parts=[UserPromptPart(user_input)])])
        await mcp_servers.wait_started(state)  # a server still starting: its tools, or its failure, first
    except asyncio.CancelledError:
        from agent.turn.loop import keep_interrupted_before_turn

        keep_interrupted_before_turn(state, user_input, prelude)
        raise
    state.read_file_state.merge(reads)

    state.turns += 1
    state.file_history.make_checkpoint(len(state.history), user_input)
    if attached := attached_labels(prelude, state.lang):
        separator = t("list_separator", state.lang)
        state.emit(Notice(t("attached", state.lang, paths=separator.join(attached))))
    for notice in notices:
        state.emit(Notice(notice, "warn"))
    outcome = await run_turn(state, user_input, prelude, before_request=compact.before_request)
    return await lifecycle.stop_hooks(state, outcome)


async def submit(app, text: str, typed: str | None = None, command_prompt: bool = False) -> None:
    """The REPL's callback: a line the user typed (a slash command, `!command`, `# note`, or a message),
    or with `command_prompt` a custom command's prompt, never a command itself (`typed`: on_submit's)."""
    from agent.turn import quick_input

    if app.state.scratch.ready is not None:
        # Two threads importing pydantic-ai at once can see it half-initialised: wait for the warm-up.
        await asyncio.shield(app.state.scratch.ready)
    try:
        from ui.commands import dispatch, slash_command

        if not command_prompt:
            app.refresh_custom(warn=False)
        if not command_prompt and slash_command(text, app.is_command) is not None:
            await dispatch(app, text)
        elif not command_prompt and typed is None and quick_input.is_quick(text):
            await quick_input.run(app.state, text)
        elif (text := await _fit_or_attach(app, text)) is not None:
            await on_submit(app.state, text, typed)
    except session.SessionLocked as exc:  # /resume of a session another process has open
        app.say(exc.text(app.lang), "error")
    except Exception as exc:  # noqa: BLE001 - one failed input must not end the REPL and its session
        from agent import debuglog
        from agent.provider.error_text import describe_error

        debuglog.log("submit_error", error=repr(exc)[:500])
        app.say(describe_error(exc, app.state.config), "error")
    finally:
        save_stats(app.state)


async def _fit_or_attach(app, text: str) -> str | None:
    """A message too large for the window is not sent unasked: the user may attach it as a file."""
    from agent.turn.admission import attach, check_message

    found = check_message(app.state, text)
    if found is None:
        return text
    app.say(found, "warn")
    if not await app.confirm(t("attach_question", app.lang)):
        app.say(t("not_sent", app.lang), "warn")
        return None
    path, message = attach(app.state, text)
    app.say(t("attached_as_file", app.lang, path=path))
    return message


def save_stats(state: AppState) -> None:
    """The session's totals survive a resume (--continue); a failed write only costs the totals."""
    if state.stats == Stats():
        return  # nothing counted yet (a new session, right after /clear): no file for it
    totals = state.stats.to_dict()
    if totals == state.scratch.stats_on_disk:
        return  # /help, /status, a refused input: nothing to write
    try:
        session.save_stats(state.session_id, totals, state.workspace)
        state.scratch.stats_on_disk = totals
    except OSError as exc:
        from agent import debuglog

        debuglog.log("stats_save_failed", error=str(exc))


async def print_mode(
    state: AppState, prompt: str | None, output_format: str = "text", input_format: str = "text"
) -> int:
    """-p: one turn (or, with stream-json input, one per line of stdin); the exit status (ui.print_mode)."""
    from ui import print_mode as printing
    from ui.print_json import make_view

    early, state.emit = state.emit, (view := make_view(output_format, state))
    replay_early(state, early)
    try:
        return await printing.run(state, view, prompt, input_format, on_submit)
    finally:
        view.close()
        save_stats(state)


def check_tools(config: Config) -> None:
    from agent.tools.preapproval import resolve

    for flag, items in (("--allowed-tools", config.allowed_tools), ("--disallowed-tools", config.disallowed_tools)):
        if not items:
            continue  # the tool set imports pydantic-ai, the slowest import: a start without the flags must not wait
        from agent.tools.toolset import tool_names

        if bad := resolve(items, tool_names()).bad:
            raise ValueError(
                t("unknown_tools", config.lang, names=", ".join(bad), flag=flag, known=", ".join(tool_names()))
            )


def check_config(config: Config) -> None:
    """Bad numbers stop here with one line, not with a traceback at the first turn."""
    from agent.compaction import CompactAtOutOfRange, compact_threshold

    if config.model in RETIRED_MODELS and is_deepseek_url(config.base_url):
        raise ValueError(t("model_retired", config.lang, model=config.model, new=RETIRED_MODELS[config.model]))
    if config.context_window <= 0:
        raise ValueError(t("bad_window", config.lang, value=config.context_window))
    try:
        compact_threshold(config.context_window, config.compact_at)
    except CompactAtOutOfRange as exc:
        window = config.context_window
        pct = {"low_pct": round(100 * exc.low / window), "high_pct": round(100 * exc.high / window)}
        raise ValueError(
            t("compact_at_range", config.lang, value=exc.value, low=exc.low, high=exc.high, window=window, **pct)
        ) from exc
    except ValueError as exc:
        raise ValueError(t("bad_compact_at", config.lang, value=repr(config.compact_at))) from exc


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    args.settings = apply_settings(args, argv)
    if not args.demo:
        return run(args)
    from agent.provider.demo_server import DEMO_WINDOW, DemoServer, DemoUnavailable

    demo = DemoServer()
    try:
        args.base_url = demo.start()
    except DemoUnavailable as exc:
        print(f"{PROG}: {t('demo_unavailable', args.lang, path=str(exc))}", file=sys.stderr)
        return 2
    args.context_window = args.context_window or DEMO_WINDOW
    try:
        return run(args)
    finally:
        demo.stop()


def run(args: argparse.Namespace) -> int:
    try:
        config = build_config(args)
    except BadPrices as exc:
        print(f"{PROG}: {t('bad_prices', args.lang, error=exc.text(args.lang))}", file=sys.stderr)
        return 2
    from agent.provider.keys import scrub_environment
    from agent.tools.memory_guard import make_undumpable

    # The key is in config.api_key now; nothing this process starts may find it (agent.provider.keys), in
    # its environment or in its memory (agent.tools.memory_guard).
    scrub_environment()
    make_undumpable()
    try:
        check_config(config)
        check_tools(config)
        if args.input_format == "stream-json" or args.prompt is not None:
            from ui import print_mode as printing

            if args.input_format == "stream-json":
                printing.check_stream_input(args, config.lang)
            else:
                args.prompt = printing.read_prompt(args.prompt, sys.stdin, config.lang)
    except ValueError as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 2
    if args.prompt is not None and args.input_format == "text" and not args.prompt.strip():
        print(f"{PROG}: {t('empty_prompt', config.lang)}", file=sys.stderr)
        return 2
    if not config.api_key and not config.base_url and config.project_endpoint is None:
        print(t("no_api_key", config.lang), file=sys.stderr)
        return 2
    from agent.tokens import count as tokens

    if args.prompt is not None:
        tokens.preload()  # one-shot: nothing to show first, load the tokenizer meanwhile
    try:
        if config.debug:
            from agent import debuglog

            debuglog.forget_secret(config.api_key)
            if config.project_endpoint is not None:
                debuglog.forget_secret(config.project_endpoint.key)
            debuglog.enable()
        state = start_state(args, config)
        if args.demo:
            state.emit(Notice(t("demo_started", config.lang, url=config.base_url)))
        if config.workspace == CHECKOUT and args.prompt is None:
            state.emit(Notice(t("own_checkout", config.lang), "warn"))
    except session.SessionLocked as exc:
        print(exc.text(config.lang), file=sys.stderr)
        return 2
    except OSError as exc:  # a read-only or full data folder: one line, not a traceback
        from agent.config import data_home

        where = exc.filename or data_home()
        print(t("data_home_unusable", config.lang, path=where, error=exc.strerror or exc), file=sys.stderr)
        return 2
    try:
        if args.prompt is not None:
            streamed = args.input_format == "stream-json"  # the turns come from stdin (ui.print_mode)
            return asyncio.run(
                print_mode(state, None if streamed else args.prompt, args.output_format, args.input_format)
            )
        return asyncio.run(repl(state))
    except KeyboardInterrupt:  # Ctrl-C in -p mode: the turn was settled as it was cancelled
        print("\n" + t("interrupted", config.lang), file=sys.stderr)
        return 130
    finally:
        state.transcript.close()  # its .lock file goes with it


async def repl(state: AppState) -> int:
    from agent.compaction import cancel_background
    from ui.app import App

    early = state.emit
    app = App(state, submit)
    app.refresh_custom()  # a command file a built-in name hides is said at start
    lang, config = state.lang, state.config
    window = t("window_known" if config.window_known else "window_assumed", lang, n=config.context_window)
    app.say(f"{config.model} · {state.workspace} · {t('session_word', lang)} {state.session_id} · {window}", "dim")
    if state.history:
        app.report("resumed")
    replay_early(state, early)
    await lifecycle.start_project(state)
    try:
        await app.run(on_first_paint=lambda: lifecycle.first_paint(state))
    finally:
        cancel_background(state)
        from agent.tools import mcp_servers

        await mcp_servers.stop_all(state)
    return 0


if __name__ == "__main__":
    sys.exit(main())
