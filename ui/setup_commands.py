"""The slash commands of issue 24: /config (the settings and their sources), and those of the
permissions, MCP servers and memory files. Like every command they talk only through their host."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agent.text.i18n import t
from ui.registry import COMMANDS, Command, command
from ui.registry import CommandHost as App


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
    for key, (value, source) in (settings.origins.items() if settings else ()):
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
        lines.append(t("config_file_found" if path.is_file() else "config_file_missing", app.lang,
                       layer=t(f"config_source_{layer}", app.lang), path=path))
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


# --- custom commands -----------------------------------------------------------------------


@dataclass(frozen=True)
class CustomCommand(Command):
    """A command from a Markdown file: its texts are the file's, the same in every language."""

    source: Any = None  # agent.turn.custom_commands.CustomCommand

    def describe(self, lang: str) -> str:
        return self.source.description or t("custom_command", lang, path=self.source.path)

    def hint(self, lang: str) -> str:
        return self.source.argument_hint or t("custom_command_args", lang)


def add_custom_commands(app: App) -> None:
    """Register the workspace's and the user's command files; a built-in name wins, with a warning."""
    from agent.turn import custom_commands

    for found in custom_commands.load(app.state.workspace):
        if found.name in COMMANDS:
            app.say(t("custom_command_shadowed", app.lang, name=found.name, path=found.path), "warn")
            continue

        # A project's command is someone else's text: the paths its body names are confined.
        project = found.path.is_relative_to(app.state.workspace)

        async def run(host: App, args: str, found: Any = found, project: bool = project) -> None:
            await host.prompt(found.prompt(args), args if project else None)

        app.custom[found.name] = CustomCommand(found.name, (), run, takes_args=True, source=found)


# --- memory files --------------------------------------------------------------------------


@command("memory")
async def cmd_memory(app: App) -> None:
    from agent.tokens import count as tokens
    from agent.tools import memory_files

    found = memory_files.load(app.state.workspace)
    if not found:
        app.say(t("memory_none", app.lang), "warn")
        return
    lines = [t("memory_title", app.lang)]
    for memory in found:
        lines.append(t("memory_line", app.lang, path=memory.path, n=tokens.count_text(memory.text),
                       scope=t(f"memory_scope_{memory.scope}", app.lang)))
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
