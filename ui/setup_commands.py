"""The slash commands of issue 24: /config (the settings and their sources), and those of the
permissions, MCP servers and memory files. Like every command they talk only through their host."""

from __future__ import annotations

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
        lines.append(t("agents_line", app.lang, name=agent.name, scope=t(f"memory_scope_{agent.scope}", app.lang),
                       path=agent.path))
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
