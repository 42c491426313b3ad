"""The one LLM call of a compaction, shaped to be served from the provider's prefix cache.

The design used a separate agent without tools. That changes the request's prefix (no tool
definitions), so DeepSeek bills the whole history at the cache-miss price, 12-50x the hit price.
Instead we send exactly what the last agent request sent — same instructions, same tools, same
tool_choice (none given, i.e. "auto"), same messages in the same order — with the compaction prompt
appended as the final user message. A special tool_choice would be refused by DeepSeek in thinking
mode and ignored by Ollama. A tool the model calls anyway gets "tools are off" for its result.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from agent import debuglog
from agent.compaction import margin, trim
from agent.compaction.context import fixed_prefix_tokens, history_tokens, output_reserve
from agent.compaction.summary import SummaryReply, compaction_prompt, extract_summary, previous_summary
from agent.compaction.summary_shape import firmer_prompt, is_summary_shaped
from agent.compaction.tiers import clear_tool_results, fit_messages
from agent.errors import CompactError
from agent.events import Notice
from agent.provider.prefix import PrefixMismatch, RequestContext, SentRequest
from agent.provider.prefix import settings as prefix_settings
from agent.text.i18n import t
from agent.tokens import count as tokens

if TYPE_CHECKING:
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelMessage, ModelResponse

    from agent.state.app import AppState

# A request the provider still rejects as too long is retried this many times, smaller each time.
MAX_FIT_RETRIES = 3
SHRINK = 0.75
# Rounds of tool calls answered "tools are off" before the request is sent without tools.
MAX_TOOL_ROUNDS = 3


class NotASummary(CompactError):
    """The reply has none of a summary's shape (agent.compaction.summary_shape)."""


def request_limit(state: AppState) -> int:
    """The largest compaction request: the window minus the summary's output reserve."""
    window = state.config.context_window
    return window - output_reserve(window)


async def request_summary(
    state: AppState, agent: Agent[AppState, str], history: Sequence[ModelMessage], extra: str = ""
) -> SummaryReply:
    """The summary of `history`, asked of `agent`: the turn's own agent (agent.turn.loop.get_agent, which the
    caller passes in, so the compaction never imports the turn), whose instructions and tools make the
    request's prefix the turn's, byte for byte: the provider serves it from its cache."""
    prompt = compaction_prompt(state.lang, extra, incremental=previous_summary(history) is not None)
    limit = request_limit(state)
    messages, left_out = fit_request(state, history, prompt, limit)
    for attempt in range(MAX_FIT_RETRIES + 1):
        try:
            responses = await _summary_call(agent, state, messages, prompt)
            break
        except Exception as exc:
            if not margin.too_long(exc) or attempt == MAX_FIT_RETRIES:
                raise
            # Never the same request again: the margin grows by the server's own figures, and the
            # request is fitted anew; one that cannot be made smaller is not sent again.
            margin.refused(state, _estimate(state, messages, prompt), exc)
            smaller, left_out = fit_request(state, history, prompt, limit)
            while _same(smaller, messages) and limit > fixed_prefix_tokens(state):
                limit = int(limit * SHRINK)
                smaller, left_out = fit_request(state, history, prompt, limit)
            if _same(smaller, messages):
                raise
            debuglog.log("compact_too_long", attempt=attempt, ratio=round(margin.ratio(state), 4))
            messages = smaller
    try:
        reply = _read_reply(state, responses, left_out)
    except NotASummary:  # a greeting, a question: asked once more, firmly; a second one fails the compaction
        debuglog.log("compact_not_a_summary")
        reply = _read_reply(state, await _summary_call(agent, state, messages, firmer_prompt(prompt, state.lang)),
                            left_out)
    if not reply.summary:
        raise CompactError(t("compact_empty", state.lang))
    if state.stats.usage_missing and left_out == 0:
        _warn_if_cut_by_the_server(state, history, reply.summary)
    return reply


def _estimate(state: AppState, messages: Sequence[ModelMessage], prompt: str) -> int:
    return history_tokens(state, messages) + tokens.count_text(prompt)


def _same(a: Sequence[ModelMessage], b: Sequence[ModelMessage]) -> bool:
    # By value, not identity: a refit may rebuild messages (a cut, a cleared result) into equal
    # copies, and the same request would be sent again (the fuzzer's 16k seed 19: four times).
    return len(a) == len(b) and all(x is y or x == y for x, y in zip(a, b, strict=True))


# What the last request did not hold may join the summary request up to this many tokens (billed
# uncached once); more (a long paste, a big read) is kept verbatim after the summary instead, since
# the request after the compaction sends it anyway: in the summary request it would be paid twice
# (the fuzzer's 32k seeds: a 20k-token paste took a summary request to 25% cached).
UNSENT_IN_SUMMARY = 1_000


def sent_split(
    state: AppState, history: Sequence[ModelMessage], extra: str = "", keep_unsent: bool = True
) -> int | None:
    """Where to cut when the whole history no longer fits a compaction request, or when much of it
    was never sent (UNSENT_IN_SUMMARY; not for /compact, `keep_unsent` False: asked to compact, the
    user wants all of it summarized, and a long answer kept whole would not shrink it): after the
    messages the last request was built from, when that start fits. That start is what the provider
    has cached, so its summary is served from the cache, and the rest is kept verbatim after the
    summary (cut to the room of the tail and the restored files when it is larger: `tail_budget`);
    clearing tool results or leaving out the oldest messages (fit_request) would change the prefix
    and bill the whole request at the miss price (issue 14 measured 3-25% cached; issue 20 8-23%
    where the tail was too large to keep whole and this gave up)."""

    from agent.compaction.tiers import last_response
    from agent.provider.prefix import starts_with

    recorder = state.scratch.recorder
    sent, undone = recorder.covering(history), False
    if sent is not None and not sent.stale and not sent.primed:
        n = len(sent.history)
    elif sent is None and recorder.restored and starts_with(history, recorder.restored):
        # The history a /compact undo put back, sent by the compaction undone; the turns made since
        # follow it, and must fit after the summary (below).
        n, undone = len(recorder.restored), True
    elif not recorder.sent_any and (sent is None or sent.primed):
        # A resumed session's first compaction: the provider caches what the process before sent
        # last, everything before its answer (the fuzzer's --continue: 20% cached, a long answer
        # after the last request made the summary request clear tool results instead).
        n = last_response(history)
    else:
        return None
    if not 0 < n < len(history):
        return None
    prompt = compaction_prompt(state.lang, extra, incremental=previous_summary(history) is not None)
    prompt_tokens, limit = tokens.count_text(prompt), request_limit(state)
    if margin.fits(state, history_tokens(state, history) + prompt_tokens, limit) and (
        sent is None or sent.primed or not keep_unsent or tokens.count_messages(history[n:]) <= UNSENT_IN_SUMMARY
    ):
        # The whole history fits, and what the cache lacks is little, or this is a resumed session's
        # (whose primed request, agent.turn.warmup, builds it fast): summarize it all.
        return None
    if not margin.fits(state, history_tokens(state, history[:n]) + prompt_tokens, limit):
        return None
    # After the last request, what follows is this turn's (a big read, an answer): kept, cut as far
    # as it goes. After an undo's restored history, the turns made since must fit after the summary
    # (the user's words are never cut): when they do not, the summary request takes the first of
    # them too, after the cached start, as few as leave a tail that fits.
    room = tail_budget(state)
    if not undone or _tail_fits(history[n:], room):
        return n
    return _shortest_fitting_tail(state, history, n, prompt_tokens, limit, room)


def _tail_fits(tail: Sequence[ModelMessage], room: int) -> bool:
    return tokens.count_messages(trim.cut_to_fit(tail, room)) <= room


def _shortest_fitting_tail(state: AppState, history: Sequence[ModelMessage], n: int, prompt_tokens: int,
                           limit: int, room: int) -> int | None:
    """The first cut after `n` whose tail fits `room` while the request up to it fits `limit`."""
    from agent.compaction.tiers import starts_cleanly

    total = history_tokens(state, history[:n]) + prompt_tokens
    for k in range(n + 1, len(history)):
        total += tokens.count_message(history[k - 1])
        if not margin.fits(state, total, limit):
            return None
        if starts_cleanly(history[k]) and _tail_fits(history[k:], room):
            return k
    return None


def tail_budget(state: AppState) -> int:
    """What may follow the summary verbatim after a `sent_split` (the kept tail and the files)."""
    from agent.compaction.budgets import for_state as budgets_for

    plan = budgets_for(state)
    return plan.tail + plan.restore


def _warn_if_cut_by_the_server(state: AppState, history: Sequence[ModelMessage], summary: str) -> None:
    """A server without usage (Ollama) drops the oldest messages past its own context size without a
    word. A summary that knows the newest request but not the first one is the trace it leaves."""
    from agent.compaction.summary import missing_user_messages, user_messages

    users = user_messages(history)
    if len(users) < 2 or missing_user_messages(summary, users[-1:], state.lang):
        return
    if missing_user_messages(summary, users[:1], state.lang):
        state.emit(Notice(t("server_cut_context", state.lang, window=state.config.context_window), level="warn"))


def fit_request(
    state: AppState, history: Sequence[ModelMessage], prompt: str, limit: int
) -> tuple[list[ModelMessage], int]:
    """The full history when it fits (best for the cache); else the cheap tier, any one text larger
    than half the room cut, then the oldest messages left out (pairs intact), then the largest texts
    cut, until it fits `limit` by the server's count (agent.compaction.margin)."""
    prompt_tokens = tokens.count_text(prompt)
    room = margin.room(state, limit)
    # The provider's own count of the last request tells whether the whole history fits, without
    # tokenizing a million tokens again (1.9 s on a resumed 1M-token session).
    if history_tokens(state, history) + prompt_tokens <= room:
        return list(history), 0
    fixed = fixed_prefix_tokens(state) + prompt_tokens
    if fixed + tokens.count_messages(history) <= room:
        return list(history), 0
    cleared, _saved = clear_tool_results(history, keep_tokens=room // 4)
    # One answer or result larger than the window would otherwise be all the request holds.
    cleared = trim.cut_each(cleared, max(0, room - fixed) // 2)
    kept, left_out = fit_messages(cleared, room, fixed)
    return trim.cut_to_fit(kept, room - fixed), left_out


def _rejects_tools(exc: BaseException) -> bool:
    """A 400 about tool calling itself (vLLM started without --enable-auto-tool-choice)."""
    from pydantic_ai.exceptions import ModelHTTPError

    return isinstance(exc, ModelHTTPError) and exc.status_code == 400 and "tool" in str(exc.body or exc).lower() \
        and "choice" in str(exc.body or exc).lower()


def summary_max_tokens(state: AppState, request_tokens: int = 0) -> int:
    """The summary's output budget. In thinking mode max_tokens covers the reasoning too: give the
    reasoning as much again, as far as the window has room after the request (never below the
    summary's own reserve, which the request was fitted to leave) and the model's ceiling allows."""
    from agent.config import max_output

    window = state.config.context_window
    reserve = output_reserve(window)
    budget = 2 * reserve if state.config.thinks else reserve
    budget = max(reserve, min(budget, window - request_tokens))
    ceiling = max_output(state.config.model)
    return min(budget, ceiling) if ceiling else budget


async def _summary_call(
    agent: Agent[AppState, str], state: AppState, messages: list[ModelMessage], prompt: str
) -> list[ModelResponse]:
    from pydantic_ai import Agent

    from agent.provider.model import model_settings
    from agent.provider.retries import Retries

    # No tool_choice: the same as an ordinary turn's, so the prefix is the turn's byte for byte
    # whatever the server supports (DeepSeek refuses all but "auto" in thinking mode).
    request_tokens = history_tokens(state, messages) + tokens.count_text(prompt)
    settings: dict[str, Any] = {"max_tokens": summary_max_tokens(state, request_tokens)}
    try:
        responses = await _responses_reusing(agent, state, messages, prompt, settings)
        margin.observe(state, request_tokens, responses[0].usage.input_tokens)
        if not _calls_tools(responses[-1]):
            return responses
        debuglog.log("compact_kept_calling_tools", rounds=len(responses))
        state.emit(Notice(t("compact_kept_calling", state.lang, n=len(responses)), level="warn"))
    except Exception as exc:
        if not _rejects_tools(exc):
            raise
        responses = []
        debuglog.log("compact_fallback_no_tools", reason=str(exc)[:300])
    # Ask without tools: the prefix changes (the cache is lost) but a summary comes.
    bare = Agent(agent.model, instructions=state.scratch.instructions, model_settings=model_settings(state.config),
                 capabilities=[Retries()])
    return responses + await _responses(bare, state, messages, prompt, settings)


def ToolsOff() -> Any:  # noqa: N802 - reads as a class where the run is started
    """A compaction's request carries the tools (so its prefix is the turn's), and a model may call one
    anyway (Ollama ignores tool_choice): such a call is answered, never run."""
    from pydantic_ai.capabilities import AbstractCapability

    class _ToolsOff(AbstractCapability):
        async def wrap_tool_execute(self, ctx: Any, *, call: Any, tool_def: Any, args: Any, handler: Any) -> Any:
            return t("compact_tools_off", ctx.deps.lang)

    return _ToolsOff()


def _calls_tools(response: ModelResponse) -> bool:
    from pydantic_ai.messages import ToolCallPart

    return any(isinstance(p, ToolCallPart) for p in response.parts)


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
    """Run the agent until a response without tool calls, at most MAX_TOOL_ROUNDS + 1 requests.

    Its requests start with `join`'s messages (agent.provider.prefix), or are sent whole; they are
    never recorded as the turn's. A tool call is answered with "tools are off, write the summary now"
    (`ToolsOff`), never run; the next request extends the previous one, so the prefix cache still holds."""
    run_settings = prefix_settings(RequestContext(recorder=None, join=join), settings)
    responses: list[ModelResponse] = []
    async with agent.iter(prompt, message_history=messages, deps=state, model_settings=run_settings,
                          capabilities=[ToolsOff()]) as run:
        async for node in run:
            if agent.is_model_request_node(node):
                async with node.stream(run.ctx) as stream:
                    async for _event in stream:
                        pass
                responses.append(stream.response)
                if not _calls_tools(stream.response) or len(responses) > MAX_TOOL_ROUNDS:
                    return responses
    if not responses:
        raise RuntimeError("the compaction request produced no response")
    return responses


def _read_reply(state: AppState, responses: list[ModelResponse], left_out: int) -> SummaryReply:
    from pydantic_ai.messages import TextPart

    stats = state.stats
    total_in = total_out = total_hits = 0
    for response in responses:
        usage = response.usage
        hits = stats.add(usage)
        stats.compaction_tokens += usage.input_tokens + usage.output_tokens
        total_in, total_out, total_hits = total_in + usage.input_tokens, total_out + usage.output_tokens, \
            total_hits + hits
        debuglog.log("compact_usage", input=usage.input_tokens, output=usage.output_tokens, cache_hit=hits)
    last = responses[-1]
    if _calls_tools(last):
        raise CompactError(t("compact_tool_call", state.lang))
    if last.finish_reason == "length":
        # A summary cut off mid-way would lose whatever its missing sections held: never commit it.
        # --thinking off is advice only for a model that thinks.
        key = "compact_cut_short" if state.config.thinks else "compact_cut_short_plain"
        raise CompactError(t(key, state.lang, tokens=last.usage.output_tokens))
    text = "".join(p.content for p in last.parts if isinstance(p, TextPart))
    if not is_summary_shaped(text):
        raise NotASummary(t("compact_not_a_summary", state.lang, chars=len(text)))
    return SummaryReply(extract_summary(text), left_out, total_in, total_out, total_hits)
