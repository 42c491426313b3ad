"""Which tool calls that would ask the user run without asking: --yes, --allowed-tools. The one
check every approval point calls (commands, risky writes, a new web domain), so that rules from
the settings can extend it in one place.

--allowed-tools and --disallowed-tools (also spelt --allowedTools, --disallowedTools) take what Claude
Code's take: tool names, ours or Claude Code's (`Bash`, `Read`, `WebFetch`), and permission rules
(`Bash(git diff:*)`, `Edit(docs/**)`, `mcp__github`, `mcp__github__get_*`). A name lets that tool run
unasked, or takes it away from the model; a rule is an allow or a deny rule of the session.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent.config import Config

# Claude Code's tool names -> ours, one for one (a rule's `Read` or `Edit` covers more: agent.tools.rule_match).
CLAUDE_TOOLS = {
    "Bash": "run_command",
    "Read": "read_file",
    "Write": "write_file",
    "Edit": "edit_file",
    "MultiEdit": "edit_file",
    "Grep": "grep",
    "Glob": "list_files",
    "LS": "list_files",
    "WebFetch": "fetch_url",
    "Task": "task",
    "TodoWrite": "todo",
}


def preapproved(config: Config, tool_name: str) -> bool:
    return config.yes or tool_name in our_names(config.allowed_tools)


def parse_tool_list(values: str | list[str] | None) -> frozenset[str]:
    """The flag's items as written: `"Read,Grep"`, `Read Grep` (several words), `"Bash(git diff:*)"`
    (a space inside a rule's parentheses does not separate)."""
    from agent.provider.front_matter import split_list

    texts = [values] if isinstance(values, str) else list(values or ())
    return frozenset(item for text in texts for item in split_list(text))


@dataclass(frozen=True)
class ToolFlag:
    names: frozenset[str]  # our tool names
    rules: tuple[Any, ...]  # agent.tools.rule_match.Rule
    bad: tuple[str, ...]  # neither a tool nor a rule


def resolve(items: frozenset[str], known: list[str]) -> ToolFlag:
    """Split a flag's items into our tool names (Claude Code's mapped) and rules."""
    from agent.tools.rule_match import BadRule, parse_rule

    names, rules, bad = set(), [], []
    for item in sorted(items):
        name = CLAUDE_TOOLS.get(item, item)
        if name in known:
            names.add(name)
            continue
        try:
            rules.append(parse_rule(item))
        except BadRule:
            bad.append(item)
    return ToolFlag(frozenset(names), tuple(rules), tuple(bad))


def our_names(items: frozenset[str]) -> frozenset[str]:
    """The tools a flag names, in our names (what --disallowed-tools takes from the model)."""
    return frozenset(CLAUDE_TOOLS.get(item, item) for item in items)


def add_flag_rules(perms: Any, config: Config, known: list[str]) -> None:
    """The flags' rules join the session's (`perms` an agent.state.settings_state.Permissions, `known` our tool
    names): what --allowed-tools says as a rule is allowed, what --disallowed-tools says is denied."""
    perms.rules["allow"] += resolve(config.allowed_tools, known).rules
    perms.rules["deny"] += resolve(config.disallowed_tools, known).rules
