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

import project_setup
import session
from agent.compaction.prices import BadPrices, parse_overrides
from agent.config import (
    DEFAULT_MODEL,
    DEFAULT_WINDOW,
    REASONING_EFFORTS,
    RETIRED_MODELS,
    THINKING_CHOICES,
    Config,
    is_deepseek_url,
)
from agent.events import Notice
from agent.state.app import AppState, Stats
from agent.state.file_state import ReadFileState
from agent.text.i18n import default_lang, t
from agent.tools.permissions import MODES as PERMISSION_MODES
from agent.tools.preapproval import parse_tool_list
from controller import start_state

if TYPE_CHECKING:
    from agent.turn.loop import TurnOutcome

__version__ = "0.1.0"
# The installed command's name (pyproject's [project.scripts]), also when run as `python main.py`.
PROG = "coding-agent"


def _env(name: str, default: str | None = None) -> str | None:
    return os.environ.get(f"CODING_AGENT_{name.upper()}", default)


def _env_flag(name: str) -> bool:
    return (_env(name) or "").lower() in ("1", "true", "yes", "on")


def _request_limit(value: str) -> int | None:
    """--max-requests N: a whole number, 0 for no limit."""
    try:
        number = int(value)
    except ValueError:
        number = -1
    if number < 0:
        raise argparse.ArgumentTypeError(f"takes a whole number of requests (0 for no limit), not {value!r}")
    return number or None


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = _parser()
    args = p.parse_args(argv)
    if args.output_format not in ("text", "json", "stream-json"):  # from the environment: not checked by choices
        p.error(f"CODING_AGENT_OUTPUT_FORMAT: {args.output_format!r} is not text, json or stream-json")
    return args


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG,
        description="A terminal coding agent whose long sessions never hit the context wall. "
        "Every flag can also be set as CODING_AGENT_<NAME> (e.g. CODING_AGENT_MODEL).",
    )
    p.add_argument("--model", default=_env("model", DEFAULT_MODEL), help=f"model name (default {DEFAULT_MODEL})")
    p.add_argument("--base-url", default=_env("base_url"), help="any OpenAI-compatible endpoint")
    p.add_argument("--context-window", type=int, default=_env("context_window"), help="the model's window, tokens")
    p.add_argument("--thinking", choices=THINKING_CHOICES, default=_env("thinking"),
                   help="DeepSeek's thinking mode (default: as the API, on for deepseek-v4-*)")
    p.add_argument("--reasoning-effort", choices=REASONING_EFFORTS, default=_env("reasoning_effort"),
                   help="how deeply the model thinks (default: the API's)")
    p.add_argument("--images", choices=("on", "off"), default=_env("images"),
                   help="the model takes images (default: as known for the model; deepseek-flash does)")
    p.add_argument("--compact-at", default=_env("compact_at"), help="auto-compact at N tokens or P%% of the window")
    p.add_argument("--no-auto-compact", action="store_true", default=_env_flag("no_auto_compact"))
    p.add_argument("--max-requests", "--max-turns", dest="max_requests", type=_request_limit,
                   default=_env("max_requests"), metavar="N",
                   help="stop a turn after N model requests (default 0: no limit)")
    p.add_argument("--cheap-tier", choices=("auto", "on", "off"), default=(_env("cheap_tier") or "auto").lower(),
                   help="clear old tool results instead of summarizing: auto (when cheaper), on, off")
    p.add_argument("--prices", default=_env("prices"), metavar="JSON|FILE",
                   help='your own prices per 1M tokens, e.g. \'{"MODEL": {"hit": 0.01, "miss": 0.1, "output": 0.4}}\'')
    p.add_argument("-p", "--print", dest="prompt", default=_env("print"),
                   help="run one turn, print, exit ('-' reads the message from stdin; piped stdin is added to it)")
    p.add_argument("--output-format", choices=("text", "json", "stream-json"),
                   default=_env("output_format") or "text", help="-p's output: the answer, one JSON object, "
                   "or one JSON line per event")
    p.add_argument("--allowed-tools", default=_env("allowed_tools"), metavar="NAMES",
                   help="tools that run without asking (e.g. run_command), comma-separated")
    p.add_argument("--disallowed-tools", default=_env("disallowed_tools"), metavar="NAMES",
                   help="tools the model is not given, comma-separated")
    p.add_argument("--continue", dest="cont", action="store_true", default=_env_flag("continue"),
                   help="resume the latest session of this directory")
    p.add_argument("--resume", nargs="?", const="", default=_env("resume"), help="resume a session (by id)")
    p.add_argument("--fetch-allow-network", type=_networks, default=_env("fetch_allow_network") or (), metavar="CIDRS",
                   help="networks fetch_url may reach although not public (e.g. 127.0.0.0/8), comma-separated")
    p.add_argument("--yes", action="store_true", default=_env_flag("yes"),
                   help="run shell commands without asking (the same as --permission-mode bypassPermissions)")
    p.add_argument("--permission-mode", choices=PERMISSION_MODES, default=_env("permission_mode"),
                   help="default (ask before edits and commands), acceptEdits (the default: edits in the "
                   "workspace without asking), plan (read-only tools only), bypassPermissions (ask nothing)")
    p.add_argument("--lang", choices=("zh", "en"), default=_env("lang") or default_lang())
    p.add_argument("--debug", action="store_true", default=_env_flag("debug"), help="write a debug log")
    p.add_argument("--version", action="version", version=f"coding-agent-compact {__version__}")
    return p


def apply_settings(args: argparse.Namespace, argv: list[str] | None) -> object:
    """The settings files under what the command line and CODING_AGENT_* set (agent.provider.settings)."""
    from agent.provider import settings as files

    dests = [dest for dest, _check in files.FLAG_KEYS.values()]
    parser = _parser()
    unset = object()  # not a str: argparse would run a string default through the option's type
    parser.set_defaults(**dict.fromkeys(dests, unset))
    flags = {dest for dest, value in vars(parser.parse_args(argv)).items() if value is not unset}
    given = {d: "flag" for d in flags} | {d: "env" for d in files.env_given(dests) if d not in flags}
    lang = args.lang
    loaded = files.load(Path.cwd().resolve(), lang)
    files.apply_to_args(loaded, args, given)
    if args.lang != lang:  # the files chose the language: their warnings in it
        loaded = files.load(Path.cwd().resolve(), args.lang)
    loaded.origins = files.origins(loaded, args, given)
    files.apply_env(loaded)
    return loaded


def api_key(args: argparse.Namespace) -> str | None:
    """API_KEY goes anywhere; DEEPSEEK_API_KEY only to DeepSeek; OPENAI_API_KEY only with --base-url.

    A DeepSeek key sent to a local or third-party server would hand it to whoever runs that server."""
    names = ["API_KEY"]
    if is_deepseek_url(args.base_url):
        names.append("DEEPSEEK_API_KEY")
    if args.base_url:
        names.append("OPENAI_API_KEY")
    return next((os.environ[n] for n in names if os.environ.get(n)), None)


def _networks(text: str) -> tuple[str, ...]:
    """--fetch-allow-network: networks (agent.tools.fetch_url), a bad one refused like any bad value."""
    from agent.tools.fetch_url import parse_networks

    try:
        return parse_networks(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def build_config(args: argparse.Namespace) -> Config:
    from agent.compaction.prices import known_context_window

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
        prices=parse_overrides(args.prices),
        permission_mode=args.permission_mode,
        settings=getattr(args, "settings", None),
        allowed_tools=parse_tool_list(args.allowed_tools),
        disallowed_tools=parse_tool_list(args.disallowed_tools),
        fetch_allow_networks=args.fetch_allow_network,
        images=None if args.images is None else args.images == "on",
    )


def replay_early(state: AppState, early: object) -> None:
    """Show what start_state had to say, now that `state.emit` reaches the user."""
    for event in getattr(early, "events", ()):
        state.emit(event)


# --- a turn --------------------------------------------------------------------------------


async def on_submit(state: AppState, user_input: str) -> TurnOutcome | None:
    """Commands first; then the watermark check; then the checkpoint, the @-mentions and the loop."""
    from pydantic_ai.messages import ModelRequest, UserPromptPart

    import compact
    import midturn
    from agent.tools.images import pasted_paths
    from agent.tools.mentions import attached_paths, build_mention_messages, find_mentions
    from agent.turn import hooks
    from agent.turn.loop import run_turn

    asked = await hooks.run(state, "UserPromptSubmit", {"prompt": user_input})
    if asked.blocked is not None or asked.stop is not None:
        state.emit(Notice(t("hook_blocked_prompt", state.lang, reason=asked.blocked or asked.stop), "warn"))
        return
    context = hooks.context_messages([*await hooks.settled(state), *asked.context], state.lang)
    # The mentioned files count in the watermark, but their reads join the ReadFileState only
    # after a compaction, which would otherwise forget them (or restore them twice).
    reads = ReadFileState()
    prelude, notices = build_mention_messages(find_mentions(user_input), state, read_file_state=reads,
                                              pasted=pasted_paths(user_input))
    from agent.compaction.oversize import attachments_refused

    if (refused := attachments_refused(state, prelude, user_input)) is not None:
        state.emit(Notice(refused, level="error"))
        return None
    prelude = context + prelude
    await compact.auto_compact_if_needed(state, prelude + [ModelRequest(parts=[UserPromptPart(user_input)])])
    state.read_file_state.merge(reads)

    state.turns += 1
    state.file_history.make_checkpoint(len(state.history), user_input)
    if attached := attached_paths(prelude):
        separator = t("list_separator", state.lang)
        state.emit(Notice(t("attached", state.lang, paths=separator.join(f"@{p}" for p in attached))))
    for notice in notices:
        state.emit(Notice(notice, "warn"))
    from agent.tools import mcp_servers

    await mcp_servers.wait_started(state)
    outcome = await run_turn(state, user_input, prelude, before_request=midturn.before_request)
    return await project_setup.stop_hooks(state, outcome)


async def submit(app, text: str) -> None:  # the REPL's callback
    if app.state.scratch.ready is not None:
        # Two threads importing pydantic-ai at once can see it half-initialised: wait for the warm-up.
        await asyncio.shield(app.state.scratch.ready)
    try:
        if text.startswith("/"):
            from ui.commands import dispatch

            await dispatch(app, text)
        elif (text := await _fit_or_attach(app, text)) is not None:
            await on_submit(app.state, text)
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
    from agent.compaction.oversize import attach, check_message, warning

    found = check_message(app.state, text)
    if found is None:
        return text
    app.say(warning(found, app.lang), "warn")
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


async def print_mode(state: AppState, prompt: str, output_format: str = "text") -> int:
    from ui.print_json import make_view

    early, state.emit = state.emit, (view := make_view(output_format, state))
    replay_early(state, early)
    from agent.compaction.oversize import check_message, warning

    if (found := check_message(state, prompt)) is not None:
        print(warning(found, state.lang) + " " + t("too_large_print", state.lang), file=sys.stderr)
        return 2
    await project_setup.start_project(state)
    from agent.tools import mcp_servers

    mcp_servers.start(state, state.permissions.project_trusted)
    try:
        await on_submit(state, prompt)
    finally:
        save_stats(state)
        from agent.tools import mcp_servers

        await mcp_servers.stop_all(state)
    return view.finish()


def read_prompt(prompt: str, stdin, lang: str) -> str:
    """`-p -`: the message is stdin. `-p TEXT` with stdin piped (`git diff | coding-agent -p "review
    this"`): what came in is added below the text. A terminal's stdin is never read."""
    if prompt != "-" and stdin.isatty():
        return prompt
    data = stdin.buffer.read().decode("utf-8", errors="replace") if hasattr(stdin, "buffer") else stdin.read()
    if prompt == "-":
        if not data.strip():
            raise ValueError(t("stdin_empty", lang))
        return data
    return f"{prompt}\n\n<stdin>\n{data.rstrip()}\n</stdin>" if data.strip() else prompt


def check_tools(config: Config) -> None:
    from agent.tools.toolset import tool_names, unknown_tools

    for flag, names in (("--allowed-tools", config.allowed_tools), ("--disallowed-tools", config.disallowed_tools)):
        if unknown := unknown_tools(sorted(names)):
            raise ValueError(t("unknown_tools", config.lang, names=", ".join(unknown), flag=flag,
                               known=", ".join(tool_names())))


def check_config(config: Config) -> None:
    """Bad numbers stop here with one line, not with a traceback at the first turn."""
    from agent.compaction.context import CompactAtOutOfRange, compact_threshold

    if config.model in RETIRED_MODELS and is_deepseek_url(config.base_url):
        raise ValueError(t("model_retired", config.lang, model=config.model, new=RETIRED_MODELS[config.model]))
    if config.context_window <= 0:
        raise ValueError(t("bad_window", config.lang, value=config.context_window))
    try:
        compact_threshold(config.context_window, config.compact_at)
    except CompactAtOutOfRange as exc:
        window = config.context_window
        pct = {"low_pct": round(100 * exc.low / window), "high_pct": round(100 * exc.high / window)}
        raise ValueError(t("compact_at_range", config.lang, value=exc.value, low=exc.low, high=exc.high,
                           window=window, **pct)) from exc
    except ValueError as exc:
        raise ValueError(t("bad_compact_at", config.lang, value=repr(config.compact_at))) from exc


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    args.settings = apply_settings(args, argv)
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
        if args.prompt is not None:
            args.prompt = read_prompt(args.prompt, sys.stdin, config.lang)
    except ValueError as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 2
    if args.prompt is not None and not args.prompt.strip():
        print(f"{PROG}: {t('empty_prompt', config.lang)}", file=sys.stderr)
        return 2
    if not config.api_key and not config.base_url:
        print(t("no_api_key", config.lang), file=sys.stderr)
        return 2
    from agent.tokens import count as tokens

    if args.prompt is not None:
        tokens.preload()  # one-shot: nothing to show first, load the tokenizer meanwhile
    try:
        if config.debug:
            from agent import debuglog

            debuglog.forget_secret(config.api_key)
            debuglog.enable()
        state = start_state(args, config)
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
            return asyncio.run(print_mode(state, args.prompt, args.output_format))
        return asyncio.run(repl(state))
    except KeyboardInterrupt:  # Ctrl-C in -p mode: the turn was settled as it was cancelled
        print("\n" + t("interrupted", config.lang), file=sys.stderr)
        return 130
    finally:
        state.transcript.close()  # its .lock file goes with it


async def repl(state: AppState) -> int:
    from agent.compaction.background import cancel_background
    from ui.app import App

    early = state.emit
    app = App(state, submit)
    from ui.setup_commands import add_custom_commands

    add_custom_commands(app)
    window = t("window_known" if state.config.window_known else "window_assumed", state.lang,
               n=state.config.context_window)
    app.say(f"{state.config.model} · {state.workspace} · {t('session_word', state.lang)} {state.session_id} · {window}",
            "dim")
    if state.history:
        app.say(t("resumed", state.lang, n=len(state.history)), "dim")
    replay_early(state, early)
    await project_setup.start_project(state)
    try:
        await app.run(on_first_paint=lambda: project_setup.first_paint(state))
    finally:
        cancel_background(state)
        from agent.tools import mcp_servers

        await mcp_servers.stop_all(state)
    return 0


if __name__ == "__main__":
    sys.exit(main())
