"""The command line: the flags, their CODING_AGENT_* variables, and the settings files beneath both
(agent/provider/settings.py). main.py builds the Config from what this parses."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from agent.config import DEFAULT_MODEL, REASONING_EFFORTS, SANDBOX_MODES, THINKING_CHOICES, env_name
from agent.text.i18n import default_lang, t
from agent.tools.permissions import MODES as PERMISSION_MODES

VERSION = "0.1.0"
# The installed command's name (pyproject's [project.scripts]), also when run as `python main.py`.
PROG = "coding-agent"
# `-p` with no text after it: the prompt is the last argument, or stdin (or, as stream-json, its lines).
PRINT_WITHOUT_TEXT = "-"


def _env(name: str, default: str | None = None) -> str | None:
    return os.environ.get(env_name(name), default)


def _one_item(value: str | None) -> list[str] | None:
    """A flag that may be given several times (action="extend") starts from its variable as one item."""
    return [value] if value else None


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
    args.sandbox_origin = "flag" if args.sandbox else None
    if args.sandbox is None and (wanted := _env("sandbox")):
        if wanted not in SANDBOX_MODES:
            p.error(f"CODING_AGENT_SANDBOX: {wanted!r} is not {' / '.join(SANDBOX_MODES)}")
        args.sandbox, args.sandbox_origin = wanted, "env"
    if args.input_format not in ("text", "stream-json"):
        p.error(f"CODING_AGENT_INPUT_FORMAT: {args.input_format!r} is not text or stream-json")
    if args.query is not None:
        if args.prompt is None:
            p.error(t("print_prompt_needs_p", args.lang))
        if args.prompt != PRINT_WITHOUT_TEXT:
            p.error(f"-p {args.prompt!r} and {args.query!r}: give the prompt once")
        args.prompt = args.query  # `-p --output-format json "fix it"`, as Claude Code is called
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
    p.add_argument(
        "--thinking",
        choices=THINKING_CHOICES,
        default=_env("thinking"),
        help="DeepSeek's thinking mode (default: as the API, on for deepseek-v4-*)",
    )
    p.add_argument(
        "--reasoning-effort",
        choices=REASONING_EFFORTS,
        default=_env("reasoning_effort"),
        help="how deeply the model thinks (default: the API's)",
    )
    p.add_argument(
        "--images",
        choices=("on", "off"),
        default=_env("images"),
        help="the model takes images (default: as known for the model; deepseek-flash does)",
    )
    p.add_argument("--compact-at", default=_env("compact_at"), help="auto-compact at N tokens or P%% of the window")
    p.add_argument("--no-auto-compact", action="store_true", default=_env_flag("no_auto_compact"))
    p.add_argument(
        "--max-requests",
        "--max-turns",
        dest="max_requests",
        type=_request_limit,
        default=_env("max_requests"),
        metavar="N",
        help="stop a turn after N model requests (default 0: no limit)",
    )
    p.add_argument(
        "--cheap-tier",
        choices=("auto", "on", "off"),
        default=(_env("cheap_tier") or "auto").lower(),
        help="clear old tool results instead of summarizing: auto (when cheaper), on, off",
    )
    p.add_argument(
        "--prices",
        default=_env("prices"),
        metavar="JSON|FILE",
        help='your own prices per 1M tokens, e.g. \'{"MODEL": {"hit": 0.01, "miss": 0.1, "output": 0.4}}\'',
    )
    p.add_argument(
        "-p",
        "--print",
        dest="prompt",
        nargs="?",
        const=PRINT_WITHOUT_TEXT,
        default=_env("print"),
        help="run one turn, print, exit: -p TEXT, or -p with the prompt as the last argument (as "
        "Claude Code's), '-' or none reads the message from stdin; piped stdin is added to it",
    )
    p.add_argument("query", nargs="?", help='the prompt, with -p (-p "fix the test" works as well)')
    p.add_argument(
        "--output-format",
        choices=("text", "json", "stream-json"),
        default=_env("output_format") or "text",
        help="-p's output: the answer, one JSON object, "
        "or one JSON line per event (Claude Code's fields and messages among ours)",
    )
    p.add_argument(
        "--input-format",
        choices=("text", "stream-json"),
        default=_env("input_format") or "text",
        help="-p's input: the prompt, or (with --output-format stream-json) one JSON user message "
        "per line of stdin, a turn each, until stdin ends",
    )
    p.add_argument(
        "--allowed-tools",
        "--allowedTools",
        dest="allowed_tools",
        nargs="+",
        action="extend",
        default=_one_item(_env("allowed_tools")),
        metavar="TOOL|RULE",
        help="tools that run without asking (run_command, Bash, mcp__server__tool) or allow rules "
        '("Bash(git diff:*)"), separated by commas or spaces',
    )
    p.add_argument(
        "--disallowed-tools",
        "--disallowedTools",
        dest="disallowed_tools",
        nargs="+",
        action="extend",
        default=_one_item(_env("disallowed_tools")),
        metavar="TOOL|RULE",
        help='tools the model is not given (write_file, Bash) or deny rules ("Bash(git push:*)", mcp__server)',
    )
    p.add_argument(
        "--continue",
        dest="cont",
        action="store_true",
        default=_env_flag("continue"),
        help="resume the latest session of this directory",
    )
    p.add_argument("--resume", nargs="?", const="", default=_env("resume"), help="resume a session (by id)")
    p.add_argument(
        "--fetch-allow-network",
        type=_networks,
        default=_env("fetch_allow_network") or (),
        metavar="CIDRS",
        help="networks fetch_url may reach although not public (e.g. 127.0.0.0/8), comma-separated",
    )
    p.add_argument(
        "--yes",
        action="store_true",
        default=_env_flag("yes"),
        help="run shell commands without asking (the same as --permission-mode bypassPermissions)",
    )
    p.add_argument(
        "--sandbox",
        choices=SANDBOX_MODES,
        default=None,
        help="the OS sandbox commands run in: read-only, workspace-write (the default where the "
        "machine has one: the workspace writable, no network) or danger-full-access (none)",
    )
    p.add_argument(
        "--permission-mode",
        choices=PERMISSION_MODES,
        default=_env("permission_mode"),
        help="default (ask before edits and commands), acceptEdits (the default: edits in the "
        "workspace without asking), plan (read-only tools only), bypassPermissions (ask nothing)",
    )
    p.add_argument(
        "--trust-project",
        action="store_true",
        default=_env_flag("trust_project"),
        help="use the project's env, baseUrl, allow rules, hooks and MCP servers without asking "
        "(for scripts: -p cannot ask)",
    )
    p.add_argument("--lang", choices=("zh", "en"), default=_env("lang") or default_lang())
    p.add_argument(
        "--demo",
        action="store_true",
        default=_env_flag("demo"),
        help="try it without a key, against the built-in emulator (a source checkout's), which it starts and stops",
    )
    p.add_argument("--debug", action="store_true", default=_env_flag("debug"), help="write a debug log")
    p.add_argument("--version", action="version", version=f"coding-agent-compact {VERSION}")
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
        files.apply_to_args(loaded, args, given)  # the same values; a project's baseUrl the user overrides goes
    loaded.origins = files.origins(loaded, args, given)
    files.apply_env(loaded)
    return loaded


def _networks(text: str) -> tuple[str, ...]:
    """--fetch-allow-network: networks (agent.tools.fetch_url), a bad one refused like any bad value."""
    from agent.tools.fetch_url import parse_networks

    try:
        return parse_networks(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc
