"""Slash commands: the registry (ui/registry.py) filled by ui/command_handlers.py, what input is a
command, and dispatch."""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from pathlib import Path

from agent.text.i18n import t
from ui.registry import COMMANDS, Command, CommandHost, command, unique_commands

__all__ = ["COMMANDS", "Command", "command", "dispatch", "slash_command", "unique_commands"]

# The first word as a terminal pastes a dropped file: a space in its name escaped with a backslash.
_FIRST_WORD = re.compile(r"(?:\\.|[^\s\\])+")


def _names_a_path(text: str) -> bool:
    match = _FIRST_WORD.match(text)
    if match is None:
        return False
    try:
        return Path(re.sub(r"\\(.)", r"\1", match.group())).exists()
    except (OSError, ValueError):  # a name too long for the file system, a NUL byte
        return False


def slash_command(text: str, known: Callable[[str], bool]) -> tuple[str, str] | None:
    """(name, arguments) when `text` is a slash command, None when it is a message. A first word
    that is an existing file or folder (`/tmp/shot.png`, an image dropped into an empty prompt) and
    no command's name is a message."""
    if not text.startswith("/"):
        return None
    name, _, args = text[1:].partition(" ")
    if name and not known(name) and _names_a_path(text):
        return None
    return name, args.strip()


async def dispatch(app: CommandHost, user_input: str) -> None:
    app.refresh_custom()  # a command file added since the last input is found
    cmd_name, _, args = user_input[1:].partition(" ")
    cmd = COMMANDS.get(cmd_name) or app.custom.get(cmd_name)
    if cmd is None and cmd_name.startswith("mcp__"):  # an MCP server's prompt: its server may still be starting
        from agent.tools.mcp_offers import find_prompt

        if await find_prompt(app.state, cmd_name) is not None:
            app.refresh_custom()
            cmd = app.custom.get(cmd_name)
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
from ui import command_handlers as _handlers  # noqa: E402, F401
from ui import config_commands as _config  # noqa: E402, F401
from ui import doctor as _doctor  # noqa: E402, F401
from ui import model_commands as _model  # noqa: E402, F401
from ui import permission_commands as _permissions  # noqa: E402, F401
from ui import pin_commands as _pins  # noqa: E402, F401
from ui import review_command as _review  # noqa: E402, F401
from ui import rewind_command as _rewind  # noqa: E402, F401
