"""The tools the agent is built with: every tool the agent has, less those the user took away
(--disallowed-tools, by our name or Claude Code's). Which of them run without asking is agent.tools.preapproval's.

The set is fixed when the agent is built, so the request prefix (tool definitions included) stays
byte-stable for the whole session."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic_ai import Tool

    from agent.config import Config
    from agent.state.app import AppState


def all_tools() -> list[Tool[AppState]]:
    """Every tool, in the order the model sees them; new tool modules add theirs here."""
    from pydantic_ai import Tool

    from agent.tools.builtin import TOOLS
    from agent.tools.fetch_url import fetch_url
    from agent.tools.subagent import task_tool
    from agent.tools.todo import todo

    # `task` is not sequential: several sub-agents asked for at once run at the same time.
    return [*TOOLS, Tool(todo, takes_ctx=True, sequential=True), Tool(fetch_url, takes_ctx=True), task_tool()]


def tool_names() -> list[str]:
    return [tool.name for tool in all_tools()]


# The task list, web fetch and sub-agents add ~750 tokens of definitions to every request: at a 4k or
# 8k window that is a tenth to a fifth of it, and such a model has no room for a web page or a
# sub-agent's work anyway. Below this window the agent has the six file and shell tools only.
EXTRAS = ("todo", "fetch_url", "task")
EXTRAS_MIN_WINDOW = 16_000


def active_tools(config: Config) -> list[Tool[AppState]]:
    from agent.tools.preapproval import our_names

    small = config.context_window < EXTRAS_MIN_WINDOW
    taken = our_names(config.disallowed_tools)
    return [tool for tool in all_tools() if tool.name not in taken and not (small and tool.name in EXTRAS)]
