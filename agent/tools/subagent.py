"""The `task` tool: a self-contained job handed to a sub-agent with a fresh context, so that the
parent's context grows by the report only, not by everything the job read.

The sub-agent runs the same model with the parent's instructions plus prompts/subagent.*.md, the
tools the parent chose (read-only by default), the same approval rules (the user is asked as for
the parent, the question saying it comes from the sub-agent; "always" answers hold for both), the
parent's file history (its writes are part of the turn: /undo and /rewind take them back), and a
token budget. A sub-agent defined in `.claude/agents/` (agent.provider.agent_files; `subagent_type`)
brings its own system prompt, tools and model. Its own client records nothing: the parent's recorded
request (agent.provider.prefix) stays the parent's. Its whole transcript is written beside the
session's archives and named in the result; its tokens and cost go into the session's stats
(/status). Several task calls in one response run at once (pydantic-ai runs non-sequential tools
concurrently).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic_ai import RunContext, Tool
from pydantic_ai.tools import ToolDefinition

import session
from agent.events import ApprovalRequest, CommandRunning, Notice, ToolCallStarted
from agent.provider import agent_files
from agent.provider.agent_files import AgentFile, is_claude_model
from agent.state.app import AppState, Scratch, Stats  # at run time: pydantic-ai reads the tool's type hints
from agent.text.i18n import t
from agent.tools.preapproval import CLAUDE_TOOLS, our_names

READ_ONLY = ("read_file", "list_files", "grep")
# What a parent may give a sub-agent: not `task` (no sub-agents of sub-agents) nor `todo` (the plan
# is the parent's).
GRANTABLE = ("read_file", "list_files", "grep", "write_file", "edit_file", "run_command", "fetch_url")
# Tokens (input + output, summed over its requests) a sub-agent may use by default, and at most. Input
# is billed again on every request, so a job of 20 requests at 15k tokens of context uses ~300k.
DEFAULT_BUDGET = 300_000
MAX_BUDGET = 2_000_000
_numbers = itertools.count(1)


def grantable_tools(names: list[str] | None, config: Any) -> list[Tool[AppState]]:
    """The tools named (default: read-only), of those a sub-agent may have and the user did not take away."""
    from agent.tools.builtin import TOOLS
    from agent.tools.fetch_url import fetch_url

    wanted = READ_ONLY if names is None else tuple(names)
    unknown = [n for n in wanted if n not in GRANTABLE]
    if unknown:
        raise ValueError(f"a sub-agent cannot have {', '.join(unknown)}; it may have {', '.join(GRANTABLE)}")
    every = [*TOOLS, Tool(fetch_url, takes_ctx=True)]
    taken = our_names(config.disallowed_tools)
    return [tool for tool in every if tool.name in wanted and tool.name not in taken]


def child_state(parent: AppState, label: str) -> AppState:
    """The sub-agent's deps: a fresh context, the parent's rules, its UI channel marked as the sub-agent's."""
    from agent.state.file_state import ReadFileState
    from agent.state.transcript import Transcript

    def emit(event: Any) -> Any:
        if isinstance(event, ApprovalRequest):
            return parent.emit(dataclasses.replace(event, origin=label))
        if isinstance(event, CommandRunning):
            return parent.emit(event)
        if isinstance(event, ToolCallStarted):
            from agent.events import tool_summary

            parent.emit(Notice(t("subagent_tool", parent.lang, label=label, call=tool_summary(event)), "dim"))
        return None  # its text and thinking are its own: only the report goes back

    return AppState(
        config=parent.config,
        transcript=Transcript("", parent.workspace),
        read_file_state=ReadFileState(),
        file_history=parent.file_history,
        emit=emit,
        always_allowed=parent.always_allowed,
        always_allowed_writes=parent.always_allowed_writes,
        always_allowed_domains=parent.always_allowed_domains,
        stats=Stats(),
        scratch=Scratch(),
        # The session's set-up is the parent's: its rules and mode, hooks, the approved project.
        permissions=parent.permissions,
        hooks=parent.hooks,
        project=parent.project,
    )


def save_transcript(parent: AppState, messages: list) -> Path | None:
    """The sub-agent's whole conversation beside the session's archives ("task-" first: not one of them)."""
    folder = session.archive_dir(parent.workspace)
    path = folder / f"task-{parent.session_id}-{datetime.now():%Y%m%d-%H%M%S}-{next(_numbers)}.jsonl"
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        session.write_atomic(path, session.dump_messages(messages).encode())
    except OSError:
        return None
    return path


def count_usage(stats: Stats, messages: list) -> tuple[int, int, int, int]:
    """(requests, input, cache hits, output) of the responses in `messages`, added to `stats`."""
    from pydantic_ai.messages import ModelResponse

    from agent.state.app import cache_hits

    responses = [m for m in messages if isinstance(m, ModelResponse)]
    figures = (
        len(responses),
        sum(r.usage.input_tokens for r in responses),
        sum(cache_hits(r.usage) for r in responses),
        sum(r.usage.output_tokens for r in responses),
    )
    stats.subagent_runs += 1
    stats.subagent_requests += figures[0]
    stats.subagent_input_tokens += figures[1]
    stats.subagent_cache_hit_tokens += figures[2]
    stats.subagent_output_tokens += figures[3]
    return figures


async def _tool_calls(ctx: RunContext[AppState], stream: Any) -> None:
    """Its tool calls, told on its channel as the loop tells the parent's (a line each for the user)."""
    from pydantic_ai.messages import FunctionToolCallEvent

    async for event in stream:
        if isinstance(event, FunctionToolCallEvent):
            args = event.part.args_as_dict() if event.args_valid is not False else {}
            ctx.deps.emit(ToolCallStarted(event.part.tool_call_id, event.part.tool_name, args))


async def run_subagent(
    parent: AppState,
    description: str,
    prompt: str,
    tools: list[Tool[AppState]],
    budget: int,
    definition: AgentFile | None = None,
) -> str:
    from pydantic_ai import Agent, capture_run_messages
    from pydantic_ai.usage import UsageLimits

    from agent.provider.model import build_model, model_settings
    from agent.text.prompts import load_prompt
    from agent.tools.capabilities import Retries, ToolGate
    from agent.tools.memory_files import instructions

    label = t("subagent_label", parent.lang, description=description)
    # The parent's instructions as sent (rendered when its agent was built), the sub-agent's after them,
    # then its definition's own system prompt (.claude/agents/<name>.md).
    base = parent.scratch.instructions or instructions(parent.workspace, parent.lang)
    own = f"\n\n# {definition.name}\n\n{definition.prompt}" if definition is not None and definition.prompt else ""
    config = parent.config
    if definition is not None and definition.model and not is_claude_model(definition.model):
        config = dataclasses.replace(config, model=definition.model)
    model = build_model(config)
    agent = Agent(
        model,
        model_settings=model_settings(config),  # type: ignore[arg-type]
        instructions=base + "\n\n" + load_prompt("subagent", parent.lang) + own,
        deps_type=AppState,
        tools=tools,
        retries=3,
        # Retries: a retry's wait is told through the sub-agent's deps; ToolGate: its tool
        # calls pass the same hooks and permission rules as the parent's.
        capabilities=[Retries(), ToolGate()],
    )
    limits = UsageLimits(request_limit=parent.config.max_requests, total_tokens_limit=budget)
    report = ""
    with capture_run_messages() as messages:
        try:
            deps = child_state(parent, label)
            result = await agent.run(prompt, deps=deps, usage_limits=limits, event_stream_handler=_tool_calls)
            report = result.output
        except Exception as exc:  # noqa: BLE001 - the parent hears how its sub-agent ended, whatever it was
            from agent.provider.error_text import describe_error

            report = f"Error: the sub-agent stopped: {describe_error(exc, parent.config)}"
        finally:
            await model.client.close()
    messages = list(messages)
    path = save_transcript(parent, messages)
    requests, used, hits, output = count_usage(parent.stats, messages)
    where = str(path) if path else "not saved (the archive folder could not be written)"
    return (
        f'{report}\n\n[sub-agent "{description}": {requests} requests, {used:,} input tokens ({hits:,} '
        f"cached), {output:,} output; its transcript: {where}]"
    )


def defined_tools(definition: AgentFile, config: Any) -> tuple[list[Tool[AppState]], str]:
    """The tools a definition names (Claude Code's names or ours; none named: every grantable one),
    and a note on those a sub-agent cannot have here."""
    named = definition.tools
    wanted = list(GRANTABLE) if named is None else [CLAUDE_TOOLS.get(name, name) for name in named]
    missing = [name for name in (named or ()) if CLAUDE_TOOLS.get(name, name) not in GRANTABLE]
    note = f"not available to a sub-agent here: {', '.join(missing)}" if missing else ""
    return grantable_tools([name for name in wanted if name in GRANTABLE], config), note


def _model_note(definition: AgentFile, config: Any) -> str:
    if definition.model and is_claude_model(definition.model):
        return f"its model {definition.model} is one of Claude's, not served here: it ran with {config.model}"
    return ""


async def task(
    ctx: RunContext[AppState],
    description: str,
    prompt: str,
    tools: list[str] | None = None,
    token_budget: int | None = None,
    subagent_type: str | None = None,
) -> str:
    """Hand a self-contained job (a search, reading across many files) to a sub-agent with a fresh
    context; only its final report comes back. Its prompt must say all the job needs: it sees none
    of this conversation. Several task calls at once run in parallel.

    Args:
        description: A few words naming the job.
        prompt: The whole job, self-contained.
        tools: Its tools (default read_file, list_files, grep; also write_file, edit_file, run_command, fetch_url).
        token_budget: Tokens for all its requests (default 300000).
        subagent_type: A sub-agent defined for this project, by name (its own instructions and tools).
    """
    deps = ctx.deps
    if not prompt.strip():
        return "Error: the prompt is empty; say the whole job"
    notes, definition = [], None
    try:
        if subagent_type:
            definition = agent_files.find(deps.workspace, subagent_type)
            if definition is None:
                known = ", ".join(a.name for a in agent_files.load(deps.workspace)) or "none"
                return f"Error: no sub-agent is named {subagent_type!r}; the defined ones: {known}"
            granted, note = defined_tools(definition, deps.config)
            notes += [note, _model_note(definition, deps.config)]
        else:
            granted = grantable_tools(tools, deps.config)
    except ValueError as exc:
        return f"Error: {exc}"
    budget = min(max(token_budget or DEFAULT_BUDGET, 1_000), MAX_BUDGET)
    report = await run_subagent(deps, " ".join(description.split())[:80] or "task", prompt, granted, budget, definition)
    return "\n".join([report, *(f"[{note}]" for note in notes if note)])


AGENT_TYPE = "subagent_type"


@functools.cache
def _agent_type_schema() -> dict[str, Any]:
    return Tool(task, takes_ctx=True).function_schema.json_schema["properties"][AGENT_TYPE]


def task_tool() -> Tool[AppState]:
    """The task tool as the agent is built with it: `subagent_type` is offered only while sub-agents
    are defined (list_defined), so without them its definition, and its tokens in every request, are
    what they were."""
    tool = Tool(task, takes_ctx=True, prepare=list_defined)
    tool.function_schema.json_schema["properties"].pop(AGENT_TYPE, None)
    return tool


async def list_defined(ctx: RunContext[AppState], tool_def: ToolDefinition) -> ToolDefinition:
    """With the project's sub-agents defined: the task tool's `subagent_type`, and its description
    naming them (none defined: the definition is left as it is, byte for byte, and the prefix with it)."""
    defined = agent_files.load(ctx.deps.workspace)
    if not defined:
        return tool_def
    lines = [f"- {a.name}: {' '.join(a.description.split())[:300]}" for a in defined]
    text = "\n\nSub-agents defined for this project (pass the name as subagent_type):\n" + "\n".join(lines)
    schema = dict(tool_def.parameters_json_schema)
    schema["properties"] = {**schema["properties"], AGENT_TYPE: _agent_type_schema()}
    return dataclasses.replace(tool_def, description=(tool_def.description or "") + text, parameters_json_schema=schema)
