"""Slash commands: the registry (ui/registry.py) filled by ui/command_handlers.py, and dispatch."""

from __future__ import annotations

import difflib

from ui.registry import COMMANDS, Command, CommandHost, command, unique_commands

__all__ = ["COMMANDS", "Command", "command", "dispatch", "unique_commands"]


async def dispatch(app: CommandHost, user_input: str) -> None:
    cmd_name, _, args = user_input[1:].partition(" ")
    cmd = COMMANDS.get(cmd_name)
    if cmd is None:
        close = difflib.get_close_matches(cmd_name, list(COMMANDS), n=1)
        hint = f" Did you mean /{close[0]}?" if close else " Type /help."
        if app.lang == "zh":
            hint = f" 你是不是想输入 /{close[0]}？" if close else " 输入 /help 查看命令。"
        app.say(("未知命令 /" if app.lang == "zh" else "Unknown command /") + cmd_name
                + ("。" if app.lang == "zh" else ".") + hint, "yellow")
        return
    if cmd.takes_args:
        await cmd.handler(app, args.strip())
    else:
        await cmd.handler(app)


# Importing the handlers registers them.
from ui import command_handlers as _handlers  # noqa: E402, F401
