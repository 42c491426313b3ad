"""-p mode's end of the channel: the answer to stdout, what is said about it to stderr (so scripts
can pipe the answer), and no one to answer a request."""

from __future__ import annotations

import sys

from agent.events import ApprovalRequest, CompactionFailed, CompactionFinished, Notice, Retrying, TextDelta
from agent.text.i18n import t
from ui.approval import plain
from ui.dispatch import Dispatcher, Reply
from ui.render import compaction_done, retry_text


class PrintRenderer(Dispatcher):
    def __init__(self, lang: str) -> None:
        self.lang = lang
        self.errors: list[str] = []  # error notices: the exit status says the turn failed

    def on_text(self, event: TextDelta) -> None:
        sys.stdout.write(event.text)
        sys.stdout.flush()

    def on_notice(self, event: Notice) -> None:
        # Notices quote the endpoint and the model: shown as escapes, never obeyed by the terminal.
        print(plain(event.text), file=sys.stderr)
        if event.level == "error":
            self.errors.append(event.text)

    def on_compaction_failed(self, event: CompactionFailed) -> None:
        print(t("auto_compact_failed", self.lang, reason=event.reason), file=sys.stderr)

    def on_compaction_finished(self, event: CompactionFinished) -> None:
        print(compaction_done(event, self.lang), file=sys.stderr)

    def on_retrying(self, event: Retrying) -> None:
        print(retry_text(event, self.lang), file=sys.stderr)

    def on_approval(self, event: ApprovalRequest) -> Reply:
        # No one to ask in one-shot mode: say so, instead of letting the model quietly get a "no".
        key = "print_declined_write" if event.kind == "write" else "print_declined"
        print(t(key, self.lang, command=plain(event.subject), why=plain(event.why)), file=sys.stderr)
        return None  # unanswered: agent.events.ask makes it "n"
