"""Slash commands: the registry (ui/registry.py) filled by ui/command_handlers.py, and dispatch."""

from __future__ import annotations

import difflib

from agent.text.i18n import t
from ui.registry import COMMANDS, Command, CommandHost, command, unique_commands

__all__ = ["COMMANDS", "Command", "command", "dispatch", "unique_commands"]


async def dispatch(app: CommandHost, user_input: str) -> None:
    cmd_name, _, args = user_input[1:].partition(" ")
    cmd = COMMANDS.get(cmd_name) or app.custom.get(cmd_name)
    if cmd is None:
        close = difflib.get_close_matches(cmd_name, [*COMMANDS, *app.custom], n=1)
        if close:
            app.say(t("unknown_command_close", app.lang, name=cmd_name, close=close[0]), "warn")
        else:
            app.say(t("unknown_command", app.lang, name=cmd_name), "warn")
        return
    if cmd.takes_args:
        await cmd.handler(app, args.strip())
    else:
        await cmd.handler(app)


# Importing the handlers registers them.
from ui import caps_commands as _caps  # noqa: E402, F401
from ui import command_handlers as _handlers  # noqa: E402, F401
from ui import rewind_command as _rewind  # noqa: E402, F401
from ui import setup_commands as _setup  # noqa: E402, F401
