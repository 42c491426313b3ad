"""-p mode's end of the channel: the answer to stdout, what is said about it to stderr (so scripts
can pipe the answer), and no one to answer a request."""

from __future__ import annotations

import sys

from agent.events import (
    ApprovalRequest,
    CompactionFailed,
    CompactionFinished,
    Notice,
    Retrying,
    TextDelta,
    ToolCallStarted,
)
from agent.text.i18n import t
from ui.approval import plain
from ui.dispatch import Dispatcher, Reply
from ui.render import compaction_done, dropped_text, retry_text
from ui.tool_line import MAIN_ARG


class PrintRenderer(Dispatcher):
    def __init__(self, lang: str) -> None:
        self.lang = lang
        # On a terminal the answer's escapes are shown, never obeyed; into a pipe it goes as sent.
        self.escape = sys.stdout.isatty()
        self.errors: list[str] = []  # error notices: the exit status says the turn failed
        self.declined: list[str] = []  # what was not run for want of approval: exit status 3

    def close(self) -> None:
        """The run is over: what the view still holds goes out (stream-json's early events)."""

    def on_text(self, event: TextDelta) -> None:
        sys.stdout.write(plain(event.text) if self.escape else event.text)
        sys.stdout.flush()

    def on_notice(self, event: Notice) -> None:
        # Notices quote the endpoint and the model: shown as escapes, never obeyed by the terminal.
        print(plain(event.text), file=sys.stderr)
        if event.level == "error":
            self.errors.append(event.text)

    def finish(self) -> int:
        """The turn is over: end the answer's line, say how it went (the exit status)."""
        sys.stdout.write("\n")
        return exit_code(self)

    def on_tool_call(self, event: ToolCallStarted) -> None:
        # On stderr, so that stdout is only the answer (`coding-agent -p ... > answer.md`).
        print(tool_line(event), file=sys.stderr)

    def on_compaction_failed(self, event: CompactionFailed) -> None:
        print(t("auto_compact_failed", self.lang, reason=plain(event.reason)), file=sys.stderr)

    def on_compaction_finished(self, event: CompactionFinished) -> None:
        print(plain(compaction_done(event, self.lang)), file=sys.stderr)
        print(plain(dropped_text(event.dropped, self.lang)), file=sys.stderr)

    def on_retrying(self, event: Retrying) -> None:
        print(retry_text(event, self.lang), file=sys.stderr)

    def on_approval(self, event: ApprovalRequest) -> Reply:
        # No one to ask in one-shot mode: say so, instead of letting the model quietly get a "no".
        key = {
            "write": "print_declined_write",
            "fetch": "print_declined_fetch",
            "outside": "print_declined_outside",
        }.get(event.kind, "print_declined")
        self.declined.append(event.subject)
        line = t(key, self.lang, command=plain(event.subject), why=plain(event.why))
        print(f"{plain(event.origin)}: {line}" if event.origin else line, file=sys.stderr)
        return None  # unanswered: agent.events.ask makes it "n"


def tool_line(event: ToolCallStarted) -> str:
    """The REPL's one line for a tool call, as plain text: the tool and its main argument."""
    arg = str(event.args.get(MAIN_ARG.get(event.tool_name, ""), "")).replace("\n", " ")
    arg = arg if len(arg) <= 100 else arg[:97] + "..."
    return plain(f"⏺ {event.tool_name} {arg}".rstrip())


def exit_code(view: PrintRenderer) -> int:
    """0 done, 1 the turn failed, 3 it finished but something was declined for want of approval
    (2, bad arguments, is main's)."""
    if view.errors:
        return 1
    return 3 if view.declined else 0
