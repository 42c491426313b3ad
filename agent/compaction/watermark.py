"""The watermark: how full the window is, where compaction starts, the sizes a compaction plans with,
and the margin between our count and the server's, learned in the session (its section below).

The design's figures are for its window, the default one (131,072 tokens): 20,000 tokens for the
summary's output and the compaction prompt, 10,000 more as a safety margin, so compaction starts at
101,072, 77% of the window. Other windows keep the share and scale the reserve, so an 8k model
compacts at ~6.3k rather than at a negative number, and a 1M model at ~771k rather than at 970k.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent import debuglog
from agent.compaction.summary import head_end
from agent.config import DEFAULT_WINDOW, Prices
from agent.marks import is_summary
from agent.provider import prices
from agent.provider.model import answer_room
from agent.provider.server_errors import prompt_count
from agent.tokens import count as tokens
from agent.tokens.chat_template import tool_definitions

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

    from agent.state.app import AppState

CONTEXT_WINDOW = DEFAULT_WINDOW
COMPACT_OUTPUT_RESERVE = 20_000
AUTO_COMPACT_BUFFER = 10_000
DEFAULT_SHARE = (CONTEXT_WINDOW - COMPACT_OUTPUT_RESERVE - AUTO_COMPACT_BUFFER) / CONTEXT_WINDOW
# Below this a summary of a long session is useless (a 4k window's share, 625, is above it).
MIN_OUTPUT_RESERVE = 512
# Past this share of the threshold the summary is written in the background (agent.compaction.background).
LOWER_MARK = 0.85

# How the rebuilt history shares out its room. It stays under REBUILT_SHARE of the threshold, room
# for work before the next compaction. Fixed figures (Codex CLI keeps 20,000 tokens of user
# messages, Claude Code restores 50,000 of files) would overflow a small window on their own: every
# part is a share of what is left after the prefix and the summary, and the caps bind on large
# windows only. SUMMARY_OVERHEAD: the summary message's own text (wrapper, titles, archive paths).
REBUILT_SHARE = 0.7
SUMMARY_OVERHEAD = 300
USER_MESSAGES_MAX, RESTORE_MAX = 20_000, 50_000
USER_SHARE, RESTORE_SHARE, TAIL_SHARE = 0.3, 0.4, 0.3
# The most files a summary restores, newest first (agent.compaction.restore); `figures` estimates them.
RESTORE_MAX_FILES = 5
# A file's tokens, estimated from its size before it is read.
BYTES_PER_TOKEN = 3.5


def output_reserve(window: int) -> int:
    """Tokens kept free for the summary: the design's 20,000, scaled down for small windows."""
    return max(MIN_OUTPUT_RESERVE, min(COMPACT_OUTPUT_RESERVE, window * COMPACT_OUTPUT_RESERVE // CONTEXT_WINDOW))


def compact_threshold(window: int = CONTEXT_WINDOW, compact_at: str | None = None) -> int:
    """Where automatic compaction starts: `--compact-at` ("N" tokens, "Nk" or "P%" of the window), or
    the design's share of the window, never closer to its end than the reserve and buffer."""
    if compact_at:
        return parse_compact_at(compact_at, window)
    return min(
        window - output_reserve(window) - AUTO_COMPACT_BUFFER * window // CONTEXT_WINDOW, int(window * DEFAULT_SHARE)
    )


class CompactAtOutOfRange(ValueError):
    """A --compact-at outside what the window allows: refused, never clamped behind the user's back."""

    def __init__(self, value: str, low: int, high: int) -> None:
        super().__init__(f"--compact-at {value} is outside {low:,}..{high:,} tokens")
        self.value, self.low, self.high = value, low, high


def compact_at_range(window: int) -> tuple[int, int]:
    """The thresholds a window allows: from 10% of it up to the window less the summary's reserve."""
    return window // 10, window - output_reserve(window)


def parse_compact_at(value: str, window: int) -> int:
    """`--compact-at 600000`, `600k` or `60%`, within `compact_at_range(window)`."""
    text = value.strip().lower().replace(",", "").replace("_", "")
    if text.endswith("%"):
        number = int(float(text[:-1]) * window / 100)
    elif text.endswith("k"):
        number = int(float(text[:-1]) * 1000)
    else:
        number = int(text)
    low, high = compact_at_range(window)
    if not low <= number <= high:
        raise CompactAtOutOfRange(value, low, high)
    return number


@dataclass(frozen=True)
class Budgets:
    target: int  # the whole rebuilt history, prefix included, at most
    summary: int  # the summary the model writes, at most (its output reserve)
    user_messages: int
    restore: int
    tail: int  # messages kept verbatim after the summary

    @property
    def head(self) -> int:
        """The most a rebuilt history's head takes: the summary, its message's own text, the user's words."""
        return self.summary + SUMMARY_OVERHEAD + self.user_messages


def budgets(window: int, threshold: int, fixed: int) -> Budgets:
    """The budgets for a window, its threshold and the fixed prefix (tokens)."""
    target = int(threshold * REBUILT_SHARE)
    available = max(0, target - fixed - SUMMARY_OVERHEAD)
    # On a small window the prefix and a full-size summary can take the whole target: the summary
    # then gets half of what is left, so user messages, files and the tail still get some room.
    summary = min(output_reserve(window), available // 2)
    room = available - summary
    return Budgets(
        target,
        summary,
        min(USER_MESSAGES_MAX, int(room * USER_SHARE)),
        min(RESTORE_MAX, int(room * RESTORE_SHARE)),
        int(room * TAIL_SHARE),
    )


@dataclass(frozen=True)
class Figures:
    """What a compaction is planned with, read from the session once (`figures`): values only, so
    that the plan (agent.compaction.flow.plan) and the cost policy are functions of them."""

    window: int
    threshold: int
    fixed: int  # instructions, tool definitions and the MCP servers' tools
    ratio: float  # the learned margin (`ratio`, below)
    budgets: Budgets
    mode: str = "auto"  # --cheap-tier
    prices: Prices | None = None  # the model's now (agent.provider.prices)
    caches: bool = True  # the provider caches prefixes (its prices say so, or it reported hits)
    restored: int = 0  # tokens of the files a summary would restore, estimated from their sizes

    @property
    def reserve(self) -> int:
        return output_reserve(self.window)

    @property
    def request_limit(self) -> int:
        """The largest compaction request: the window less the summary's reserve."""
        return self.window - self.reserve

    def count(self, messages: Sequence[ModelMessage]) -> int:
        return request_tokens(messages, self.fixed)

    def fits(self, estimate: int, limit: int) -> bool:
        return safe_estimate(estimate, self.ratio) <= limit

    def room(self, limit: int) -> int:
        return int(limit / self.ratio)


def figures(state: AppState) -> Figures:
    window, limit, fixed = state.config.context_window, threshold(state), prefix_tokens(state)
    known = prices.now(state.config)  # the next requests are made now
    restored = 0
    for path in state.read_file_state.paths()[-RESTORE_MAX_FILES:]:
        try:
            restored += int(path.stat().st_size / BYTES_PER_TOKEN)
        except OSError:
            continue
    return Figures(
        window,
        limit,
        fixed,
        ratio(state),
        budgets(window, limit, fixed),
        state.config.cheap_tier,
        known,
        (known is not None and known.caches_prefixes) or state.stats.cache_hit_tokens > 0,
        restored,
    )


def ceiling(state: AppState) -> int:
    """The largest ordinary request: the window less room for the answer."""
    return state.config.context_window - answer_room(state.config.context_window)


def threshold(state: AppState) -> int:
    return compact_threshold(state.config.context_window, state.config.compact_at)


def lower_mark(state: AppState) -> int:
    return int(threshold(state) * LOWER_MARK)


def next_head(state: AppState) -> int:
    """Tokens of the head the next compaction leaves: today's, or the one its budgets would build if
    smaller (what a user message must fit beside, with the fixed prefix)."""
    plan = budgets(state.config.context_window, threshold(state), prefix_tokens(state))
    return min(tokens.count_messages(state.history[: head_end(state.history)]), plan.head)


def fixed_prefix_tokens(state: AppState) -> int:
    """Tokens of the instructions and tool definitions, measured once. The turn renders the
    instructions (agent.turn.loop.instructions); until it has, they are not in the figure, which is
    then measured again next time."""
    scratch = state.scratch
    if scratch.fixed_prefix_tokens is None:
        from agent.tools.toolset import active_tools

        measured = tokens.count_request_prefix(scratch.instructions, tool_definitions(active_tools(state.config)))
        if not scratch.instructions:
            return measured
        scratch.fixed_prefix_tokens = measured
    return scratch.fixed_prefix_tokens


def prefix_tokens(state: AppState) -> int:
    """The fixed prefix with the MCP servers' tool definitions, which ride in it too."""
    return fixed_prefix_tokens(state) + state.mcp.definition_tokens()


def calibrate_prefix(state: AppState, history: Sequence[ModelMessage], input_tokens: int) -> None:
    """Take the fixed prefix from the server's own count, once, from a request with a small history:
    our count misses what the server's template wraps around the instructions and tools (DeepSeek's
    tool instructions); with a small history the messages' own counting error stays negligible."""
    if state.scratch.prefix_calibrated or not input_tokens:
        return
    ours = fixed_prefix_tokens(state)
    # Counted until past the bound only: a large session that never calibrates would otherwise
    # count every message again after each request.
    messages = 0
    for message in history:
        messages += tokens.count_message(message)
        if messages > 4 * ours:
            return
    measured = input_tokens - messages
    if ours // 2 <= measured <= 2 * ours:  # else it is not the same kind of count: keep ours
        state.scratch.fixed_prefix_tokens = measured
        state.scratch.prefix_calibrated = True


def measured(state: AppState, history: Sequence[ModelMessage], input_tokens: int) -> None:
    """Learn from the server's count of a request built from `history`: the fixed prefix (once, from
    a small request), then the margin with it."""
    calibrate_prefix(state, history, input_tokens)
    observe(state, history_tokens(state, history), input_tokens)


def context_tokens(state: AppState, pending: Sequence[ModelMessage] = ()) -> int:
    """Tokens the next request will carry: the design's figure (the newest response's input and
    output tokens, as the provider measured them) plus what came after it and `pending`, counted
    with DeepSeek's tokenizer; everything, prefix included, when no usage holds (a new or just
    compacted history), so the gauge is never 0 for a non-empty context."""
    return history_tokens(state, state.history) + tokens.count_messages(pending)


def history_tokens(state: AppState, history: Sequence[ModelMessage]) -> int:
    return request_tokens(history, prefix_tokens(state))


def request_tokens(history: Sequence[ModelMessage], fixed: int) -> int:
    """Tokens of a request carrying `history`: the newest usage plus what came after it, else
    `fixed` and every message. Usage before a summary measured the compacted history: never used."""
    for index in range(len(history) - 1, -1, -1):
        message = history[index]
        if message.kind == "response" and message.usage.input_tokens:
            return (
                message.usage.input_tokens + message.usage.output_tokens + tokens.count_messages(history[index + 1 :])
            )
        if message.kind == "request" and is_summary(message):
            break
    return fixed + tokens.count_messages(history)


# --- the learned margin ---------------------------------------------------------------------------
# The safety margin between our token estimate and the server's count, learned in the session.
#
# Our count (agent.tokens.count) is DeepSeek's tokenizer over our rendering of the request; another
# server renders and counts its own way (its template, its tokenizer, a tool schema it expands), so
# an estimate can be a few percent low and a request we think fits is refused. A fixed slack is too
# small for such a server or wasteful for an exact one; instead the margin is what the server itself
# reported: after every answered request, the ratio of its prompt count to our estimate; after a
# refused one, the figures in the error. The highest ratio so far is the margin (`Stats.count_ratio`,
# saved with the stats, so `--continue` keeps it). Every size check before a request goes through
# `fits` or `room`; `safe_estimate` is the one conversion, so a server that counts for us (a
# /tokenize endpoint) could replace it.

# Ratios of small requests are mostly the fixed prefix's rounding: not worth learning from.
MIN_SAMPLE = 512
# A refusal's own figures are exact for that request; a little more keeps the retry off the edge.
# Without figures the margin grows by REFUSAL_GROW each refusal. A ratio of 2 means the server does
# not count like us at all: never beyond it.
REFUSAL_PAD, REFUSAL_GROW, MAX_RATIO = 1.02, 1.10, 2.0


def ratio(state: AppState) -> float:
    return max(1.0, state.stats.count_ratio)


def safe_estimate(estimate: int, ratio: float) -> int:
    """Our estimate of a request, raised by how far the server has counted above us so far."""
    return math.ceil(estimate * ratio)


def safe(state: AppState, estimate: int) -> int:
    return safe_estimate(estimate, ratio(state))


def fits(state: AppState, estimate: int, limit: int) -> bool:
    """Whether a request we estimate at `estimate` tokens fits under `limit` by the server's count."""
    return safe(state, estimate) <= limit


def room(state: AppState, limit: int) -> int:
    """The largest estimate that fits under `limit` (for fitting messages by our own count)."""
    return int(limit / ratio(state))


def observe(state: AppState, estimate: int, server: int) -> None:
    """Learn from an answered request: the server counted `server` where we estimated `estimate`."""
    if estimate >= MIN_SAMPLE and server > 0:
        _raise_to(state, server / estimate, "observed", estimate, server)


def refused(state: AppState, estimate: int, exc: BaseException) -> int | None:
    """Learn from a request refused as too long (agent.provider.server_errors): from the server's own
    figures when the error has them, else by a fixed step. Returns the server's count of the request,
    if it said."""
    state.stats.refused_requests += 1
    counted = prompt_count(exc)
    if counted is not None and estimate > 0:
        _raise_to(state, counted / estimate * REFUSAL_PAD, "refused", estimate, counted)
    else:
        _raise_to(state, ratio(state) * REFUSAL_GROW, "refused", estimate, 0)
    return counted


def _raise_to(state: AppState, value: float, why: str, estimate: int, server: int) -> None:
    value = min(MAX_RATIO, value)
    if value > state.stats.count_ratio:
        debuglog.log("margin", why=why, estimate=estimate, server=server, ratio=round(value, 4))
        state.stats.count_ratio = value
