"""Draw the loop's events in the terminal with rich."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from rich.console import Console
from rich.text import Text

from agent.events import (
    CompactionFailed,
    CompactionFinished,
    CompactionStarted,
    Event,
    Notice,
    TextDelta,
    ThinkingDelta,
    ToolCallStarted,
    ToolResult,
    UsageUpdate,
)
from agent.i18n import t
from ui.approval import plain

if TYPE_CHECKING:
    from rich.live import Live
    from rich.status import Status

# The argument that best names what a tool call does, shown on its one line.
MAIN_ARG = {"read_file": "path", "write_file": "path", "edit_file": "path", "list_files": "pattern",
            "grep": "pattern", "run_command": "command"}
DIFF_MAX_LINES = 60



def compaction_done(event: CompactionFinished, lang: str) -> str:
    """The line a finished compaction gets, in the REPL and in -p mode."""
    key = "compact_cheap_done" if event.tier == "cheap" else "compact_done"
    return t(key, lang, before=event.tokens_before, after=event.tokens_after, archive=event.archive_path)

class Renderer:
    """An Emit: call it with events. Holds the live answer and the waiting spinner."""

    def __init__(self, console: Console, lang: str) -> None:
        self.console = console
        self.lang = lang
        self._live: Live | None = None
        self._text = ""
        self._thinking = ""
        self._status: Status | None = None
        self._status_started = 0.0
        self._status_label = ""

    # --- spinner ---------------------------------------------------------------------------

    def wait(self, label: str = "") -> None:
        """A spinner with elapsed time until the first event arrives."""
        self.stop_spinner()
        self._status_label = label or ("思考中" if self.lang == "zh" else "Waiting for the model")
        self._status_started = time.monotonic()
        self._status = self.console.status(self._status_label, spinner="dots")
        self._status.start()

    def tick(self) -> None:
        if self._status is not None:
            elapsed = time.monotonic() - self._status_started
            extra = f" ({len(self._thinking):,} chars of reasoning)" if self._thinking else ""
            self._status.update(f"{self._status_label}… {elapsed:.0f}s{extra}")

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
        self.console.print(Text(f"▸ {label} ({len(text):,} chars): {first}…", style="dim italic"))

    def _on_text(self, delta: str) -> None:
        from rich.live import Live
        from rich.markdown import Markdown  # markdown-it is slow to import: not on the start-up path

        if self._live is None:
            self.stop_spinner()
            self._flush_thinking()
            self._text = ""
            self._live = Live(console=self.console, refresh_per_second=8, vertical_overflow="visible")
            self._live.start()
        self._text += delta
        # The model's text may carry escape sequences: shown as escapes, never sent to the terminal.
        self._live.update(Markdown(plain(self._text)))

    def end_answer(self) -> None:
        """Close the streamed answer (before tools, notices, or at the end of the turn)."""
        self.stop_spinner()
        self._flush_thinking()
        if self._live is not None:
            from rich.markdown import Markdown

            self._live.update(Markdown(plain(self._text)))
            self._live.stop()
            self._live = None
            self._text = ""

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
        else:
            lines = event.content.count("\n") + 1 if event.content else 0
            self.console.print(Text(f"  ⎿ {lines:,} lines, {len(event.content):,} chars", style="dim"))
        if event.diff:
            from rich.syntax import Syntax

            diff_lines = event.diff.splitlines()
            shown = plain("\n".join(diff_lines[:DIFF_MAX_LINES]))
            if len(diff_lines) > DIFF_MAX_LINES:
                shown += f"\n… {len(diff_lines) - DIFF_MAX_LINES} more lines"
            self.console.print(Syntax(shown, "diff", theme="ansi_dark", background_color="default"))
        self.wait()
