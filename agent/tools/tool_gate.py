"""Every tool call, ours and MCP servers', passes here (a pydantic-ai capability): the PreToolUse
hooks, then the permission check that the tool itself does not make (reads a rule names, MCP tools:
agent.tools.permissions; commands and writes ask inside their tools, which also run without an agent), the
call, then the PostToolUse hooks."""

from __future__ import annotations

from typing import Any

from agent.tools import permissions
from agent.tools.rule_match import READ_TOOLS

# The sub-agent type a `Task(...)` rule sees when the model names none: Claude Code's name for it.
DEFAULT_AGENT = "general-purpose"


def _target(state: Any, args: dict[str, Any]) -> Any:
    from agent.tools.workspace import PathError, resolve_path

    path = args.get("path")
    if not isinstance(path, str):
        return None
    try:
        return resolve_path(path, state.workspace)
    except PathError:
        return None


class Gate:
    """The gate's logic; agent.tools.capabilities.ToolGate makes it a pydantic-ai capability."""

    async def wrap_tool_execute(self, ctx: Any, *, call: Any, tool_def: Any, args: Any, handler: Any) -> Any:
        state = ctx.deps
        from agent.tools import hooks

        name = call.tool_name
        given = dict(args) if isinstance(args, dict) else {}
        pre = await hooks.pre_tool_use(state, name, given, call.tool_call_id)
        if pre.blocked is not None:
            return f"Error: a PreToolUse hook refused this call: {pre.blocked}"
        token = permissions.HOOK_DECISION.set(pre.decision)
        try:
            if name in READ_TOOLS:
                await permissions.read(state, name, _target(state, given))
            elif name.startswith("mcp__"):
                await permissions.tool_call(state, name, given)
            elif name in ("task", "todo"):
                kind = given.get("subagent_type") if name == "task" else None
                await permissions.named_tool(state, name, (kind or DEFAULT_AGENT) if name == "task" else None)
            result = await handler(args)
        except permissions.Refused as exc:
            return f"Error: {exc}"
        finally:
            permissions.HOOK_DECISION.reset(token)
        result = await hooks.post_tool_use(state, name, given, call.tool_call_id, result)
        return hooks.with_notes(result, pre.context, "PreToolUse")
