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
    lines.append(t("config_files", app.lang))
    for layer, path in settings_paths(app.state.workspace).items():
        lines.append(t("config_file_found" if path.is_file() else "config_file_missing", app.lang,
                       layer=t(f"config_source_{layer}", app.lang), path=path))
    app.show(lines, names)


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


@command("mcp")
async def cmd_mcp(app: App) -> None:
    servers = app.state.mcp.servers
    if not servers:
        app.say(t("mcp_none", app.lang), "warn")
        return
    lines, names = [t("mcp_title", app.lang)], []
    for server in servers.values():
        what = t(f"mcp_state_{server.state}", app.lang)
        if server.error:
            what += f": {server.error}"
        names.append(f"  {server.name}")
        lines.append(f"  {server.name} · {t(f'memory_scope_{server.scope}', app.lang)} · {what}")
        if server.tools:
            lines.append("    " + ", ".join(f"mcp__{server.name}__{tool}" for tool in server.tools))
    app.show(lines, names)
