"""Slash commands: one registry that /help and completion both read (the design's COMMANDS)."""

from __future__ import annotations

import difflib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ui.app import App

Handler = Callable[..., Awaitable[None]]


@dataclass(frozen=True)
class Command:
    name: str
    aliases: tuple[str, ...]
    description: tuple[str, str]  # (en, zh)
    handler: Handler
    takes_args: bool = False
    # What may follow the name, as /help shows it: (en, zh), e.g. ("[instructions|undo]", ...).
    args_hint: tuple[str, str] = ("", "")

    def describe(self, lang: str) -> str:
        return self.description[1] if lang == "zh" else self.description[0]

    def hint(self, lang: str) -> str:
        return self.args_hint[1] if lang == "zh" else self.args_hint[0]


COMMANDS: dict[str, Command] = {}


def command(name: str, en: str, zh: str, *, aliases: tuple[str, ...] = (), args: tuple[str, str] | None = None):
    """Register a slash command; `args` (en, zh) is the hint for what it takes, None if nothing."""

    def register(handler: Handler) -> Handler:
        cmd = Command(name, aliases, (en, zh), handler, args is not None, args or ("", ""))
        for key in (name, *aliases):
            COMMANDS[key] = cmd
        return handler

    return register


def unique_commands() -> list[Command]:
    seen: dict[str, Command] = {}
    for cmd in COMMANDS.values():
        seen.setdefault(cmd.name, cmd)
    return list(seen.values())


async def dispatch(app: App, user_input: str) -> None:
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
