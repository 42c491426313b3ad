"""The one LLM call of a compaction, shaped to be served from the provider's prefix cache, and which
part of the history it holds.

A separate agent without tools would change the request's prefix, and DeepSeek would bill the whole
history at the cache-miss price, 12-50x the hit price. So the request is exactly what the turn's last
request sent (same instructions, tools and tool_choice, "auto": DeepSeek refuses any other in
thinking mode and Ollama ignores it), with the compaction prompt as the final user message. A tool
the model calls anyway is answered "tools are off" (agent.tools.capabilities.ToolsOff), never run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import agent.compaction.fit as fit
import agent.compaction.watermark as watermark
from agent import debuglog
from agent.compaction.rebuild import clear_tool_results, last_response, starts_cleanly
from agent.compaction.summary import (
    SummaryReply,
    extract_summary,
    has_next_step,
    is_summary_shaped,
    missing_user_messages,
    user_messages,
)
from agent.compaction.watermark import Figures, history_tokens, output_reserve, prefix_tokens
from agent.errors import CompactError
from agent.events import Notice
from agent.provider.prefix import PrefixMismatch, RequestContext, RequestRecorder, SentRequest, starts_with
from agent.provider.prefix import settings as prefix_settings
from agent.provider.server_errors import is_too_long
from agent.text.i18n import t
from agent.text.prompts import load_prompt
from agent.tokens import count as tokens

if TYPE_CHECKING:
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelMessage, ModelResponse

    from agent.state.app import AppState

# A request the provider still rejects as too long is fitted again, smaller each time, this often.
MAX_FIT_RETRIES, SHRINK = 3, 0.75
# Rounds of tool calls answered "tools are off" before the request is sent without tools.
MAX_TOOL_ROUNDS = 3
# What the last request did not hold may join the summary request up to this many tokens (billed
# uncached once); more (a long paste, a big read) is kept verbatim after the summary instead: the
# request after the compaction sends it anyway, and in the summary request it would be paid twice.
UNSENT_IN_SUMMARY = 1_000


class NotASummary(CompactError):
    """The reply is not a whole summary (_read_reply says why): asked once more, firmly."""


# --- which part of the history the request holds -----------------------------------------------


@dataclass(frozen=True)
class Cached:
    """What the provider caches of a history: its first `length` messages (None: nothing known).
    `after_undo`: the history a /compact undo put back, sent by the compaction it undid. `settled`:
    the last request of this process holds them, not a primed or a resumed session's guess."""

    length: int | None
    after_undo: bool = False
    settled: bool = True


def cached(recorder: RequestRecorder, history: Sequence[ModelMessage]) -> Cached:
    sent = recorder.covering(history)
    if sent is not None and not sent.stale and not sent.primed:
        return Cached(len(sent.history))
    if sent is None and recorder.restored and starts_with(history, recorder.restored):
        return Cached(len(recorder.restored), after_undo=True, settled=False)
    if not recorder.sent_any and (sent is None or sent.primed):
        # A resumed session: the provider caches what the process before sent last, everything
        # before its answer.
        return Cached(last_response(history), settled=False)
    return Cached(None)


def sent_split(
    history: Sequence[ModelMessage], figs: Figures, seen: Cached, prompt: str, keep_unsent: bool = True
) -> int | None:
    """Where to cut when the whole history no longer fits a compaction request or more than
    UNSENT_IN_SUMMARY of it was never sent (`keep_unsent` False, /compact: the user asked for all of
    it): after the messages the provider caches, when they fit. Their summary is served from the
    cache and the rest is kept verbatim after it (cut to the room of the tail and the restored files);
    clearing results or leaving out the oldest messages would change the prefix and bill the whole
    request at the miss price. After an undo's restored history, the turns made since must fit after
    the summary (the user's words are never cut): else the request also takes as few of them as leave
    a tail that fits."""
    n = seen.length
    if n is None or not 0 < n < len(history):
        return None
    prompt_tokens, limit = tokens.count_text(prompt), figs.request_limit
    whole = figs.count(history) + prompt_tokens
    if figs.fits(whole, limit) and (
        not seen.settled or not keep_unsent or tokens.count_messages(history[n:]) <= UNSENT_IN_SUMMARY
    ):
        return None
    total = figs.count(history[:n]) + prompt_tokens
    if not figs.fits(total, limit):
        return None
    room = figs.budgets.tail + figs.budgets.restore
    if not seen.after_undo or tokens.count_messages(fit.cut_to_fit(history[n:], room)) <= room:
        return n
    for k in range(n + 1, len(history)):
        total += tokens.count_message(history[k - 1])
        if not figs.fits(total, limit):
            return None
        if starts_cleanly(history[k]) and tokens.count_messages(fit.cut_to_fit(history[k:], room)) <= room:
            return k
    return None


def fit_request(
    state: AppState, history: Sequence[ModelMessage], prompt: str, limit: int
) -> tuple[list[ModelMessage], int]:
    """The full history when it fits (best for the cache); else the cheap tier, any text larger than
    half the room cut, the oldest messages left out (pairs intact), then the largest texts cut, until
    it fits `limit` by the server's count (agent.compaction.watermark, the learned margin)."""
    prompt_tokens, room = tokens.count_text(prompt), watermark.room(state, limit)
    # The provider's own count of the last request says whether it all fits, without tokenizing a
    # million tokens again.
    fixed = prefix_tokens(state) + prompt_tokens
    if history_tokens(state, history) + prompt_tokens <= room or fixed + tokens.count_messages(history) <= room:
        return list(history), 0
    cleared, _saved = clear_tool_results(history, keep_tokens=room // 4)
    # One answer or result larger than the window would otherwise be all the request holds.
    kept, left_out = fit.fit_messages(fit.cut_each(cleared, max(0, room - fixed) // 2), room, fixed)
    return fit.cut_to_fit(kept, room - fixed), left_out


# --- the call -----------------------------------------------------------------------------------


async def request_summary(
    state: AppState, agent: Agent[AppState, str], history: Sequence[ModelMessage], prompt: str
) -> SummaryReply:
    """The summary of `history`, asked of the turn's own `agent` (given by the caller: the compaction
    never imports the turn), whose instructions and tools make the request's prefix the turn's, byte
    for byte. A request refused as too long is never sent again as it was: the margin grows by the
    server's own figures and the request is fitted anew."""
    limit = state.config.context_window - output_reserve(state.config.context_window)
    messages, left_out = fit_request(state, history, prompt, limit)
    for attempt in range(MAX_FIT_RETRIES + 1):
        try:
            responses = await _call(agent, state, messages, prompt)
            break
        except Exception as exc:
            if not is_too_long(exc) or attempt == MAX_FIT_RETRIES:
                raise
            watermark.refused(state, history_tokens(state, messages) + tokens.count_text(prompt), exc)
            smaller, left_out = fit_request(state, history, prompt, limit)
            while _same(smaller, messages) and limit > prefix_tokens(state):
                limit = int(limit * SHRINK)
                smaller, left_out = fit_request(state, history, prompt, limit)
            if _same(smaller, messages):
                raise
            debuglog.log("compact_too_long", attempt=attempt, ratio=round(watermark.ratio(state), 4))
            messages = smaller
    try:
        reply = _read_reply(state, responses, left_out)
    except NotASummary as exc:  # a greeting, a cut or partial summary: asked once more, firmly; a second one fails it
        debuglog.log("compact_not_a_summary", reason=str(exc))
        firmer = prompt + "\n\n" + load_prompt("compact_firm", state.lang)
        reply = _read_reply(state, await _call(agent, state, messages, firmer), left_out)
    if state.stats.usage_missing and left_out == 0:
        # A server without usage (Ollama) drops the oldest messages past its own context size without
        # a word: a summary that quotes the newest request but not the first one is the trace it leaves.
        users = user_messages(history)
        if len(users) > 1 and missing_user_messages(reply.summary, [users[0], users[-1]], state.lang) == users[:1]:
            state.emit(Notice(t("server_cut_context", state.lang, window=state.config.context_window), level="warn"))
    return reply


def _same(a: Sequence[ModelMessage], b: Sequence[ModelMessage]) -> bool:
    # By value: a refit may rebuild messages (a cut, a cleared result) into equal copies.
    return len(a) == len(b) and all(x is y or x == y for x, y in zip(a, b, strict=True))


async def _call(
    agent: Agent[AppState, str], state: AppState, messages: list[ModelMessage], prompt: str
) -> list[ModelResponse]:
    """No tool_choice: the same as an ordinary turn's. A server that refuses tool calling itself (vLLM
    without --enable-auto-tool-choice), or a model that keeps calling tools, is asked without tools:
    the prefix changes (the cache is lost) but a summary comes."""
    from pydantic_ai import Agent
    from pydantic_ai.exceptions import ModelHTTPError

    from agent.config import max_output
    from agent.provider.model import model_settings
    from agent.tools.capabilities import Retries

    request_tokens = history_tokens(state, messages) + tokens.count_text(prompt)
    # In thinking mode max_tokens covers the reasoning too: as much again for it, as far as the window
    # has room after the request (never below the reserve the request was fitted to leave) and the
    # model's ceiling allows.
    window = state.config.context_window
    reserve = output_reserve(window)
    max_tokens = max(reserve, min(2 * reserve if state.config.thinks else reserve, window - request_tokens))
    settings: dict[str, Any] = {"max_tokens": min(max_tokens, max_output(state.config.model) or max_tokens)}
    try:
        responses = await _responses_reusing(agent, state, messages, prompt, settings)
        watermark.observe(state, request_tokens, responses[0].usage.input_tokens)
        if not responses[-1].tool_calls:
            return responses
        debuglog.log("compact_kept_calling_tools", rounds=len(responses))
        state.emit(Notice(t("compact_kept_calling", state.lang, n=len(responses)), level="warn"))
    except ModelHTTPError as exc:
        text = str(exc.body or exc).lower()
        if exc.status_code != 400 or "tool" not in text or "choice" not in text:
            raise
        responses = []
        debuglog.log("compact_fallback_no_tools", reason=str(exc)[:300])
    bare = Agent(
        agent.model,
        instructions=state.scratch.instructions,
        model_settings=model_settings(state.config),
        capabilities=[Retries()],
    )
    return responses + await _responses(bare, state, messages, prompt, settings)


async def _responses_reusing(
    agent: Any, state: AppState, messages: list, prompt: str, settings: dict
) -> list[ModelResponse]:
    """Through pydantic-ai only the messages after the last request, when the history starts with
    the ones it was built from: the client puts that request's messages in front (agent.provider.prefix)."""
    sent = state.scratch.recorder.covering(messages)
    if sent is not None:
        debuglog.log("compact_reuses_request", messages=len(sent.history), after=len(messages) - len(sent.history))
        try:
            return await _responses(agent, state, messages[len(sent.history) :], prompt, settings, join=sent)
        except PrefixMismatch as exc:
            debuglog.log("compact_prefix_mismatch", reason=str(exc))
    return await _responses(agent, state, messages, prompt, settings)


async def _responses(
    agent: Any, state: AppState, messages: list, prompt: str, settings: dict, join: SentRequest | None = None
) -> list[ModelResponse]:
    """Run the agent until a response without tool calls, at most MAX_TOOL_ROUNDS + 1 requests, its
    requests joined onto `join`'s messages or sent whole, never recorded as the turn's. A tool call
    is answered, never run; the next request extends the previous one, so the cache still holds."""
    from agent.tools.capabilities import ToolsOff

    run_settings = prefix_settings(RequestContext(recorder=None, join=join), settings)
    responses: list[ModelResponse] = []
    async with agent.iter(
        prompt, message_history=messages, deps=state, model_settings=run_settings, capabilities=[ToolsOff()]
    ) as run:
        async for node in run:
            if agent.is_model_request_node(node):
                async with node.stream(run.ctx) as stream:
                    async for _event in stream:
                        pass
                responses.append(stream.response)
                if not stream.response.tool_calls or len(responses) > MAX_TOOL_ROUNDS:
                    return responses
    if not responses:
        raise RuntimeError("the compaction request produced no response")
    return responses


def _read_reply(state: AppState, responses: list[ModelResponse], left_out: int) -> SummaryReply:
    usages, total_hits = [r.usage for r in responses], 0
    for usage in usages:
        hits = state.stats.add(usage)
        total_hits += hits
        state.stats.compaction_tokens += usage.input_tokens + usage.output_tokens
        debuglog.log("compact_usage", input=usage.input_tokens, output=usage.output_tokens, cache_hit=hits)
    last = responses[-1]
    if last.tool_calls:
        raise CompactError(t("compact_tool_call", state.lang))
    if last.finish_reason == "length":
        # A summary cut off mid-way would lose whatever its missing sections held: never committed.
        key = "compact_cut_short" if state.config.thinks else "compact_cut_short_plain"
        raise NotASummary(t(key, state.lang, tokens=last.usage.output_tokens))
    text = "".join(p.content for p in last.parts if p.part_kind == "text")
    if not is_summary_shaped(text):
        raise NotASummary(t("compact_not_a_summary", state.lang, chars=len(text)))
    total_in, total_out = sum(u.input_tokens for u in usages), sum(u.output_tokens for u in usages)
    reply = SummaryReply(extract_summary(text), left_out, total_in, total_out, total_hits)
    if not reply.summary:
        raise NotASummary(t("compact_empty", state.lang))
    if not has_next_step(reply.summary):
        raise NotASummary(t("compact_no_next_step", state.lang))
    return reply
