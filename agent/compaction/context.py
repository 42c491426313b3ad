"""The context watermark: how full the window is, and where compaction starts."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from agent.compaction.summary import is_summary
from agent.config import DEFAULT_WINDOW
from agent.tokens import count as tokens

if TYPE_CHECKING:
    from pydantic_ai import Tool
    from pydantic_ai.messages import ModelMessage

    from agent.state.app import AppState

# The design's figures are for its window, the default one (deepseek-chat's 131,072 tokens): the
# summary's output and the compaction prompt need 20,000 tokens, and 10,000 more keep a safety margin.
CONTEXT_WINDOW = DEFAULT_WINDOW
COMPACT_OUTPUT_RESERVE = 20_000
AUTO_COMPACT_BUFFER = 10_000
# Never plan a summary output smaller than this: below it a summary of a long session is useless.
# (A 4k window's share, 625, is above it: more would leave the rebuilt history no room; budgets.py.)
MIN_OUTPUT_RESERVE = 512


def output_reserve(window: int) -> int:
    """Tokens kept free for the summary: the design's 20,000, scaled down for small windows."""
    return max(MIN_OUTPUT_RESERVE, min(COMPACT_OUTPUT_RESERVE, window * COMPACT_OUTPUT_RESERVE // CONTEXT_WINDOW))


# The design's threshold is 77% of its window (101,072 / 131,072).
DEFAULT_SHARE = (CONTEXT_WINDOW - COMPACT_OUTPUT_RESERVE - AUTO_COMPACT_BUFFER) / CONTEXT_WINDOW


def compact_threshold(window: int = CONTEXT_WINDOW, compact_at: str | None = None) -> int:
    """Where automatic compaction starts.

    The design's CONTEXT_WINDOW - COMPACT_OUTPUT_RESERVE - AUTO_COMPACT_BUFFER at 131,072 (101,072).
    Other windows keep the same 77% share, so an 8k model compacts at ~6.3k rather than at a
    negative number, and a 1M model at ~771k rather than at 970k (users of peers complain both of
    compacting far too early and of requests that fail at the very end of the window), unless
    `--compact-at` says otherwise ("N" tokens, "Nk" or "P%" of the window).
    """
    if compact_at:
        return parse_compact_at(compact_at, window)
    return min(window - output_reserve(window) - AUTO_COMPACT_BUFFER * window // CONTEXT_WINDOW,
               int(window * DEFAULT_SHARE))


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


def fixed_prefix_tokens(state: AppState) -> int:
    """Tokens of the instructions and tool definitions: measured once, they never change."""
    if state.scratch.fixed_prefix_tokens is None:
        from agent.tools.toolset import active_tools

        tools = tool_definitions(active_tools(state.config))
        state.scratch.fixed_prefix_tokens = tokens.count_request_prefix(instructions(state), tools)
    return state.scratch.fixed_prefix_tokens


def instructions(state: AppState) -> str:
    """The agent's instructions (system prompt), rendered once: byte-stable for the session."""
    if not state.scratch.instructions:
        from agent.tools.memory_files import instructions as with_memory_files

        state.scratch.instructions = with_memory_files(state.workspace, state.lang)
    return state.scratch.instructions


def calibrate_prefix(state: AppState, history: Sequence[ModelMessage], input_tokens: int) -> None:
    """Take the fixed prefix from the server's own count, once, from a request with a small history.

    Our count of the instructions and tools misses what the server's template wraps around them
    (DeepSeek's DSML tool instructions, ~180 tokens): until now a fresh estimate (a new session, or
    right after a compaction) was low by that much. input_tokens minus our count of the messages is
    the server's figure; with a small history the messages' own counting error stays negligible."""
    if state.scratch.prefix_calibrated or not input_tokens:
        return
    ours = fixed_prefix_tokens(state)
    # Counted until past the bound only: a resumed large session that never calibrates would
    # otherwise count every message again after each request (~17 ms at 8,000 messages).
    messages = 0
    for message in history:
        messages += tokens.count_message(message)
        if messages > 4 * ours:
            return
    measured = input_tokens - messages
    if ours // 2 <= measured <= 2 * ours:  # else it is not the same kind of count: keep ours
        state.scratch.fixed_prefix_tokens = measured
        state.scratch.prefix_calibrated = True


def tool_definitions(tools: Iterable[Tool[Any]]) -> list[dict]:
    """The tools as OpenAI sends them: name, description, JSON schema (the agent's own Tool objects,
    so the definitions are the ones pydantic-ai sends)."""
    defs = []
    for tool in tools:
        tool_def = tool.tool_def
        defs.append(
            {
                "type": "function",
                "function": {
                    "name": tool_def.name,
                    "description": tool_def.description or "",
                    "parameters": tool_def.parameters_json_schema,
                },
            }
        )
    return defs


def context_tokens(state: AppState, pending: Sequence[ModelMessage] = ()) -> int:
    """Tokens the next request will carry.

    The design's figure is the newest response's input + output tokens, as the provider measured
    them. Messages after that response (tool results, the pending user text and @-mentioned files)
    are not in any usage yet: count them with the DeepSeek tokenizer. With no usage at all (a new
    or just-compacted history) count everything, instructions and tool definitions included, so the
    gauge is right right after a compaction and never 0 for a non-empty context.
    """
    return history_tokens(state, state.history) + tokens.count_messages(pending)


def history_tokens(state: AppState, history: Sequence[ModelMessage]) -> int:
    """Tokens of a request carrying `history`: the newest usage plus what came after it."""
    anchor, base = _usage_anchor(history)
    if anchor is None:
        # The MCP servers' tool definitions ride in the prefix too (agent.tools.mcp_servers).
        return fixed_prefix_tokens(state) + state.mcp.definition_tokens() + tokens.count_messages(history)
    return base + tokens.count_messages(history[anchor + 1 :])


def _usage_anchor(history: Sequence[ModelMessage]) -> tuple[int | None, int]:
    for index in range(len(history) - 1, -1, -1):
        message = history[index]
        if message.kind == "response" and message.usage.input_tokens:
            return index, message.usage.input_tokens + message.usage.output_tokens
        if message.kind == "request" and is_summary(message):
            # Usage before a summary belongs to the compacted history: never anchor across it.
            return None, 0
    return None, 0


def threshold(state: AppState) -> int:
    return compact_threshold(state.config.context_window, state.config.compact_at)


# Past this share of the threshold the summary is written in the background (agent.compaction.background).
LOWER_MARK = 0.85


def lower_mark(state: AppState) -> int:
    return int(threshold(state) * LOWER_MARK)
