"""The one LLM call of a compaction, shaped to be served from the provider's prefix cache.

The design used a separate agent without tools. That changes the request's prefix (no tool
definitions), so DeepSeek bills the whole history at the cache-miss price, 12-50x the hit price.
Instead we send exactly what the last agent request sent — same instructions, same tools, same
messages in the same order — with the compaction prompt appended as the final user message and
`tool_choice="none"` so the model cannot call a tool.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agent import debuglog, tokens
from agent.context import fixed_prefix_tokens, history_tokens, output_reserve
from agent.errors import CompactError
from agent.i18n import t
from agent.prefix import PrefixMismatch, joined_onto
from agent.summary import compaction_prompt, extract_summary, previous_summary
from agent.tiers import clear_tool_results, fit_messages

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage, ModelResponse

    from agent.state import AppState

# A request the provider still rejects as too long is retried this many times, smaller each time.
MAX_FIT_RETRIES = 3
SHRINK = 0.75


@dataclass
class SummaryReply:
    summary: str
    left_out: int
    input_tokens: int
    output_tokens: int
    cache_hit_tokens: int


def request_limit(state: AppState) -> int:
    """The largest compaction request: the window minus the summary's output reserve."""
    window = state.config.context_window
    return window - output_reserve(window)


async def request_summary(state: AppState, history: Sequence[ModelMessage], extra: str = "") -> SummaryReply:
    prompt = compaction_prompt(state.lang, extra, incremental=previous_summary(history) is not None)
    limit = request_limit(state)
    messages, left_out = fit_request(state, history, prompt, limit)
    for attempt in range(MAX_FIT_RETRIES + 1):
        try:
            response = await _summary_call(state, messages, prompt)
            break
        except Exception as exc:
            if not _too_long(exc) or attempt == MAX_FIT_RETRIES:
                raise
            limit = int(limit * SHRINK)
            debuglog.log("compact_too_long", attempt=attempt, new_limit=limit)
            messages, left_out = fit_request(state, history, prompt, limit)
    reply = _read_reply(state, response, left_out)
    if not reply.summary:
        raise CompactError(t("compact_empty", state.lang))
    return reply


def fit_request(
    state: AppState, history: Sequence[ModelMessage], prompt: str, limit: int
) -> tuple[list[ModelMessage], int]:
    """The full history when it fits (best for the cache); else the cheap tier, then the oldest
    messages left out (pairs intact) until it fits."""
    prompt_tokens = tokens.count_text(prompt)
    # The provider's own count of the last request tells whether the whole history fits, without
    # tokenizing a million tokens again (1.9 s on a resumed 1M-token session).
    if history_tokens(state, history) + prompt_tokens <= limit:
        return list(history), 0
    fixed = fixed_prefix_tokens(state) + prompt_tokens
    if fixed + tokens.count_messages(history) <= limit:
        return list(history), 0
    cleared, _saved = clear_tool_results(history, keep_tokens=limit // 4)
    return fit_messages(cleared, limit, fixed)


def _too_long(exc: BaseException) -> bool:
    from pydantic_ai.exceptions import ModelContextWindowExceededError, ModelHTTPError

    if isinstance(exc, ModelContextWindowExceededError):
        return True
    if isinstance(exc, ModelHTTPError) and exc.status_code in (400, 413):
        text = str(exc.body or exc.message).lower()
        return "context length" in text or "too long" in text or "maximum context" in text
    return False


def _rejects_tool_choice(exc: BaseException) -> bool:
    from pydantic_ai.exceptions import ModelHTTPError

    return isinstance(exc, ModelHTTPError) and exc.status_code == 400 and "tool_choice" in str(exc.body or exc)


async def _summary_call(state: AppState, messages: list[ModelMessage], prompt: str) -> ModelResponse:
    from agent.loop import get_agent

    agent = get_agent(state)
    settings: dict[str, Any] = {"tool_choice": "none", "max_tokens": output_reserve(state.config.context_window)}
    try:
        return await _first_response_reusing(agent, state, messages, prompt, settings)
    except Exception as exc:
        if not _rejects_tool_choice(exc):
            raise
    # The endpoint refuses tool_choice="none": ask without tools (the prefix changes; cache lost).
    debuglog.log("compact_fallback_no_tools", reason="endpoint rejected tool_choice=none")
    from pydantic_ai import Agent

    bare = Agent(agent.model, instructions=state.instructions)
    with joined_onto(None):
        return await _first_response(bare, state, messages, prompt, {"max_tokens": settings["max_tokens"]})


async def _first_response_reusing(
    agent: Any, state: AppState, messages: list, prompt: str, settings: dict
) -> ModelResponse:
    """Through pydantic-ai only the messages after the last request, when the history starts with
    the ones it was built from: the client puts that request's messages in front (agent.prefix)."""
    sent = state.recorder.covering(messages)
    if sent is not None:
        debuglog.log("compact_reuses_request", messages=len(sent.history), after=len(messages) - len(sent.history))
        try:
            with joined_onto(sent):
                return await _first_response(agent, state, messages[len(sent.history) :], prompt, settings)
        except PrefixMismatch as exc:
            debuglog.log("compact_prefix_mismatch", reason=str(exc))
    # The whole request, never joined onto what the turn in progress joins onto (agent.prefix.reuse).
    with joined_onto(None):
        return await _first_response(agent, state, messages, prompt, settings)


async def _first_response(agent: Any, state: AppState, messages: list, prompt: str, settings: dict) -> ModelResponse:
    """Run the agent up to its first model response and stop: tools are never executed."""
    async with agent.iter(prompt, message_history=messages, deps=state, model_settings=settings) as run:
        async for node in run:
            if agent.is_model_request_node(node):
                async with node.stream(run.ctx) as stream:
                    async for _event in stream:
                        pass
                return stream.response
    raise RuntimeError("the compaction request produced no response")


def _read_reply(state: AppState, response: ModelResponse, left_out: int) -> SummaryReply:
    from pydantic_ai.messages import TextPart, ToolCallPart

    from agent.loop import response_cache_hits

    usage = response.usage
    hits = response_cache_hits(response)
    stats = state.stats
    stats.compaction_tokens += usage.input_tokens + usage.output_tokens
    stats.requests += 1
    stats.input_tokens += usage.input_tokens
    stats.output_tokens += usage.output_tokens
    stats.cache_hit_tokens += hits
    stats.last_input_tokens, stats.last_cache_hit_tokens = usage.input_tokens, hits
    debuglog.log("compact_usage", input=usage.input_tokens, output=usage.output_tokens, cache_hit=hits)
    if any(isinstance(p, ToolCallPart) for p in response.parts):
        raise CompactError(t("compact_tool_call", state.lang))
    text = "".join(p.content for p in response.parts if isinstance(p, TextPart))
    return SummaryReply(extract_summary(text), left_out, usage.input_tokens, usage.output_tokens, hits)
