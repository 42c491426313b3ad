"""The slash-command registry that /help and completion both read, and what a handler may use of the
REPL. Handlers register here without importing ui.app, so the REPL can list them without a cycle."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.events import Listing, Notice, Question, ReportRequested, ask
from agent.text.i18n import t

if TYPE_CHECKING:
    from agent.state.app import AppState


class CommandHost:
    """What a command may use: the session's state and the channel to the UI (`state.emit`). It
    has no console and reads no keys: what it shows and asks are events the UI draws and answers."""

    def __init__(self, state: AppState) -> None:
        self.state = state
        self.running = True  # /exit sets it False: the REPL ends after this input
        # The project's and the user's own commands (agent.provider.command_files), after the built-in ones.
        self.custom: dict[str, Command] = {}
        self._shadowed: set[Path] = set()  # command files already said to be hidden by a built-in name

    @property
    def lang(self) -> str:
        return self.state.lang

    def say(self, text: str, level: str = "info") -> None:
        """One line; `level` as agent.events.Notice ("info", "warn", "error", "dim", "plain")."""
        self.state.emit(Notice(text, level))

    def show(self, lines: Sequence[str], strong: Sequence[str] = ()) -> None:
        self.state.emit(Listing(tuple(lines), tuple(strong)))

    def report(self, view: str) -> None:
        self.state.emit(ReportRequested(view))

    async def ask(self, question: str) -> str:
        return await ask(self.state.emit, Question(question))

    async def edit(self, question: str, text: str) -> str:
        """`text` as the user edited it in place; unchanged when no one can edit it."""
        return await ask(self.state.emit, Question(question, edit=text)) or text

    async def confirm(self, question: str) -> bool:
        return await ask(self.state.emit, Question(question, yes_no=True)) == "y"

    async def prompt(self, text: str, typed: str | None = None) -> None:
        """Send `text` to the model (custom commands, /init); a host without a model (a test's) only
        says it. `typed`: `text` is a project file's and this is what the user typed into it
        (main.on_submit confines the paths only the file names)."""
        self.say(text, "dim")

    def commands(self, warn: bool = True) -> list[Command]:
        """The built-in commands, then the custom ones as their files are now: what /help and completion list."""
        self.refresh_custom(warn)
        return [*unique_commands(), *dict.fromkeys(self.custom.values())]

    def refresh_custom(self, warn: bool = True) -> None:
        """The command files as they are now: one added, changed or removed while the REPL runs
        counts at once. A built-in name wins, with a warning (once per file)."""
        from agent.provider import command_files

        found: dict[str, Command] = {}
        sources = command_files.load(self.state.workspace)
        short = {
            source.name: leaf for leaf, source in command_files.short_names(sources).items() if leaf not in COMMANDS
        }
        for source in sources:
            if source.name in COMMANDS:
                if warn and source.path not in self._shadowed:
                    self._shadowed.add(source.path)
                    self.say(t("custom_command_shadowed", self.lang, name=source.name, path=source.path), "warn")
                continue
            run = functools.partial(_run_file, source=source)
            aliases = (short[source.name],) if source.name in short else ()
            found[source.name] = FileCommand(source.name, aliases, run, takes_args=True, source=source)
            for alias in aliases:
                found[alias] = found[source.name]
        from agent.tools.mcp_offers import prompt_commands

        for name, server, prompt in prompt_commands(self.state):  # the MCP servers' prompts, while they are up
            run = functools.partial(_run_prompt, server=server, prompt=prompt)
            found.setdefault(name, PromptCommand(name, (), run, takes_args=True, server=server.name, prompt=prompt))
        self.custom = found

    def is_command(self, name: str) -> bool:
        return name in COMMANDS or name in self.custom


Handler = Callable[..., Awaitable[None]]


@dataclass(frozen=True)
class Command:
    """A slash command; its texts are agent.text.i18n's `cmd_<name>` (what it does) and, when it takes
    arguments, `cmd_<name>_args` (what may follow the name, as /help shows it)."""

    name: str
    aliases: tuple[str, ...]
    handler: Handler
    takes_args: bool = False

    def describe(self, lang: str) -> str:
        return t(f"cmd_{self.name}", lang, undo=COMPACT_UNDO)

    def hint(self, lang: str) -> str:
        return t(f"cmd_{self.name}_args", lang, undo=COMPACT_UNDO, show=COMPACT_SHOW) if self.takes_args else ""


@dataclass(frozen=True)
class FileCommand(Command):
    """A command from a Markdown file: its texts are the file's, the same in every language."""

    source: Any = None  # agent.provider.command_files.CommandFile

    def describe(self, lang: str) -> str:
        return self.source.description or t("custom_command", lang, path=self.source.path)

    def hint(self, lang: str) -> str:
        return self.source.argument_hint or t("custom_command_args", lang)


@dataclass(frozen=True)
class PromptCommand(Command):
    """An MCP server's prompt (agent.tools.mcp_offers): its texts are the server's (the UI escapes them)."""

    server: str = ""
    prompt: Any = field(default=None, compare=False, hash=False)  # pydantic_ai.mcp.Prompt

    def describe(self, lang: str) -> str:
        what = t("mcp_prompt_command", lang, server=self.server)
        return f"{what}: {' '.join(self.prompt.description.split())[:120]}" if self.prompt.description else what

    def hint(self, lang: str) -> str:
        from agent.tools.mcp_offers import usage

        return usage(self.prompt)


async def _run_prompt(host: CommandHost, args: str, *, server: Any, prompt: Any) -> None:
    """Send an MCP server's prompt to the model, framed as the server's text."""
    from agent.tools.mcp_offers import prompt_text

    text = await prompt_text(host.state, server, prompt, args)
    if text is not None:
        await host.prompt(text, args)


async def _run_file(host: CommandHost, args: str, *, source: Any) -> None:
    """Run a command file (agent.turn.custom_commands): its prompt goes to the model as if typed."""
    from agent.turn import custom_commands

    await custom_commands.run(host.state, source, args, host.prompt)


COMMANDS: dict[str, Command] = {}
COMPACT_UNDO = "undo"  # the word typed after /compact, the same in every language
COMPACT_SHOW = "show"  # /compact show: the last summary, whole
COMPACT_PREVIEW = "preview"  # /compact preview [instructions]: see the summary, then apply, edit or cancel


def command(name: str, *, aliases: tuple[str, ...] = (), takes_args: bool = False):
    """Register a slash command (its texts in agent.text.i18n: `cmd_<name>`, `cmd_<name>_args`)."""

    def register(handler: Handler) -> Handler:
        cmd = Command(name, aliases, handler, takes_args)
        for key in (name, *aliases):
            COMMANDS[key] = cmd
        return handler

    return register


def unique_commands() -> list[Command]:
    seen: dict[str, Command] = {}
    for cmd in COMMANDS.values():
        seen.setdefault(cmd.name, cmd)
    return list(seen.values())
