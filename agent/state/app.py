"""The state of one REPL session. It is also the tools' `deps` (RunContext.deps)."""

from __future__ import annotations

import asyncio
import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.config import Config
from agent.events import Emit, Event
from agent.provider.prefix import RequestRecorder
from agent.state.file_history import FileHistory
from agent.state.file_state import ReadFileState
from agent.state.settings_state import Hooks, Permissions, Project, Servers
from agent.state.transcript import Transcript

if TYPE_CHECKING:
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelMessage
    from pydantic_ai.usage import RequestUsage


def _drop(event: Event) -> None:
    """No UI yet: events are dropped and requests answered "n" (agent.events.ask)."""


@dataclass
class Stats:
    """Figures /status shows; per session, saved beside it (session.save_stats) and resumed."""

    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_hit_tokens: int = 0
    compactions: int = 0
    compaction_tokens: int = 0  # input+output of compaction requests (background included)
    last_archive: str | None = None
    cheap_tier_saved: int = 0  # tokens cleared from old tool results
    cheap_tier_spared_calls: int = 0  # compactions where clearing alone was enough
    summary_tier_saved: int = 0
    # The newest response came without token usage (Ollama and some local servers): the gauge estimates.
    usage_missing: bool = False
    left_out_messages: int = 0  # dropped (archived) to fit a request into the window
    # Background summaries: started, swapped in, and given up (by reason: agent.compaction.background).
    background_started: int = 0
    background_used: int = 0
    background_discarded: dict[str, int] = field(default_factory=dict)
    # The last request's prompt and how much of it the prefix cache served.
    last_input_tokens: int = 0
    last_cache_hit_tokens: int = 0
    # The cheap tier's last decision (agent.compaction.policy): --cheap-tier mode, what was chosen and why, and
    # the estimated cost per request of each action (None when money did not decide).
    tier_mode: str = ""
    tier_choice: str = ""
    tier_reason: str = ""
    tier_clear_cost: float | None = None
    tier_summary_cost: float | None = None
    tier_currency: str = ""
    # How far the server has counted above our estimate (the learned margin, agent.compaction.watermark),
    # and requests it refused as too long: the safety margin of every size check, kept across a resume.
    count_ratio: float = 1.0
    refused_requests: int = 0
    # What the requests cost, each at its own time's prices (agent.state.billing), and how many were priced.
    cost_hit: float = 0.0
    cost_miss: float = 0.0
    cost_output: float = 0.0
    cost_currency: str = ""
    priced_requests: int = 0
    # The model the API says answered (the response's `model`), when the user may not know it.
    served_model: str = ""
    last_undo: str | None = None  # the archive the last /compact undo restored
    last_dropped: dict = field(default_factory=dict)  # what the last compaction dropped, for /compact show
    compaction_failures: int = 0  # automatic ones that failed, in all (the breaker counts in a row)
    # Sub-agents (agent.tools.subagent): their runs, requests and tokens, apart from the agent's own.
    subagent_runs: int = 0
    subagent_requests: int = 0
    subagent_input_tokens: int = 0
    subagent_cache_hit_tokens: int = 0
    subagent_output_tokens: int = 0

    def add(self, usage: RequestUsage) -> int:
        """Count one response's usage (a turn's or a compaction's); returns its cache hits."""
        hits = cache_hits(usage)
        self.requests += 1
        self.input_tokens += usage.input_tokens
        self.output_tokens += usage.output_tokens
        self.cache_hit_tokens += hits
        self.last_input_tokens, self.last_cache_hit_tokens = usage.input_tokens, hits
        return hits

    def chose(self, mode: str, choice: Any) -> None:
        """The cost policy's decision (agent.compaction.policy.Choice) under --cheap-tier `mode`."""
        self.tier_mode, self.tier_choice, self.tier_reason = mode, choice.action, choice.reason
        self.tier_clear_cost, self.tier_summary_cost = choice.clear_cost, choice.summary_cost
        self.tier_currency = choice.currency

    def compacted(self, archive: str, dropped: dict, cleared: int, summarized: int, background: bool) -> None:
        """One compaction committed: `cleared` tokens by the cheap tier, else `summarized` by a summary."""
        self.compactions, self.last_archive, self.last_dropped = self.compactions + 1, archive, dropped
        if cleared:
            self.cheap_tier_saved += cleared
            self.cheap_tier_spared_calls += 1
        else:
            self.summary_tier_saved += summarized
            self.background_used += background

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Stats:
        """Known fields of the right type only: an old or damaged file never breaks a resume."""
        stats = cls()
        for f in dataclasses.fields(cls):
            value = data.get(f.name)
            if _fits(value, getattr(stats, f.name), str(f.type)):
                setattr(stats, f.name, dict(value) if isinstance(value, dict) else value)
        return stats


def cache_hits(usage: RequestUsage) -> int:
    """Prompt tokens the provider's cache served. DeepSeek reports them as `prompt_cache_hit_tokens`,
    which pydantic-ai keeps in `details`; OpenAI's `cached_tokens` it maps to `cache_read_tokens`."""
    return int((usage.details or {}).get("prompt_cache_hit_tokens") or usage.cache_read_tokens or 0)


def _fits(value: object, default: object, annotation: str) -> bool:
    """Whether a value read back from a stats file has the type of the field it is for."""
    if value is None or isinstance(value, bool) != isinstance(default, bool):
        return False
    if isinstance(default, dict):  # counts by reason
        return isinstance(value, dict) and all(
            isinstance(k, str) and isinstance(n, int) and not isinstance(n, bool) for k, n in value.items()
        )
    if default is None:  # an optional figure or text: its annotation says which
        return isinstance(value, str) if annotation.startswith("str") else isinstance(value, (int, float))
    return isinstance(value, type(default)) or (isinstance(default, float) and isinstance(value, int))


@dataclass
class Background:
    """A summary being written in the background (agent.compaction.background) from a snapshot of the history."""

    snapshot: list[ModelMessage]
    # Its result is an agent.compaction.summary.SummaryReply, not named here: the state sits below the
    # compaction (tests/test_architecture.py), and the background module is the one that reads it.
    task: asyncio.Task
    before: int  # the context's tokens when it started


@dataclass
class CompactionState:
    """Automatic compaction's own state in one session: its breakers and the summary written in the
    background. Starting or switching a session starts a new one (controller.switch_session)."""

    # Automatic compactions failed in a row (compact.MAX_COMPACT_FAILURES switches them off).
    failures: int = 0
    # Why automatic compaction is off for the rest of the session ("failures"), or None.
    off_reason: str | None = None
    # Turn numbers (count of user turns) at which automatic compactions fired: thrash detection.
    auto_turns: list[int] = field(default_factory=list)
    # Automatic compactions that came within two turns of the previous one, in a row.
    thrash_streak: int = 0
    # The thrash guard's back-off (compact.auto_limit): 1 the target raised, 2 automatic compaction
    # paused (a request is still fitted to the window); until the turn `rearm_at`, then 0 again.
    backoff: int = 0
    rearm_at: int | None = None
    # True while a compaction request is in flight: the mid-turn guard must not recurse into it.
    running: bool = False
    # The summary being written in the background, if one is (agent.compaction.background).
    background: Background | None = None


@dataclass
class Scratch:
    """What the agent works with and never saves: the built agent, its prefix and the last request (a
    turn's own values are its run's: agent.turn.run_state). It outlives a session switch (the agent
    depends on the model and workspace only); the recorder is told to forget the old session's request."""

    # The pydantic-ai Agent, built once per model (see agent.turn.loop.get_agent).
    agent: Agent[AppState, str] | None = None
    # The agent's instructions (system prompt) as sent; byte-stable for the session (agent.turn.loop.instructions).
    instructions: str = ""
    # What every compaction is told besides its prompt (the memory files' and settings' compact
    # instructions), read with the instructions and as stable.
    standing: str = ""
    # Tokens of the tool definitions + instructions, measured once (they never change).
    fixed_prefix_tokens: int | None = None
    # Whether fixed_prefix_tokens is the server's own figure (agent.compaction.watermark.calibrate_prefix).
    prefix_calibrated: bool = False
    # The last agent request as sent: the start of the next compaction request (agent.provider.prefix).
    recorder: RequestRecorder = field(default_factory=RequestRecorder)
    # The REPL's background warm-up (agent.turn.warmup.warm_up), awaited before the first turn.
    ready: asyncio.Future[None] | None = None
    # The session's totals as its stats file holds them: an input that changed none writes nothing.
    stats_on_disk: dict[str, object] = field(default_factory=dict)
    # The subfolders' memory files attached during the model request whose calls run now, by that
    # request (agent.tools.nested_memory): two reads side by side load a file once.
    nested_pending: tuple[str, set[str]] = ("", set())


@dataclass
class AppState:
    config: Config
    # The history, the session file and its lock, the /compact undo stack: all changes go through it.
    transcript: Transcript
    read_file_state: ReadFileState = field(default_factory=ReadFileState)
    file_history: FileHistory = field(default_factory=FileHistory)
    # The one channel to the UI: events out, approval requests answered back (agent.events).
    emit: Emit = _drop
    # Commands the user allowed for the session ("always" at an approval request).
    always_allowed: set[str] = field(default_factory=set)
    # Paths the user allowed every write to ("always" at a write question).
    always_allowed_writes: set[str] = field(default_factory=set)
    # The permission mode (Shift+Tab) and the saved rules (agent.tools.permissions).
    permissions: Permissions = field(default_factory=Permissions)
    # The settings files' hooks (agent.tools.hooks).
    hooks: Hooks = field(default_factory=Hooks)
    # Web domains the user allowed fetch_url for the session ("always" at a fetch question).
    always_allowed_domains: set[str] = field(default_factory=set)
    # The MCP servers of the settings files and .mcp.json (agent.tools.mcp_servers).
    mcp: Servers = field(default_factory=Servers)
    # What the user's approval of the project switched on (agent.provider.trust).
    project: Project = field(default_factory=Project)
    stats: Stats = field(default_factory=Stats)
    compaction: CompactionState = field(default_factory=CompactionState)
    turns: int = 0
    scratch: Scratch = field(default_factory=Scratch)

    @property
    def history(self) -> list[ModelMessage]:
        """Read only: the transcript owns it (agent.state.transcript)."""
        return self.transcript.messages

    @property
    def session_id(self) -> str:
        return self.transcript.session_id

    @property
    def workspace(self) -> Path:
        return self.config.workspace

    @property
    def lang(self) -> str:
        return self.config.lang
