"""The one dispatcher of the channel (agent.events): an event goes to the method named for its type.

The REPL's renderer (ui.render) and -p mode's (ui.print_view) are both Dispatchers; each overrides
what it shows. A method left as it is here shows nothing, and a request it gets is answered "n"
(agent.events.ask), so a UI that cannot ask never approves by accident.
"""

from __future__ import annotations

from collections.abc import Awaitable

from agent.events import (
    ApprovalRequest,
    CommandRunning,
    CompactionFailed,
    CompactionFinished,
    CompactionStarted,
    Event,
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
    UsageUpdate,
    WaitingForModel,
)

Reply = Awaitable[str] | None

# Every event type and its method: a type missing here is a test failure (tests/agent/test_channel.py).
METHODS: dict[type, str] = {
    TextDelta: "on_text",
    ThinkingDelta: "on_thinking",
    ToolCallStarted: "on_tool_call",
    ToolResult: "on_tool_result",
    UsageUpdate: "on_usage",
    WaitingForModel: "on_waiting",
    CommandRunning: "on_command_running",
    ToolProgress: "on_tool_progress",
    Retrying: "on_retrying",
    CompactionStarted: "on_compaction_started",
    CompactionFinished: "on_compaction_finished",
    CompactionFailed: "on_compaction_failed",
    Notice: "on_notice",
    Listing: "on_listing",
    ReportRequested: "on_report",
    TodosChanged: "on_todos",
    ApprovalRequest: "on_approval",
    Question: "on_question",
    TrustRequest: "on_trust",
}


class Dispatcher:
    """An Emit: call it with events; for a request it returns the awaitable answer (or None)."""

    def __call__(self, event: Event) -> Reply:
        # An event type this table does not know yet is not shown (tests/agent/test_channel.py says which).
        method = METHODS.get(type(event))
        return None if method is None else getattr(self, method)(event)

    def on_text(self, event: TextDelta) -> None: ...

    def on_thinking(self, event: ThinkingDelta) -> None: ...

    def on_tool_call(self, event: ToolCallStarted) -> None: ...

    def on_tool_result(self, event: ToolResult) -> None: ...

    def on_usage(self, event: UsageUpdate) -> None: ...

    def on_waiting(self, event: WaitingForModel) -> None: ...

    def on_command_running(self, event: CommandRunning) -> None: ...

    def on_tool_progress(self, event: ToolProgress) -> None: ...

    def on_retrying(self, event: Retrying) -> None: ...

    def on_compaction_started(self, event: CompactionStarted) -> None: ...

    def on_compaction_finished(self, event: CompactionFinished) -> None: ...

    def on_compaction_failed(self, event: CompactionFailed) -> None: ...

    def on_notice(self, event: Notice) -> None: ...

    def on_listing(self, event: Listing) -> None: ...

    def on_report(self, event: ReportRequested) -> None: ...

    def on_todos(self, event: TodosChanged) -> None: ...

    def on_approval(self, event: ApprovalRequest) -> Reply:
        return None

    def on_question(self, event: Question) -> Reply:
        return None

    def on_trust(self, event: TrustRequest) -> Reply:
        return None
