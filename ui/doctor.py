"""/doctor: what this session runs on, one line a part with a verdict, as Claude Code's /doctor checks
its installation: the key, the endpoint (can it be reached), the context window, the MCP servers, the
sandbox and the settings files (read, with problems, or another tool's that this agent does not read).
It asks no model; the endpoint is only connected to (no request, no key sent)."""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import urlsplit

from agent.text.i18n import t
from ui.registry import CommandHost as App
from ui.registry import command

CONNECT_TIMEOUT = 5.0  # seconds to reach the endpoint's host
MARKS = {"ok": "✓", "warn": "!", "error": "✗", "info": "·"}
# Claude Code's settings files: named when present and not among the files this agent reads.
CLAUDE_FILES = (".claude/settings.json", ".claude/settings.local.json")


async def reachable(url: str) -> str | None:
    """None when a TCP connection to `url`'s host and port opens within the timeout, else why not."""
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        _reader, writer = await asyncio.wait_for(asyncio.open_connection(parts.hostname, port), CONNECT_TIMEOUT)
    except (TimeoutError, OSError, ValueError) as exc:
        return str(getattr(exc, "strerror", None) or exc or type(exc).__name__)
    writer.close()
    return None


def _key(config: Any, lang: str) -> tuple[str, str]:
    from agent.config import is_deepseek_url

    if config.api_key:
        return "ok", t("doctor_key_set", lang)
    if is_deepseek_url(config.base_url):
        return "error", t("doctor_key_missing", lang)
    return "info", t("doctor_key_none", lang)


def _window(config: Any, lang: str) -> tuple[str, str]:
    if not config.window_known:
        return "warn", t("doctor_window_guessed", lang, n=config.context_window)
    return "ok", t("doctor_window", lang, n=config.context_window)


def _servers(state: Any, lang: str) -> list[tuple[str, str, str]]:
    found = []
    for server in state.mcp.servers.values():
        verdict = {"ready": "ok", "failed": "error", "stopped": "error"}.get(server.state, "warn")
        what = t(f"mcp_state_{server.state}", lang) + (f": {server.error}" if server.error else "")
        found.append((verdict, f"MCP {server.name}", what))
    return found or [("info", "MCP", t("doctor_mcp_none", lang))]


def _sandbox(state: Any, lang: str) -> tuple[str, str]:
    from agent.tools.sandbox import detect, status
    from agent.tools.sandbox.policy import sandboxed_mode

    config = state.config
    line = status.status_line(config, state.workspace, lang)  # it names the sandbox itself
    if line is None:
        return "warn", t("doctor_sandbox", lang) + t("doctor_colon", lang) + t("doctor_sandbox_none", lang)
    works = sandboxed_mode(config.sandbox) and detect.find(state.workspace).works
    return ("ok" if works else "warn"), line


def _settings(state: Any, lang: str) -> list[tuple[str, str, str]]:
    from agent.config import claude_home
    from agent.provider.settings import settings_paths

    settings, found = state.config.settings, []
    warnings = settings.warnings if settings is not None else []
    read = {str(p) for p in settings_paths(state.workspace).values()}
    for path in settings_paths(state.workspace).values():
        mine = [w for w in warnings if str(path) in w]
        if mine:  # each warning names its file
            found += [("warn", warning, "") for warning in mine]
        elif path.is_file():
            found.append(("ok", str(path), t("doctor_settings_read", lang)))
        else:
            found.append(("info", str(path), t("doctor_settings_absent", lang)))
    for path in [state.workspace / name for name in CLAUDE_FILES] + [claude_home() / "settings.json"]:
        if path.is_file() and str(path) not in read:
            found.append(("warn", str(path), t("doctor_settings_other", lang)))
    return found


async def checks(state: Any) -> list[tuple[str, str, str]]:
    """(verdict, what, detail) for each part, in the order /doctor shows them."""
    config, lang = state.config, state.lang
    key, window, sandbox = _key(config, lang), _window(config, lang), _sandbox(state, lang)
    rows = [(key[0], t("doctor_key", lang), key[1])]
    why = await reachable(config.endpoint)
    rows.append(
        ("ok", t("doctor_endpoint", lang), t("doctor_endpoint_ok", lang, url=config.endpoint))
        if why is None
        else ("error", t("doctor_endpoint", lang), t("doctor_endpoint_no", lang, url=config.endpoint, why=why))
    )
    rows.append((window[0], t("doctor_window_label", lang), window[1]))
    rows += _servers(state, lang)
    rows.append((sandbox[0], sandbox[1], ""))
    rows += _settings(state, lang)
    return rows


@command("doctor")
async def cmd_doctor(app: App) -> None:
    from agent.text.visible import plain

    rows = await checks(app.state)
    lines = [t("doctor_title", app.lang)]
    colon = t("doctor_colon", app.lang)
    for verdict, what, detail in rows:
        said = f"{what}{colon}{detail}" if detail else what
        lines.append(f"  {MARKS[verdict]} {t(f'doctor_verdict_{verdict}', app.lang)} · {plain(said)}")
    errors, warnings = (sum(1 for row in rows if row[0] == kind) for kind in ("error", "warn"))
    lines.append(
        t("doctor_summary", app.lang, n=errors)
        if errors
        else t("doctor_to_check", app.lang, n=warnings)
        if warnings
        else t("doctor_all_well", app.lang)
    )
    app.show(lines)
