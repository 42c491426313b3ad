"""Draw the loop's events in the terminal with rich."""

from __future__ import annotations

import re
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from rich.console import Console
from rich.text import Text

from agent.events import (
    ApprovalRequest,
    CommandRunning,
    CompactionFailed,
    CompactionFinished,
    CompactionStarted,
    Listing,
    Notice,
    Question,
    ReportRequested,
    Retrying,
    TextDelta,
    ThinkingDelta,
    TodosChanged,
    ToolCallStarted,
    ToolProgress,
    ToolResult,
    TrustRequest,
    WaitingForModel,
)
from agent.marks import ERROR_PREFIX
from agent.text.i18n import t
from agent.tools.reading import read_span
from ui.approval import command_view, grants_view, plain
from ui.dispatch import Dispatcher
from ui.tool_line import tool_line

if TYPE_CHECKING:
    from rich.status import Status

    from agent.state.app import AppState
    from ui.stream import MarkdownStream

DIFF_MAX_LINES = 60
COMMAND_TAIL_LINES = 5  # a command's last lines shown; the model gets the whole output
COMMAND_LINE_MAX = 200
# A yes/no question asks again this often when the answer is neither, then takes it as "no".
REASKS = 3
PROGRESS_MESSAGE_CHARS = 60  # of a server's progress message, on the spinner's line
NOTICE_STYLES = {"error": "bold red", "warn": "yellow", "info": "cyan", "dim": "dim", "plain": ""}
# The REPL's prompt for one answer: (question, fresh_keys, edit) -> the answer typed, stripped and
# lower-case. With fresh_keys, keys typed before the question was drawn do not count; with a text to
# edit, the field is multi-line, starts with that text and gives back what the user left, as it is.
ReadAnswer = Callable[[str, bool, str | None], Awaitable[str]]
# Escape sequences and control characters a command may print: shown, they would move the cursor.
_CONTROL = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b.?|[\x00-\x08\x0b-\x1f\x7f]")


def _printable(line: str) -> str:
    """What a terminal would leave of the line (after its last carriage return), without controls."""
    return _CONTROL.sub("", line.rsplit("\r", 1)[-1].replace("\t", "    "))


def error_line(first: str, lang: str) -> str:
    """A tool's failure as the user reads it: the model's English line (agent.tools.answers) in the
    user's language where agent.text.i18n_tools has its wording, else "Error:" in it and the detail as is."""
    from agent.text.i18n_tools import match_error

    if not first.startswith(ERROR_PREFIX):
        return first
    detail = first[len(ERROR_PREFIX) :]
    found = match_error(detail)
    return t("tool_error", lang, text=t(found[0], lang, **found[1]) if found else detail)


def compaction_done(event: CompactionFinished, lang: str) -> str:
    """The line a finished compaction gets, in the REPL and in -p mode."""
    key = "compact_cheap_done" if event.tier == "cheap" else "compact_done"
    return t(key, lang, before=event.tokens_before, after=event.tokens_after, archive=event.archive_path)


def dropped_text(report: dict, lang: str, named: int | None = 3) -> str:
    """What a compaction dropped, one line (agent.compaction.rebuild.dropped's figures); `named`: how
    many tools and files it names (None: all, as /compact show)."""

    def listed(items: list[str]) -> str:
        shown = items if named is None else items[:named]
        more = [t("dropped_more", lang, n=len(items) - len(shown))] if len(items) > len(shown) else []
        return t("dropped_tools_sep", lang).join([*shown, *more])

    parts = []
    if tools := report.get("tool_results"):
        names = [f"{name} {n}" for name, n in tools.items()]
        total, tokens = sum(tools.values()), report.get("tool_result_tokens", 0)
        parts.append(t("dropped_tools", lang, n=total, tools=listed(names), tokens=tokens))
    if files := report.get("files_not_restored"):
        parts.append(t("dropped_files", lang, n=len(files), files=listed(list(files))))
    if users := report.get("user_messages_archived"):
        parts.append(t("dropped_users", lang, n=users))
    if not parts:
        return t("dropped_nothing", lang)
    return t("dropped_line", lang, parts=t("dropped_parts_sep", lang).join(parts))


def retry_text(event: Retrying, lang: str) -> str:
    """What a retry waits for, in the REPL's spinner and on -p's stderr."""
    why = t("retry_status", lang, status=event.status) if event.status else t("retry_network", lang)
    return t("spin_retry", lang, why=why, attempt=event.attempt, attempts=event.attempts, wait=f"{event.wait:.0f}")


def progress_text(event: ToolProgress) -> str:
    """ "3/4 step three": a tool's progress, its message (the server's text) on one line, escaped and cut."""

    def number(value: float) -> str:
        return f"{value:g}" if abs(value) < 1e15 else f"{value:.3g}"

    figure = number(event.progress or 0) + (f"/{number(event.total)}" if event.total else "")
    message = " ".join(plain(event.message).split())
    return f"{figure} {message[:PROGRESS_MESSAGE_CHARS]}".rstrip()


class Renderer(Dispatcher):
    """The REPL's end of the channel: draws events with rich, holds the live answer and the waiting
    spinner, and answers requests with `read_answer` (ui.app's prompt; without it, requests get "n").
    `state` is what /status and /context draw."""

    def __init__(
        self, console: Console, lang: str, *, read_answer: ReadAnswer | None = None, state: AppState | None = None
    ) -> None:
        self.console = console
        self.lang = lang
        self.read_answer = read_answer
        self.state = state
        self._stream: MarkdownStream | None = None
        self._thinking = ""
        self._status: Status | None = None
        self._status_started = 0.0
        self._status_label = ""
        self._status_detail = ""  # a running tool's progress, as its server reports it

    # --- spinner ---------------------------------------------------------------------------

    def wait(self, label: str = "") -> None:
        """A spinner with elapsed time until the first event arrives."""
        self.stop_spinner()
        # A label may quote the model (a command, a tool name): its escapes are shown, not obeyed.
        self._status_label = plain(label) if label else t("spin_model", self.lang)
        self._status_detail = ""
        self._status_started = time.monotonic()
        # Text, not markup: a label may hold a command or a path with brackets in it.
        self._status = self.console.status(Text(self._status_label), spinner="dots")
        self._status.start()

    def _keep_waiting(self, label: str) -> None:
        """The spinner with this label, keeping its elapsed time if it already shows it."""
        if self._stream is None and (self._status is None or self._status_label != plain(label)):
            self.wait(label)

    def tick(self) -> None:
        if self._status is not None:
            elapsed = time.monotonic() - self._status_started
            extra = t("spin_reasoning", self.lang, n=len(self._thinking)) if self._thinking else ""
            detail = f"{self._status_detail} · " if self._status_detail else ""
            self._status.update(Text(f"{self._status_label}… {detail}{elapsed:.0f}s{extra}"))

    def stop_spinner(self) -> None:
        if self._status is not None:
            self._status.stop()
            self._status = None

    # --- events (ui.dispatch picks the method) ---------------------------------------------

    def on_text(self, event: TextDelta) -> None:
        if self._stream is None:
            from ui.stream import MarkdownStream

            self.stop_spinner()
            self._flush_thinking()
            self._stream = MarkdownStream(self.console)
        # The model's text may carry escape sequences: shown as escapes, never sent to the terminal.
        self._stream.feed(plain(event.text))

    def on_thinking(self, event: ThinkingDelta) -> None:
        self._thinking += event.text
        self.tick()

    def on_waiting(self, event: WaitingForModel) -> None:
        self._keep_waiting(event.label or t("spin_model", self.lang))

    def on_command_running(self, event: CommandRunning) -> None:
        self.end_answer()
        command = " ".join(event.command.split())
        command = command if len(command) <= 80 else command[:79] + "…"
        self.wait(t("spin_command", self.lang, command=command))

    def on_tool_progress(self, event: ToolProgress) -> None:
        """The spinner names the tool that runs (not the model) and shows how far it got."""
        self._keep_waiting(t("spin_command", self.lang, command=event.tool_name))
        if event.progress is not None:
            self._status_detail = progress_text(event)
            self.tick()

    def on_retrying(self, event: Retrying) -> None:
        self.end_answer()
        self.wait(retry_text(event, self.lang))

    def on_compaction_started(self, event: CompactionStarted) -> None:
        self.end_answer()
        self.wait(t("spin_compacting", self.lang))

    def on_compaction_finished(self, event: CompactionFinished) -> None:
        self.stop_spinner()
        self.console.print(Text(plain(compaction_done(event, self.lang)), style="green"))
        self.console.print(Text(plain(dropped_text(event.dropped, self.lang)), style="dim"))
        if event.summary:
            self._preview(t("preview_summary", self.lang), event.summary, 120)
        if event.left_out_messages:
            self.console.print(Text(t("compact_left_out", self.lang, n=event.left_out_messages), style="yellow"))

    def on_compaction_failed(self, event: CompactionFailed) -> None:
        self.stop_spinner()
        # The reason quotes the endpoint's error body.
        self.console.print(Text(t("auto_compact_failed", self.lang, reason=plain(event.reason)), style="yellow"))

    def on_notice(self, event: Notice) -> None:
        self.end_answer()
        # Errors quote what an endpoint sent: its escape sequences are shown, never obeyed.
        self.console.print(Text(plain(event.text), style=NOTICE_STYLES.get(event.level, "cyan")))

    def on_listing(self, event: Listing) -> None:
        self.end_answer()
        for n, line in enumerate(event.lines):
            strong = event.strong[n] if n < len(event.strong) and line.startswith(event.strong[n]) else ""
            shown = Text("  ")
            shown.append(plain(strong), style="bold")
            shown.append(plain(line[len(strong) :]))
            self.console.print(shown)

    def on_report(self, event: ReportRequested) -> None:
        if self.state is None:
            return
        self.end_answer()
        from ui.context_view import render
        from ui.resumed_view import resumed_lines
        from ui.status import status_lines

        view = {"status": status_lines, "context": render, "resumed": resumed_lines}[event.view]
        for line in view(self.state):
            self.console.print(line)

    def on_todos(self, event: TodosChanged) -> None:
        from ui.todo_view import todo_lines

        self.end_answer()
        for line in todo_lines(event.items, self.lang):
            self.console.print(line)

    def on_approval(self, event: ApprovalRequest) -> Awaitable[str] | None:
        return None if self.read_answer is None else self._approve(event, self.read_answer)

    def on_question(self, event: Question) -> Awaitable[str] | None:
        return None if self.read_answer is None else self._question(event, self.read_answer)

    async def _approve(self, event: ApprovalRequest, read_answer: ReadAnswer) -> str:
        """The whole command (or the path and why) drawn escaped, then one answer typed after it."""
        self.end_answer()
        if event.kind == "write":
            header = t("approve_write", self.lang, why=event.why)
        elif event.kind == "fetch":
            header = t("approve_fetch", self.lang, domain=plain(event.why))
        elif event.kind == "outside":
            header = t("approve_outside", self.lang, why=plain(event.why))
        else:
            header = t({"tool": "approve_tool", "read": "approve_read"}.get(event.kind, "approve_run"), self.lang)
        if event.origin:  # a sub-agent's question (agent.tools.subagent)
            header = t("approve_origin", self.lang, origin=plain(event.origin), header=header)
        view, lines = command_view(event.subject, self.lang, header)
        self.console.print(view)
        if event.detail:  # what a write would change, escaped like a command
            change, more = command_view(
                event.detail.rstrip("\n"), self.lang, t("approve_change", self.lang), event.whole
            )
            self.console.print(change)
            lines += more
        answer = await read_answer(t("approve_question", self.lang, n=lines), True, None)
        self.wait()
        return {"y": "y", "yes": "y", "a": "always", "always": "always", "p": "project", "project": "project"}.get(
            answer, "n"
        )

    def on_trust(self, event: TrustRequest) -> Awaitable[str] | None:
        return None if self.read_answer is None else self._trust(event, self.read_answer)

    async def _trust(self, event: TrustRequest, read_answer: ReadAnswer) -> str:
        """Every grant drawn escaped as a command is, then a yes/no that keys typed before it cannot answer."""
        self.end_answer()
        view = grants_view(event.lines, self.lang, t("trust_intro", self.lang, path=plain(event.folder)))
        self.console.print(view)
        return await self._yes_no(t("trust_question", self.lang), read_answer, fresh=True)

    async def _question(self, event: Question, read_answer: ReadAnswer) -> str:
        self.stop_spinner()
        text = plain(event.text)  # a question may quote an MCP server's words
        if event.edit is not None:
            self.console.print(Text(text, style="cyan"))
            return await read_answer(t("edit_field_keys", self.lang), False, event.edit)
        if not event.yes_no:
            return await read_answer(text, False, None)
        return await self._yes_no(text, read_answer, fresh=False)

    async def _yes_no(self, text: str, read_answer: ReadAnswer, fresh: bool) -> str:
        # Another line (a command typed by habit: /context) is not a "no": say so and ask again.
        for _ in range(REASKS):
            answer = (await read_answer(text + " [y/N] ", fresh, None)).strip().lower()
            if answer in ("y", "yes", "是"):
                return "y"
            if answer in ("", "n", "no", "否"):
                return "n"
            self.console.print(Text(t("answer_y_or_n", self.lang, answer=plain(answer[:40])), style="yellow"))
        self.console.print(Text(t("answer_taken_as_no", self.lang), style="yellow"))
        return "n"

    def _flush_thinking(self) -> None:
        if self._thinking:
            self._preview(t("preview_reasoning", self.lang), self._thinking, 100)
            self._thinking = ""

    def _preview(self, label: str, text: str, width: int) -> None:
        """A long text shown collapsed: its size and its start, dimmed."""
        first = plain(" ".join(text.split())[:width])
        self.console.print(Text(t("preview", self.lang, label=label, n=len(text), first=first), style="dim italic"))

    def end_answer(self) -> None:
        """Close the streamed answer (before tools, notices, or at the end of the turn)."""
        self.stop_spinner()
        self._flush_thinking()
        if self._stream is not None:
            self._stream.close()
            self._stream = None

    def on_tool_call(self, event: ToolCallStarted) -> None:
        self.end_answer()
        self.console.print(tool_line(event.tool_name, event.args))
        self.wait(event.tool_name)

    def on_tool_result(self, event: ToolResult) -> None:
        self.stop_spinner()
        if event.is_error:
            first = event.content.strip().splitlines()[0] if event.content.strip() else t("tool_failed", self.lang)
            self.console.print(Text(f"  ⎿ {plain(error_line(first, self.lang)[:200])}", style="red"))
        elif event.tool_name == "run_command":
            self._command_output(event.content)
        else:
            self.console.print(Text(f"  ⎿ {self._size(event)}", style="dim"))
        if event.diff:
            from rich.syntax import Syntax

            diff_lines = event.diff.splitlines()
            shown = plain("\n".join(diff_lines[:DIFF_MAX_LINES]))
            if len(diff_lines) > DIFF_MAX_LINES:
                shown += "\n" + t("diff_more_lines", self.lang, n=len(diff_lines) - DIFF_MAX_LINES)
            self.console.print(Syntax(shown, "diff", theme="ansi_dark", background_color="default"))
        self.wait()

    def _size(self, event: ToolResult) -> str:
        """How much the tool answered; for a read that is a part of its file, which part (the model is told
        where to go on, the user sees that it did not get the whole file)."""
        if event.tool_name == "read_file" and (span := read_span(event.content)) is not None:
            first, last, total = span
            return t("tool_read_part", self.lang, first=first, last=last, total=total)
        lines = event.content.count("\n") + 1 if event.content else 0
        return t("tool_size", self.lang, lines=lines, chars=len(event.content))

    def _ending(self, line: str) -> str:
        """agent.tools.shell's last line ("[exit code: 1]", "[killed: timed out after 5 seconds]") for the user."""
        if code := re.fullmatch(r"\[exit code: (-?\d+)\]", line.strip()):
            return t("exit_code", self.lang, code=code.group(1))
        if killed := re.fullmatch(r"\[killed: timed out after (\S+) seconds\]", line.strip()):
            return t("timed_out", self.lang, seconds=killed.group(1))
        return plain(_printable(line))

    def _command_output(self, content: str) -> None:
        """A command's last lines, dimmed, and how it ended (the whole output went to the model)."""
        *output, ending = content.rstrip("\n").split("\n") or [""]
        lines = [plain(_printable(line))[:COMMAND_LINE_MAX] for line in output]
        shown = lines[-COMMAND_TAIL_LINES:]
        if len(lines) > len(shown):
            shown.insert(0, t("lines_above", self.lang, n=len(lines) - len(shown)))
        failed = ending.strip() not in ("[exit code: 0]", "")
        for n, line in enumerate([*shown, self._ending(ending)]):
            style = "yellow" if failed and n == len(shown) else "dim"
            self.console.print(Text(("  ⎿ " if n == 0 else "    ") + line, style=style))
