"""The slash-command registry that /help and completion both read, and what a handler may use of the
REPL. Handlers register here without importing ui.app, so the REPL can list them without a cycle."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from rich.console import Console

    from agent.state import AppState


class CommandHost(Protocol):
    """The part of ui.app.App that commands use."""

    state: AppState
    console: Console
    running: bool

    @property
    def lang(self) -> str: ...

    def say(self, text: str, style: str = "") -> None: ...

    async def ask(self, question: str, *, fresh_keys: bool = False) -> str: ...

    async def confirm(self, question: str) -> bool: ...


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
