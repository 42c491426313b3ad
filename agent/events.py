"""The loop <-> UI contract: the agent and the compactor emit these; the UI renders them.

The core never prints. Tests collect these events and assert on them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class TextDelta:
    text: str


@dataclass(frozen=True)
class ThinkingDelta:
    text: str


@dataclass(frozen=True)
class ToolCallStarted:
    tool_call_id: str
    tool_name: str
    args: dict[str, object]


@dataclass(frozen=True)
class ToolResult:
    tool_call_id: str
    tool_name: str
    content: str
    is_error: bool = False
    # For write_file / edit_file: a unified diff the UI colours.
    diff: str | None = None


@dataclass(frozen=True)
class UsageUpdate:
    input_tokens: int
    output_tokens: int
    cache_hit_tokens: int
    context_tokens: int


@dataclass(frozen=True)
class WaitingForModel:
    """A model request is on its way; the UI shows a spinner until its first token."""


@dataclass(frozen=True)
class CommandRunning:
    """An approved shell command has started (the spinner names it until it ends)."""

    command: str


@dataclass(frozen=True)
class Retrying:
    """The request failed in a way worth retrying; the client waits `wait` seconds, then sends it again."""

    attempt: int  # the attempt about to be made: 2 is the first retry
    attempts: int  # how many there will be at most
    wait: float
    status: int | None = None  # the HTTP status that failed (429, 5xx), None for a timeout or lost connection


@dataclass(frozen=True)
class CompactionStarted:
    trigger: str  # "manual" | "auto" | "mid-turn" | "background"
    used_tokens: int
    threshold: int


@dataclass(frozen=True)
class CompactionFinished:
    trigger: str
    tokens_before: int
    tokens_after: int
    archive_path: str
    # "summary" when an LLM summary was written, "cheap" when clearing old tool results was enough.
    tier: str = "summary"
    left_out_messages: int = 0
    # The summary the model wrote ("" for the cheap tier): shown collapsed, so compaction is never silent.
    summary: str = ""


@dataclass(frozen=True)
class CompactionFailed:
    trigger: str
    reason: str


@dataclass(frozen=True)
class Notice:
    """A one-line message for the user (warnings, skipped files, retries)."""

    text: str
    level: str = "info"  # "info" | "warn" | "error"


Event = (
    TextDelta
    | ThinkingDelta
    | ToolCallStarted
    | ToolResult
    | UsageUpdate
    | WaitingForModel
    | CommandRunning
    | Retrying
    | CompactionStarted
    | CompactionFinished
    | CompactionFailed
    | Notice
)

Emit = Callable[[Event], None]


@dataclass
class EventLog:
    """An Emit that records events; used by tests and by -p mode."""

    events: list[Event] = field(default_factory=list)

    def __call__(self, event: Event) -> None:
        self.events.append(event)

    def of(self, kind: type) -> list:
        return [e for e in self.events if isinstance(e, kind)]
