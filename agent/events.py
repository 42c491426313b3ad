"""The loop <-> UI contract, one typed channel both ways: the agent, the compactor and the slash
commands emit these events; the UI renders them, and answers the requests among them.

The core never prints and never reads the keyboard. Tests collect these events and assert on them;
a fake UI answers the requests.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
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
    """A model request is on its way; the UI shows a spinner until its first token, with `label`
    when there is more to say (a local server processing a long prompt streams nothing meanwhile)."""

    label: str = ""


@dataclass(frozen=True)
class CommandRunning:
    """An approved shell command has started (the spinner names it until it ends)."""

    command: str


@dataclass(frozen=True)
class ToolProgress:
    """An MCP server's tool runs (after its approval, if one was asked): the spinner names it, and its
    progress as the server reports it (`progress` None until it does; `message` the server's text)."""

    tool_name: str
    progress: float | None = None
    total: float | None = None
    message: str = ""


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
    # What it dropped (agent.compaction.survival.dropped): tool results by tool and their tokens, files
    # not restored, user messages only the archive holds.
    dropped: dict = field(default_factory=dict)


@dataclass(frozen=True)
class CompactionFailed:
    trigger: str
    reason: str


@dataclass(frozen=True)
class Notice:
    """A one-line message for the user (warnings, skipped files, retries, what a command did)."""

    text: str
    level: str = "info"  # "info" | "warn" | "error" | "dim" | "plain"


@dataclass(frozen=True)
class Listing:
    """Lines a slash command shows as they are (/help, the sessions /resume offers); `strong` is the
    start of each line that is drawn in bold (a command's name), "" for none."""

    lines: tuple[str, ...]
    strong: tuple[str, ...] = ()


@dataclass(frozen=True)
class ReportRequested:
    """A view of the session to draw: "status" (/status), "context" (/context) or "resumed" (a resumed
    session's last turns).
    The UI builds it from the state it shows, so no rich object crosses the channel."""

    view: str


@dataclass(frozen=True)
class TodosChanged:
    """The model changed its task list (agent.tools.todo): every item as (content, status), status one of
    "pending", "in_progress", "completed"."""

    items: tuple[tuple[str, str], ...]


def tool_summary(event: ToolCallStarted) -> str:
    """A tool call in a few words: its name and its main argument."""
    for key in ("path", "pattern", "command", "url", "description"):
        if isinstance(value := event.args.get(key), str):
            return f"{event.tool_name} {' '.join(value.split())[:80]}"
    return event.tool_name


# --- requests: events the UI answers ---------------------------------------------------------


@dataclass(frozen=True)
class ApprovalRequest:
    """Asked before a shell command runs (`kind` "command", `subject` the whole command), before a
    write the model may not make alone (`kind` "write", `subject` the path as shown, `why` the reason,
    `detail` the change as a unified diff) or before the first fetch from a web domain (`kind`
    "fetch", `subject` the URL, `why` the domain). Answered "y", "n", "always" (for the session) or
    "project" (always, saved as a rule for the project: agent.tools.permissions); anything else, or no one
    to ask, is "n". `kind` "tool" is an MCP server's tool (`subject` its name and arguments), "read" a
    read a rule asks about, "outside" a command the OS sandbox stopped, to run again outside it (`why`
    what the sandbox refused)."""

    kind: str  # "command" | "write" | "fetch" | "tool" | "read" | "outside"
    subject: str
    why: str = ""
    detail: str = ""
    # Who asks, when not the agent itself: a sub-agent's label (agent.tools.subagent).
    origin: str = ""
    # False: `detail` is cut (its start and end shown): the question must not call it whole.
    whole: bool = True


@dataclass(frozen=True)
class Question:
    """A question a slash command asks (a number to pick; with `yes_no`, a confirmation). Answered
    with the text typed, or for `yes_no` "y" / "n"; no one to ask is "" / "n". With `edit`, the
    answer is that text as the user left it in a multi-line field (for a user with no $EDITOR)."""

    text: str
    yes_no: bool = False
    edit: str | None = None


@dataclass(frozen=True)
class TrustRequest:
    """Asked once, before the first prompt, when a project's files hold grants (agent.provider.trust):
    `lines` each one grant as it would run, drawn with every hidden character escaped (a newline too);
    `folder` the workspace. Answered "y" or "n"; no one to ask is "n"."""

    folder: str
    lines: tuple[str, ...]


Request = ApprovalRequest | Question | TrustRequest

Event = (
    TextDelta
    | ThinkingDelta
    | ToolCallStarted
    | ToolResult
    | UsageUpdate
    | WaitingForModel
    | CommandRunning
    | ToolProgress
    | Retrying
    | CompactionStarted
    | CompactionFinished
    | CompactionFailed
    | Notice
    | Listing
    | ReportRequested
    | TodosChanged
    | ApprovalRequest
    | Question
    | TrustRequest
)

# An Emit is the UI's end of the channel. For a request it may return the awaitable answer; for any
# other event, and from a UI that cannot ask (a log, -p mode's decline aside), it returns None.
Emit = Callable[[Event], Awaitable[str] | None]


async def ask(emit: Emit, request: Request) -> str:
    """Send `request` and wait for its answer, checked here so that a UI's slip fails closed: an
    approval is "y", "always" or "n"; a yes/no question "y" or "n"; any other question its text."""
    reply = emit(request)
    answer = "" if reply is None else (await reply).strip()
    if isinstance(request, ApprovalRequest):
        return answer if answer in ("y", "always", "project") else "n"
    if isinstance(request, TrustRequest) or request.yes_no:
        return "y" if answer == "y" else "n"
    return answer


@dataclass
class EventLog:
    """An Emit that records events (tests; start-up's notices until the UI exists). It asks no one:
    its requests are answered "n"."""

    events: list[Event] = field(default_factory=list)

    def __call__(self, event: Event) -> None:
        self.events.append(event)

    def of(self, kind: type) -> list:
        return [e for e in self.events if isinstance(e, kind)]
