"""One user turn: run the agent, stream its events to the UI, append every message to the session.

The loop never prints. It emits `agent.events` and keeps `state.history` a history that the next
request accepts whatever happens (an error, Ctrl-C): every tool call keeps its result.
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agent import debuglog
from agent.events import (
    Notice,
    TextDelta,
    ThinkingDelta,
    ToolCallStarted,
    ToolResult,
    UsageUpdate,
    WaitingForModel,
)
from agent.state import billing
from agent.state.app import AppState
from agent.text.clean_text import clean_messages
from agent.text.i18n import t
from agent.turn.repair import ENDED, INTERRUPTED, repair
from agent.turn.run_state import Turn

if TYPE_CHECKING:
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelMessage, ModelResponse

    from agent.turn.guard import BeforeRequest

# The answer the user stopped with Ctrl-C, as the model sees it next time: it was asked, and cut off.
ANSWER_INTERRUPTED = "[Interrupted by the user: this answer was cut off here.]"


@dataclass
class TurnOutcome:
    ok: bool
    error: str | None = None
    cancelled: bool = False


_AGENT_LOCK = threading.Lock()


def get_agent(state: AppState) -> Agent[AppState, str]:
    """The agent for this state's model, built once: its instructions and tools never change,
    so every request of the session shares one cacheable prefix.

    The REPL builds it in a worker thread while the prompt is already up (agent.turn.warmup); the lock
    keeps a turn submitted meanwhile from building a second one."""
    with _AGENT_LOCK:
        if state.scratch.agent is None:
            _build_agent(state)
    return state.scratch.agent


def _build_agent(state: AppState) -> None:
    instructions(state)
    state.scratch.agent = new_agent(state)


def instructions(state: AppState) -> str:
    """The agent's instructions (the system prompt with the memory files), rendered once: byte-stable
    for the session, so every request shares one cacheable prefix; the compaction reads them, and
    the compact instructions read from the same files (`scratch.standing`)."""
    if not state.scratch.instructions:
        from agent.tools import memory_files

        found = memory_files.load(state.workspace)
        state.scratch.instructions = memory_files.instructions(state.workspace, state.lang, found)
        state.scratch.standing = memory_files.compact_instructions(state.workspace, state.config.settings, found)
    return state.scratch.instructions


def new_agent(state: AppState) -> Agent[AppState, str]:
    """An agent with this state's model, instructions and tools, recording into its recorder."""
    from pydantic_ai import Agent

    from agent.provider.model import build_model, model_settings
    from agent.tools.capabilities import Retries
    from agent.tools.toolset import active_tools

    return Agent(
        build_model(state.config),
        model_settings=model_settings(state.config),  # type: ignore[arg-type]
        instructions=state.scratch.instructions,
        deps_type=AppState,
        tools=active_tools(state.config),
        retries=3,
        # Retrying is told through the run's deps (`state.emit`, which the UI replaces after the agent is built).
        capabilities=[Retries()],
    )


def sync_history(state: AppState, messages: list[ModelMessage]) -> str | None:
    """Make `messages` the history and append what the session file does not have yet.

    A failed write (a full disk, a removed folder) must not end the turn: the history stays in
    memory, `persisted` stays where it was so the next append retries, and the reason is returned
    for the caller to show once.
    """
    # A lone surrogate cannot be saved, nor sent, nor counted (agent.text.clean_text). What the file
    # has was cleaned before it was saved: only the rest, or a turn at 8,000 messages spends 100 ms
    # on it (bench/overhead.py, "session append").
    state.transcript.update(messages)
    clean_messages(messages[state.transcript.saved :])  # update() kept the saved count to what still matches
    try:
        state.transcript.persist()
    except OSError as exc:
        debuglog.log("save_failed", error=str(exc))
        return t("save_failed", state.lang, error=exc.strerror or exc)
    return None


async def run_turn(
    state: AppState,
    user_input: str | None,
    prelude: list[ModelMessage] | None = None,
    *,
    before_request: BeforeRequest | None = None,
) -> TurnOutcome:
    """Run one turn. `prelude` are messages placed before the user's text (@-mention reads);
    `user_input` None: the last of them is the request (a Stop hook's framed message);
    `before_request` is called before each of its model requests (compaction mid-turn, agent.turn.guard).
    It ends in one place (`_ended`) whatever ends it: an error, or Ctrl-C (which is raised on)."""
    from pydantic_ai.messages import ModelRequest, UserPromptPart

    start = list(state.history)
    base = start + (prelude or [])
    prompt = [] if user_input is None else [ModelRequest(parts=[UserPromptPart(user_input)])]
    # Without a prompt pydantic-ai takes the last request out of the history and sends it as the run's
    # own: it comes back among the run's messages, so our base ends before it.
    turn = Turn(start, base if user_input is not None else base[:-1], asked=[*base, *prompt])
    try:
        await _run(state, turn, user_input, before_request)
    except asyncio.CancelledError as exc:
        _ended(state, turn, exc)
        raise
    except Exception as exc:  # noqa: BLE001 - every failure ends the turn the same way, in one place
        return _ended(state, turn, exc)
    return TurnOutcome(ok=True)


async def _run(state: AppState, turn: Turn, user_input: str | None, before_request: BeforeRequest | None) -> None:
    """The design's loop: the model's request, its tools, until it answers; every message saved as it comes."""
    from pydantic_ai.usage import UsageLimits

    from agent.provider import prefix
    from agent.tools import mcp_offers
    from agent.tools.capabilities import ToolGate, TurnGuard
    from agent.turn.guard import Guard

    agent = get_agent(state)
    # pydantic-ai builds only what follows the last request; the client puts that in front.
    # What the run is given: the base, and without a prompt the request it sends (turn.asked).
    given, context = prefix.reuse(state.scratch.recorder, turn.base if user_input is not None else turn.asked)
    # pydantic-ai's default UsageLimits stop a run at 50 requests: the limit is the user's.
    limits = UsageLimits(request_limit=state.config.max_requests)
    # The MCP servers that are up now (agent.tools.mcp_servers), and the tools that read their resources
    # (agent.tools.mcp_offers): a server may come or go between turns.
    toolsets = state.mcp.ready_toolsets() + mcp_offers.toolsets(state)
    async with agent.iter(
        user_input,
        message_history=given,
        deps=state,
        usage_limits=limits,
        toolsets=toolsets or None,
        model_settings=prefix.settings(context),  # type: ignore[arg-type]
        # The turn's guard, and the gate every tool call of a turn passes (hooks,
        # permission rules): a compaction's run has neither.
        capabilities=[TurnGuard(Guard(before_request, context, turn)), ToolGate()],
    ) as run:
        turn.run = run
        async for node in run:
            if turn.offset < 0 and not agent.is_user_prompt_node(node):
                # The run's own messages start after its cleaned copy of the history we passed.
                turn.offset = len(run.all_messages())
            if agent.is_model_request_node(node):
                state.emit(WaitingForModel(_waiting_label(state)))
                turn.partial.clear()
                turn.in_flight = True
                async with node.stream(run.ctx) as stream:
                    async for event in stream:
                        if (text := _emit_stream_event(state, event)) is not None:
                            turn.partial.append(text)
                    turn.in_flight = False
                    _record_usage(state, stream.response)
                turn.partial.clear()
                if stream.response.finish_reason == "length":
                    # Cut at max_tokens (ours or the server's -n): never shown as if complete.
                    state.emit(Notice(t("answer_cut", state.lang, n=stream.response.usage.output_tokens), "warn"))
                turn.got_response = True
            elif agent.is_call_tools_node(node):
                async with node.stream(run.ctx) as stream:
                    async for event in stream:
                        _emit_tool_event(state, event, turn.results)
            _save(state, turn, turn.ours())


def _ended(state: AppState, turn: Turn, error: BaseException) -> TurnOutcome:
    """How a turn that did not finish ends. Ctrl-C: the user's message stays (the model learns it was
    asked), with what completed, every dangling tool call closed, and an answer cut off (or none yet)
    marked as interrupted. An error: what completed stays, every dangling call gets a result; if
    nothing came back the turn never happened (the file loses what it saved of it, an @-mention's
    read; the user's text stays in the input history)."""
    from pydantic_ai.messages import ModelResponse, TextPart

    if isinstance(error, asyncio.CancelledError):
        if turn.in_flight:
            # The server got it and worked on it (it may have billed it): the totals say so.
            state.stats.requests += 1
        messages = repair(turn.ours() if turn.offset >= 0 else turn.asked, turn.results, INTERRUPTED)
        partial = "".join(turn.partial)
        if partial.strip() or not turn.got_response:
            text = f"{partial}\n\n{ANSWER_INTERRUPTED}" if partial.strip() else ANSWER_INTERRUPTED
            messages = messages + [ModelResponse(parts=[TextPart(text)])]
        _save(state, turn, messages)
        return TurnOutcome(ok=False, cancelled=True)
    from agent.provider.error_text import describe_error

    message = describe_error(error, state.config)
    debuglog.log("turn_error", error=repr(error)[:500])
    state.emit(Notice(message, level="error"))
    _save(state, turn, repair(turn.ours(), turn.results, ENDED) if turn.got_response else turn.start)
    return TurnOutcome(ok=False, error=message)


def _save(state: AppState, turn: Turn, messages: list[ModelMessage]) -> None:
    # One notice per turn, not one per message, while the disk stays full.
    if (error := sync_history(state, messages)) and not turn.save_errors:
        turn.save_errors.append(error)
        state.emit(Notice(error, level="warn"))


def keep_interrupted_before_turn(state: AppState, user_input: str, prelude: list[ModelMessage]) -> None:
    """Ctrl-C before the turn's run began (in the compaction before it): the user's message joins
    the history all the same, with its attachments and an answer marked interrupted, as when Ctrl-C
    cuts a run off."""
    from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart

    asked = [
        *prelude,
        ModelRequest(parts=[UserPromptPart(user_input)]),
        ModelResponse(parts=[TextPart(ANSWER_INTERRUPTED)]),
    ]
    sync_history(state, list(state.history) + asked)


def _emit_stream_event(state: AppState, event: Any) -> str | None:
    """Emit a streamed delta; returns the answer's text in it, if any."""
    from pydantic_ai.messages import (
        PartDeltaEvent,
        PartStartEvent,
        TextPart,
        TextPartDelta,
        ThinkingPart,
        ThinkingPartDelta,
    )

    if isinstance(event, PartStartEvent):
        if isinstance(event.part, TextPart) and event.part.content:
            state.emit(TextDelta(event.part.content))
            return event.part.content
        if isinstance(event.part, ThinkingPart) and event.part.content:
            state.emit(ThinkingDelta(event.part.content))
    elif isinstance(event, PartDeltaEvent):
        if isinstance(event.delta, TextPartDelta) and event.delta.content_delta:
            state.emit(TextDelta(event.delta.content_delta))
            return event.delta.content_delta
        if isinstance(event.delta, ThinkingPartDelta) and event.delta.content_delta:
            state.emit(ThinkingDelta(event.delta.content_delta))
    return None


def _emit_tool_event(state: AppState, event: Any, results: dict[str, Any]) -> None:
    from pydantic_ai.messages import FunctionToolCallEvent, FunctionToolResultEvent, ToolReturnPart

    from agent.marks import is_error_text

    if isinstance(event, FunctionToolCallEvent):
        args = event.part.args_as_dict() if event.args_valid is not False else {}
        state.emit(ToolCallStarted(event.part.tool_call_id, event.part.tool_name, args))
    elif isinstance(event, FunctionToolResultEvent):
        part = event.part
        results[part.tool_call_id] = part
        content = part.model_response_str() if isinstance(part, ToolReturnPart) else part.model_response()
        meta = getattr(part, "metadata", None)
        diff = meta.get("diff") if isinstance(meta, dict) else None
        is_error = not isinstance(part, ToolReturnPart) or is_error_text(content)
        state.emit(ToolResult(part.tool_call_id, part.tool_name, content, is_error=is_error, diff=diff))


def _waiting_label(state: AppState) -> str:
    """For a local server, what it is doing while nothing comes: processing the prompt."""
    from agent.provider.model import is_local

    if not is_local(state.config):
        return ""
    from agent.compaction import context_tokens

    return t("spin_local_prompt", state.lang, n=context_tokens(state))


def _record_usage(state: AppState, response: ModelResponse) -> None:
    usage = response.usage
    stats = state.stats
    hits = stats.add(usage)
    stats.usage_missing = not usage.input_tokens
    billing.bill(stats, state.config, response, hits)
    sent = state.scratch.recorder.last  # the request this response answers
    if sent is not None:
        from agent.compaction import measured

        measured(state, sent.history, usage.input_tokens)
    debuglog.log("usage", input=usage.input_tokens, output=usage.output_tokens, cache_hit=hits)
    state.emit(UsageUpdate(usage.input_tokens, usage.output_tokens, hits, usage.input_tokens + usage.output_tokens))
