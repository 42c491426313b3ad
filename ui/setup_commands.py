"""The slash commands of issue 24: /config (the settings and their sources), and those of the
permissions, MCP servers and memory files. Like every command they talk only through their host."""

from __future__ import annotations

from agent.i18n import t
from ui.registry import CommandHost as App
from ui.registry import command


def _shown(value: object, lang: str) -> str:
    if value is None:
        return t("config_unset", lang)
    return str(value).lower() if isinstance(value, bool) else str(value)


@command("config")
async def cmd_config(app: App) -> None:
    from agent.settings import settings_paths

    settings = app.state.config.settings
    lines = [t("config_title", app.lang)]
    names = []
    for key, (value, source) in (settings.origins.items() if settings else ()):
        where = t(f"config_source_{source}", app.lang)
        lines.append(f"  {key:<16} {_shown(value, app.lang):<28} {where}")
        names.append(f"  {key}")
    lines.append(t("config_files", app.lang))
    for layer, path in settings_paths(app.state.workspace).items():
        lines.append(t("config_file_found" if path.is_file() else "config_file_missing", app.lang,
                       layer=t(f"config_source_{layer}", app.lang), path=path))
    app.show(lines, names)
