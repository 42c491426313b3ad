"""Draw the loop's events in the terminal with rich."""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING

from rich.console import Console
from rich.text import Text

from agent.events import (
    CommandRunning,
    CompactionFailed,
    CompactionFinished,
    CompactionStarted,
    Event,
    Notice,
    Retrying,
    TextDelta,
    ThinkingDelta,
    ToolCallStarted,
    ToolResult,
    UsageUpdate,
    WaitingForModel,
)
from agent.i18n import t
from ui.approval import plain

if TYPE_CHECKING:
    from rich.status import Status

    from ui.stream import MarkdownStream

# The argument that best names what a tool call does, shown on its one line.
MAIN_ARG = {"read_file": "path", "write_file": "path", "edit_file": "path", "list_files": "pattern",
            "grep": "pattern", "run_command": "command"}
DIFF_MAX_LINES = 60
COMMAND_TAIL_LINES = 5  # a command's last lines shown; the model gets the whole output
COMMAND_LINE_MAX = 200
# Escape sequences and control characters a command may print: shown, they would move the cursor.
_CONTROL = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b.?|[\x00-\x08\x0b-\x1f\x7f]")


def _printable(line: str) -> str:
    """What a terminal would leave of the line (after its last carriage return), without controls."""
    return _CONTROL.sub("", line.rsplit("\r", 1)[-1].replace("\t", "    "))



def compaction_done(event: CompactionFinished, lang: str) -> str:
    """The line a finished compaction gets, in the REPL and in -p mode."""
    key = "compact_cheap_done" if event.tier == "cheap" else "compact_done"
    return t(key, lang, before=event.tokens_before, after=event.tokens_after, archive=event.archive_path)

def retry_text(event: Retrying, lang: str) -> str:
    """What a retry waits for, in the REPL's spinner and on -p's stderr."""
    why = t("retry_status", lang, status=event.status) if event.status else t("retry_network", lang)
    return t("spin_retry", lang, why=why, attempt=event.attempt, attempts=event.attempts, wait=f"{event.wait:.0f}")


class Renderer:
    """An Emit: call it with events. Holds the live answer and the waiting spinner."""

    def __init__(self, console: Console, lang: str) -> None:
        self.console = console
        self.lang = lang
        self._stream: MarkdownStream | None = None
        self._thinking = ""
        self._status: Status | None = None
        self._status_started = 0.0
        self._status_label = ""

    # --- spinner ---------------------------------------------------------------------------

    def wait(self, label: str = "") -> None:
        """A spinner with elapsed time until the first event arrives."""
        self.stop_spinner()
        self._status_label = label or t("spin_model", self.lang)
        self._status_started = time.monotonic()
        # Text, not markup: a label may hold a command or a path with brackets in it.
        self._status = self.console.status(Text(self._status_label), spinner="dots")
        self._status.start()

    def _keep_waiting(self, label: str) -> None:
        """The spinner with this label, keeping its elapsed time if it already shows it."""
        if self._stream is None and (self._status is None or self._status_label != label):
            self.wait(label)

    def tick(self) -> None:
        if self._status is not None:
            elapsed = time.monotonic() - self._status_started
            extra = t("spin_reasoning", self.lang, n=len(self._thinking)) if self._thinking else ""
            self._status.update(Text(f"{self._status_label}… {elapsed:.0f}s{extra}"))

    def stop_spinner(self) -> None:
        if self._status is not None:
            self._status.stop()
            self._status = None

    # --- events ----------------------------------------------------------------------------

    def __call__(self, event: Event) -> None:
        if isinstance(event, TextDelta):
            self._on_text(event.text)
        elif isinstance(event, ThinkingDelta):
            self._thinking += event.text
            self.tick()
        elif isinstance(event, ToolCallStarted):
            self.end_answer()
            self._on_tool_call(event)
        elif isinstance(event, ToolResult):
            self._on_tool_result(event)
        elif isinstance(event, UsageUpdate):
            pass  # the toolbar reads state; nothing to print
        elif isinstance(event, WaitingForModel):
            self._keep_waiting(t("spin_model", self.lang))
        elif isinstance(event, CommandRunning):
            self.end_answer()
            command = " ".join(event.command.split())
            command = command if len(command) <= 80 else command[:79] + "…"
            self.wait(t("spin_command", self.lang, command=command))
        elif isinstance(event, Retrying):
            self.end_answer()
            self.wait(retry_text(event, self.lang))
        elif isinstance(event, CompactionStarted):
            self.end_answer()
            label = "压缩上下文" if self.lang == "zh" else "Compacting the conversation"
            self.wait(label)
        elif isinstance(event, CompactionFinished):
            self.stop_spinner()
            self.console.print(Text(compaction_done(event, self.lang), style="green"))
            if event.summary:
                self._preview("摘要" if self.lang == "zh" else "Summary", event.summary, 120)
            if event.left_out_messages:
                self.console.print(Text(t("compact_left_out", self.lang, n=event.left_out_messages), style="yellow"))
        elif isinstance(event, CompactionFailed):
            self.stop_spinner()
            self.console.print(Text(t("auto_compact_failed", self.lang, reason=event.reason), style="yellow"))
        elif isinstance(event, Notice):
            self.end_answer()
            style = {"error": "bold red", "warn": "yellow"}.get(event.level, "cyan")
            self.console.print(Text(plain(event.text), style=style))

    def _flush_thinking(self) -> None:
        if self._thinking:
            self._preview("推理" if self.lang == "zh" else "Reasoning", self._thinking, 100)
            self._thinking = ""

    def _preview(self, label: str, text: str, width: int) -> None:
        """A long text shown collapsed: its size and its start, dimmed."""
        first = plain(" ".join(text.split())[:width])
        self.console.print(Text(t("preview", self.lang, label=label, n=len(text), first=first), style="dim italic"))

    def _on_text(self, delta: str) -> None:
        if self._stream is None:
            from ui.stream import MarkdownStream

            self.stop_spinner()
            self._flush_thinking()
            self._stream = MarkdownStream(self.console)
        # The model's text may carry escape sequences: shown as escapes, never sent to the terminal.
        self._stream.feed(plain(delta))

    def end_answer(self) -> None:
        """Close the streamed answer (before tools, notices, or at the end of the turn)."""
        self.stop_spinner()
        self._flush_thinking()
        if self._stream is not None:
            self._stream.close()
            self._stream = None

    def _on_tool_call(self, event: ToolCallStarted) -> None:
        key = MAIN_ARG.get(event.tool_name)
        # One line: the approval question shows a command whole, this line only names it.
        arg = plain(str(event.args.get(key, ""))).replace("\n", "↵") if key else ""
        if len(arg) > 100:
            arg = arg[:97] + "..."
        line = Text("⏺ ", style="cyan")
        line.append(event.tool_name, style="bold")
        if arg:
            line.append(f" {arg}")
        self.console.print(line)
        self.wait(event.tool_name)

    def _on_tool_result(self, event: ToolResult) -> None:
        self.stop_spinner()
        if event.is_error:
            first = event.content.strip().splitlines()[0] if event.content.strip() else "error"
            self.console.print(Text(f"  ⎿ {plain(first[:200])}", style="red"))
        elif event.tool_name == "run_command":
            self._command_output(event.content)
        else:
            lines = event.content.count("\n") + 1 if event.content else 0
            self.console.print(Text(f"  ⎿ {t('tool_size', self.lang, lines=lines, chars=len(event.content))}",
                                    style="dim"))
        if event.diff:
            from rich.syntax import Syntax

            diff_lines = event.diff.splitlines()
            shown = plain("\n".join(diff_lines[:DIFF_MAX_LINES]))
            if len(diff_lines) > DIFF_MAX_LINES:
                shown += f"\n… {len(diff_lines) - DIFF_MAX_LINES} more lines"
            self.console.print(Syntax(shown, "diff", theme="ansi_dark", background_color="default"))
        self.wait()

    def _ending(self, line: str) -> str:
        """agent.shell's last line ("[exit code: 1]", "[killed: timed out after 5 seconds]") for the user."""
        if code := re.fullmatch(r"\[exit code: (-?\d+)\]", line.strip()):
            return t("exit_code", self.lang, code=code.group(1))
        if killed := re.fullmatch(r"\[killed: timed out after (\S+) seconds\]", line.strip()):
            return t("timed_out", self.lang, seconds=killed.group(1))
        return _printable(line)

    def _command_output(self, content: str) -> None:
        """A command's last lines, dimmed, and how it ended (the whole output went to the model)."""
        *output, ending = content.rstrip("\n").split("\n") or [""]
        lines = [_printable(line)[:COMMAND_LINE_MAX] for line in output]
        shown = lines[-COMMAND_TAIL_LINES:]
        if len(lines) > len(shown):
            shown.insert(0, t("lines_above", self.lang, n=len(lines) - len(shown)))
        failed = ending.strip() not in ("[exit code: 0]", "")
        for n, line in enumerate([*shown, self._ending(ending)]):
            style = "yellow" if failed and n == len(shown) else "dim"
            self.console.print(Text(("  ⎿ " if n == 0 else "    ") + line, style=style))
