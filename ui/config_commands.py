"""The slash commands that show and change what the session loaded: /config (the settings and their
sources), /hooks, /add-dir, /memory and /init, /mcp and /agents. Like every command they talk only
through their host."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent.text.i18n import t
from ui.registry import CommandHost as App
from ui.registry import command


def _shown(value: object, lang: str) -> str:
    if value is None:
        return t("config_unset", lang)
    return str(value).lower() if isinstance(value, bool) else str(value)


@command("config")
async def cmd_config(app: App) -> None:
    from agent.provider.settings import settings_paths

    settings = app.state.config.settings
    lines = [t("config_title", app.lang)]
    names = []
    for key, (value, source) in settings.origins.items() if settings else ():
        where = t(f"config_source_{source}", app.lang)
        lines.append(f"  {key:<16} {_shown(value, app.lang):<28} {where}")
        names.append(f"  {key}")
    from agent.tools.permissions import mode

    perms = app.state.permissions
    rules = {kind: len(found) for kind, found in perms.rules.items()}
    lines.append(t("config_permissions", app.lang, mode=mode(app.state), waiting=len(perms.pending_allow), **rules))
    lines += _project_lines(app)
    from agent.tools.sandbox.status import config_lines

    lines += config_lines(app.state.config.sandbox, app.lang)
    lines.append(t("config_files", app.lang))
    for layer, path in settings_paths(app.state.workspace).items():
        lines.append(
            t(
                "config_file_found" if path.is_file() else "config_file_missing",
                app.lang,
                layer=t(f"config_source_{layer}", app.lang),
                path=path,
            )
        )
    if settings is not None and settings.ignored:
        lines.append(t("config_ignored", app.lang))
    for layer, name, why, values in settings.ignored if settings is not None else ():
        lines.append(
            t(
                "config_ignored_line",
                app.lang,
                name=name,
                layer=t(f"config_source_{layer}", app.lang),
                why=t(f"ignored_{why}", app.lang, **values),
            )
        )
    app.show(lines, names)


def _project_lines(app: App) -> list[str]:
    """The project's grants and whether they are used; the `env` names no project may set."""
    from agent.provider.grants import summary
    from agent.provider.trust import found_now

    lines = []
    if found := found_now(app.state):
        status = t("config_grants_used" if app.state.project.trusted else "config_grants_waiting", app.lang)
        lines.append(t("config_project_grants", app.lang, what=summary(found, app.lang), status=status))
    settings = app.state.config.settings
    for layer, name in settings.refused_env if settings is not None else ():
        lines.append(t("config_env_refused", app.lang, name=name, layer=t(f"config_source_{layer}", app.lang)))
    return lines


# --- /hooks -----------------------------------------------------------------------------------------


@command("hooks")
async def cmd_hooks(app: App) -> None:
    hooks, lang = app.state.hooks, app.lang
    if not hooks.active and not hooks.pending:
        app.say(t("hooks_none", lang), "warn")
        return
    lines = [t("hooks_title", lang)]
    waiting = t("permissions_waiting", lang)
    for hook, state in [*[(h, "") for h in hooks.active], *[(h, waiting) for h in hooks.pending]]:
        matcher = f" [{hook.matcher}]" if hook.matcher else ""
        where = t(f"config_source_{hook.layer}", lang)
        lines.append(f"  {hook.event}{matcher} · {where}{' · ' + state if state else ''}")
        lines.append(f"      {hook.command}")
    app.show(lines)


# --- /add-dir ---------------------------------------------------------------------------------------


@command("add-dir", takes_args=True)
async def cmd_add_dir(app: App, args: str) -> None:
    from agent.config import data_home
    from agent.tools.workspace import PathError, add_folder, added_folders

    lang, workspace = app.lang, app.state.workspace
    if not args.strip():
        folders = added_folders(workspace)
        app.show([t("add_dir_title", lang), *[f"  {f}" for f in folders]] if folders else [t("add_dir_none", lang)])
        return
    given = Path(args.strip()).expanduser()
    given = given if given.is_absolute() else workspace / given
    real = given.resolve()
    why = (
        "add_dir_not_folder"
        if not real.is_dir()
        else "add_dir_data"
        if real.is_relative_to(data_home().resolve())
        else "add_dir_everything"
        if real == Path(real.anchor)
        else None
    )
    if why is not None:
        app.say(t("add_dir_refused", lang, folder=given, why=t(why, lang)), "error")
        return
    try:
        folder = add_folder(workspace, real)
    except PathError as exc:
        app.say(t("add_dir_refused", lang, folder=given, why=exc), "error")
        return
    from agent.turn.quick_input import add_user_message

    add_user_message(app.state, "user_add_dir", "add_dir", folder=str(folder))
    app.say(t("add_dir_done", lang, folder=folder))


# --- memory files --------------------------------------------------------------------------


@command("memory")
async def cmd_memory(app: App) -> None:
    from ui.memory_view import memory_lines

    lines = memory_lines(app.state)
    if lines is None:
        app.say(t("memory_none", app.lang), "warn")
        return
    app.show(lines)


@command("init")
async def cmd_init(app: App) -> None:
    from agent.text.prompts import load_prompt

    if (app.state.workspace / "AGENTS.md").exists():
        app.say(t("init_exists", app.lang), "warn")
    await app.prompt(load_prompt("init", app.lang))


# --- MCP servers ---------------------------------------------------------------------------


LOG_LINES = 40  # lines of a server's log /mcp log shows


@command("mcp", takes_args=True)
async def cmd_mcp(app: App, args: str = "") -> None:
    servers = app.state.mcp.servers
    if not servers:
        app.say(t("mcp_none", app.lang), "warn")
        return
    action, _, name = args.partition(" ")
    if not action:
        _list_servers(app)
        return
    if action not in ("log", "retry", "reconnect") or not name.strip():
        app.say(t("mcp_usage", app.lang), "warn")
        return
    server = servers.get(name.strip())
    if server is None:
        app.say(t("mcp_unknown", app.lang, name=name.strip()), "warn")
    elif action == "log":
        _show_log(app, server)
    else:
        await _retry(app, server)


def _list_servers(app: App) -> None:
    lines, names = [t("mcp_title", app.lang)], []
    for server in app.state.mcp.servers.values():
        what = t(f"mcp_state_{server.state}", app.lang)
        if server.error:
            what += f": {server.error}"
        names.append(f"  {server.name}")
        lines.append(f"  {server.name} · {t(f'memory_scope_{server.scope}', app.lang)} · {what}")
        if server.tools:
            lines.append("    " + ", ".join(f"mcp__{server.name}__{tool}" for tool in server.tools))
        if server.prompts or server.resources:  # the server's names: the UI escapes them
            prompts = ", ".join(f"/mcp__{server.name}__{p.name}" for p in server.prompts) or "-"
            lines.append(t("mcp_offers_line", app.lang, prompts=prompts, n=len(server.resources), server=server.name))
        if server.state == "failed":
            lines.append(t("mcp_hint_failed", app.lang, name=server.name))
    app.show(lines, names)


def _show_log(app: App, server: Any) -> None:
    """The log's last lines as the server wrote them: the UI escapes what is not printable."""
    from agent.tools.mcp_log import log_path, tail

    path = log_path(app.state.workspace, server.name)
    lines = tail(path, LOG_LINES)
    if not lines:
        app.say(t("mcp_log_none", app.lang, name=server.name, path=path))
        return
    app.show([t("mcp_log_title", app.lang, n=len(lines), name=server.name, path=path), *lines])


async def _retry(app: App, server: Any) -> None:
    from agent.tools import mcp_servers

    if server.state == "waiting":
        app.say(t("mcp_retry_waiting", app.lang, name=server.name), "warn")
        return
    if server.state == "starting":
        app.say(t("mcp_retry_starting", app.lang, name=server.name))
        return
    await mcp_servers.restart(app.state, server)
    if server.state == "ready":
        app.say(t("mcp_retry_ready", app.lang, name=server.name, n=len(server.tools)))


# --- sub-agents ----------------------------------------------------------------------------


@command("agents")
async def cmd_agents(app: App) -> None:
    from agent.provider import agent_files

    defined = agent_files.load(app.state.workspace)
    if not defined:
        app.say(t("agents_none", app.lang), "warn")
        return
    lines, strong = [t("agents_title", app.lang)], [""]
    for agent in defined:
        lines.append(
            t(
                "agents_line",
                app.lang,
                name=agent.name,
                scope=t(f"memory_scope_{agent.scope}", app.lang),
                path=agent.path,
            )
        )
        strong.append(f"  {agent.name}")
        if agent.description:
            lines.append(f"    {' '.join(agent.description.split())[:200]}")
            strong.append("")
        tools = ", ".join(agent.tools) if agent.tools is not None else t("agents_all_tools", app.lang)
        if agent.model is None:
            model = t("agents_inherit", app.lang)
        elif agent_files.is_claude_model(agent.model):
            model = t("agents_claude_model", app.lang, model=agent.model)
        else:
            model = agent.model
        lines.append(t("agents_detail", app.lang, tools=tools, model=model))
        strong.append("")
    app.show(lines, strong)
