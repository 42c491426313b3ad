"""Which tool calls that would ask the user run without asking: --yes, --allowed-tools. The one
check every approval point calls (commands, risky writes, a new web domain), so that rules from
the settings can extend it in one place."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent.config import Config


def preapproved(config: Config, tool_name: str) -> bool:
    return config.yes or tool_name in config.allowed_tools


def parse_tool_list(text: str | None) -> frozenset[str]:
    """`--allowed-tools "read_file,grep"` or space-separated, as Claude Code and Gemini CLI take them."""
    return frozenset(name for name in (text or "").replace(",", " ").split() if name)
