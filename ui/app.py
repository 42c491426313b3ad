"""The REPL: prompt-toolkit input, rich output, Ctrl-C handling."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Awaitable, Callable
from pathlib import Path

from prompt_toolkit import PromptSession
from prompt_toolkit.completion import Completer, Completion
from prompt_toolkit.filters import Condition
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from prompt_toolkit.key_binding import KeyBindings
from rich.console import Console

from agent.config import data_home
from agent.state.app import AppState
from agent.text.i18n import t
from ui.approval import clear_typeahead, plain
from ui.registry import CommandHost
from ui.render import Renderer
from ui.tty import EscapeWatch, typeahead

# (app, text, typed=None, command_prompt=False): main.submit; a typed line may be a slash command, a
# command's prompt is not.
OnSubmit = Callable[..., Awaitable[None]]
MAX_PATH_COMPLETIONS = 50


class AgentCompleter(Completer):
    """Slash commands at the start of the line, workspace paths after '@'."""

    def __init__(self, app: App) -> None:
        self.app = app

    def get_completions(self, document, complete_event):
        text = document.text_before_cursor
        if text.startswith("/") and " " not in text:
            for cmd in self.app.commands(warn=False):  # a warning would be drawn over the line being typed
                for name in (cmd.name, *cmd.aliases):
                    if name.startswith(text[1:]):
                        yield Completion("/" + name, -len(text), display_meta=plain(cmd.describe(self.app.lang)))
            return
        word = text.split()[-1] if text.split() and not text.endswith(" ") else ""
        if word.startswith("@"):
            yield from self._resources(word)
            yield from self._paths(word[1:])

    def _resources(self, word: str):
        """`@server:uri` of the MCP servers' resources (a uri a mention could not hold is left out)."""
        from agent.tools.mcp_offers import completions

        for mention, name in completions(self.app.state, word)[:MAX_PATH_COMPLETIONS]:
            if mention.isprintable() and not any(c.isspace() for c in mention):
                yield Completion(mention, -len(word), display_meta=plain(name[:80]))

    def _paths(self, prefix: str):
        root = self.app.state.workspace
        folder, _, stem = prefix.rpartition("/")
        base = root / folder if folder else root
        try:
            entries = sorted(base.iterdir())
        except OSError:
            return
        shown = 0
        for entry in entries:
            if not entry.name.startswith(stem) or entry.name.startswith(".git"):
                continue
            rel = entry.relative_to(root).as_posix() + ("/" if entry.is_dir() else "")
            yield Completion("@" + rel, -len(prefix) - 1)
            shown += 1
            if shown >= MAX_PATH_COMPLETIONS:
                return


class App(CommandHost):
    """The REPL. Its renderer is `state.emit`, the channel's UI end: events are drawn there and
    requests (approvals, the commands' questions) answered with `read_answer`. As a CommandHost it
    talks to that channel like any command does."""

    def __init__(self, state: AppState, on_submit: OnSubmit, console: Console | None = None) -> None:
        super().__init__(state)
        self.on_submit = on_submit
        self.console = console or Console(highlight=False)
        self.renderer = Renderer(self.console, state.lang, read_answer=self.read_answer, state=state)
        state.emit = self.renderer
        self.session: PromptSession | None = None
        self._watch: EscapeWatch | None = None  # while a turn runs: Esc, and the keys typed meanwhile

    async def prompt(self, text: str, typed: str | None = None) -> None:
        await self.on_submit(self, text, typed, True)

    # --- questions asked while a turn runs -------------------------------------------------

    async def read_answer(self, question: str, fresh_keys: bool = False, edit: str | None = None) -> str:
        """One answer typed at `question`. With `fresh_keys`, keys typed before the question is drawn
        do not count: the model asks while the user may still be typing at what came before."""
        self.renderer.stop_spinner()
        watch = self._watch
        if watch is not None:  # the question's prompt reads the keys now
            watch.pause()
            typed = watch.take()
            if not fresh_keys:
                typeahead(typed, self.session.app.input if self.session else None)
        try:
            return await self._read_answer(question, fresh_keys, edit)
        finally:
            if watch is not None:
                watch.resume()

    async def _read_answer(self, question: str, fresh_keys: bool, edit: str | None) -> str:
        # A text to edit: Enter breaks the line, Esc then Enter (or Alt+Enter) gives it back.
        session: PromptSession = PromptSession(multiline=edit is not None)
        # pre_run runs just before the first frame is drawn (and before the cursor-position request,
        # whose answer a later flush could swallow); keys are read only after that frame.
        pre_run = (lambda: clear_typeahead(session.app.input)) if fresh_keys else None
        try:
            # handle_sigint=False: prompt-toolkit would otherwise take over SIGINT and, on leaving,
            # remove the handler that lets Ctrl-C cancel the rest of the turn.
            answer = await session.prompt_async(question, handle_sigint=False, pre_run=pre_run, default=edit or "")
            return answer.strip() if edit is not None else answer.strip().lower()
        except (KeyboardInterrupt, EOFError):
            # Ctrl-C at a question cancels the whole turn, the same as Ctrl-C anywhere else in it.
            raise asyncio.CancelledError() from None

    # --- the prompt ------------------------------------------------------------------------

    def toolbar(self) -> str:
        from ui.gauge import gauge_text, read_gauge

        state = self.state
        try:
            text = gauge_text(read_gauge(state, measure=False))
        except Exception:  # noqa: BLE001 - the toolbar must never crash the prompt
            text = "?"
        assumed = "" if state.config.window_known else "?"
        folder = _short_path(state.workspace)
        # "~": the server reports no usage (Ollama), so the figure is our own estimate.
        approx = "~" if state.stats.usage_missing else ""
        gauge = t("toolbar_context", self.lang, gauge=approx + text)
        from agent.tools.permissions import mode

        # Plain text, not HTML: a control character in the folder's name made HTML() raise at every
        # prompt; escaped, it is shown rather than sent to the terminal.
        shown = t(f"mode_{mode(state)}", self.lang)
        # The folder last: a long path is what the terminal's width cuts, never the gauge or the mode.
        return plain(f" {state.config.model} · {shown} (shift+tab) · {gauge}{assumed} · {folder} ")

    def _prompt_session(self) -> PromptSession:
        bindings = KeyBindings()

        @bindings.add("escape", "enter")
        def _newline(event) -> None:  # Alt+Enter / Esc Enter: a newline instead of submitting
            event.current_buffer.insert_text("\n")

        @bindings.add("enter", filter=Condition(lambda: _continues(self.session)))
        def _continue_line(event) -> None:  # `\` + Enter: the line goes on (Claude Code's habit)
            event.current_buffer.delete_before_cursor(1)
            event.current_buffer.insert_text("\n")

        @bindings.add("s-tab")
        def _next_mode(event) -> None:  # Shift+Tab: the next permission mode, shown in the toolbar
            self.state.permissions.next_mode(self.state)
            event.app.invalidate()

        history_file = data_home() / "input_history"
        history: History
        try:
            history_file.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            history_file.touch(mode=0o600, exist_ok=True)
            history = FileHistory(str(history_file))
        except OSError:  # the sessions are saved; losing the ↑ history is no reason to stop
            history = InMemoryHistory()
        return PromptSession(
            history=history,
            completer=AgentCompleter(self),
            complete_while_typing=False,
            key_bindings=bindings,
            bottom_toolbar=self.toolbar,
        )

    async def run(self, on_first_paint: Callable[[], None] | None = None) -> None:
        self.session = self._prompt_session()
        if on_first_paint is not None:

            def first_paint(_app: object) -> None:
                self.session.app.after_render -= first_paint
                on_first_paint()
                # The gauge has its figure once the warm-up has measured the prefix: redraw it then.
                ready = self.state.scratch.ready
                if ready is not None:
                    ready.add_done_callback(lambda _f: self.session.app.invalidate())

            self.session.app.after_render += first_paint
        while self.running:
            try:
                text = await self.session.prompt_async("> ")
            except KeyboardInterrupt:
                continue  # Ctrl-C at the prompt clears the line
            except EOFError:
                break  # Ctrl-D exits
            if text.strip():
                await self.submit(text.strip())

    async def submit(self, text: str) -> None:
        """Run one input as a task that Ctrl-C cancels; the history stays valid either way."""
        from ui.commands import slash_command

        loop = asyncio.get_running_loop()
        if slash_command(text, self.is_command) is None:
            self.renderer.wait()  # from Enter on: the warm-up, a compaction check, the request
        task = loop.create_task(self.on_submit(self, text))
        loop.add_signal_handler(signal.SIGINT, task.cancel)
        ticker = loop.create_task(self._tick())
        try:
            # Esc stops the turn as Ctrl-C does; other keys typed meanwhile wait for the next prompt.
            with EscapeWatch(task.cancel) as self._watch:
                await task
        except asyncio.CancelledError:
            self.renderer.end_answer()
            self.say(t("interrupted", self.lang), "warn")
        finally:
            ticker.cancel()
            loop.remove_signal_handler(signal.SIGINT)
            self.renderer.end_answer()
            watch, self._watch = self._watch, None
            if watch is not None:
                typeahead(watch.take(), self.session.app.input if self.session else None)

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(0.5)
            self.renderer.tick()


def _continues(session: PromptSession | None) -> bool:
    """Enter after a `\\` at the end of the line continues it on the next one instead of sending."""
    return session is not None and session.default_buffer.document.text_before_cursor.endswith("\\")


# A folder longer than this is shown by its last name: the toolbar is one line of the terminal.
MAX_FOLDER_CHARS = 32


def _short_path(path: Path) -> str:
    home = Path.home()
    try:
        shown = "~/" + path.relative_to(home).as_posix()
    except ValueError:
        shown = str(path)
    return shown if len(shown) <= MAX_FOLDER_CHARS else "…/" + path.name
