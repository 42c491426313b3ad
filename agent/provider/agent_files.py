"""Sub-agent definitions, Claude Code's format: a Markdown file per sub-agent in the project's
`.coding-agent/agents/` or `.claude/agents/`, or the user's `~/.coding-agent/agents/` or
`~/.claude/agents/` (the first folder that has a name wins). Front matter gives `name`, `description`,
`tools` (Claude Code's names or ours; none given: every tool a sub-agent may have) and `model`
(`inherit`, or a model name); the body is the sub-agent's system prompt. The `task` tool runs them
(agent.tools.subagent), `/agents` lists them.

A definition only narrows: its sub-agent's calls are asked and ruled on as the parent's are.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from agent.config import claude_home, data_home
from agent.provider import front_matter
from agent.store.regular_file import read_confined

MAX_AGENT_FILE = 50_000  # characters: a system prompt, not a document
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
# Claude Code's tool names -> ours, for `tools:` (its MultiEdit and LS are our edit_file and list_files).
TOOL_NAMES = {
    "Read": "read_file",
    "Grep": "grep",
    "Glob": "list_files",
    "LS": "list_files",
    "Bash": "run_command",
    "Edit": "edit_file",
    "MultiEdit": "edit_file",
    "Write": "write_file",
    "WebFetch": "fetch_url",
}
# Claude Code's model aliases: its own models, which an OpenAI-compatible endpoint does not serve.
CLAUDE_MODELS = ("sonnet", "opus", "haiku")


def is_claude_model(name: str) -> bool:
    """Whether `name` is one of Claude's models (a command's or a sub-agent's `model:`), served by Anthropic only."""
    return name in CLAUDE_MODELS or name.startswith("claude-")


@dataclass(frozen=True)
class AgentFile:
    name: str
    path: Path
    scope: str  # "project" | "user"
    description: str
    tools: tuple[str, ...] | None  # as written; None: not said
    model: str | None  # None: the parent's ("inherit")
    prompt: str

    def tool_names(self) -> list[str] | None:
        """`tools` in our names where Claude Code's are written (None: not said)."""
        return None if self.tools is None else list(dict.fromkeys(TOOL_NAMES.get(n, n) for n in self.tools))


def agent_dirs(workspace: Path) -> list[tuple[Path, str]]:
    return [
        (workspace / ".coding-agent" / "agents", "project"),
        (workspace / ".claude" / "agents", "project"),
        (data_home() / "agents", "user"),
        (claude_home() / "agents", "user"),
    ]


def _read(path: Path, scope: str, root: Path) -> AgentFile | None:
    text = read_confined(path, root, MAX_AGENT_FILE)
    if text is None:
        return None
    fields, body = front_matter.split(text)
    name = front_matter.text_of(fields, "name").strip() or path.stem
    if not _NAME.match(name):
        return None
    tools = front_matter.list_of(fields, "tools")
    model = front_matter.text_of(fields, "model").strip()
    return AgentFile(
        name,
        path,
        scope,
        front_matter.text_of(fields, "description"),
        None if tools is None else tuple(tools),
        None if model in ("", "inherit") else model,
        body.strip(),
    )


def load(workspace: Path) -> list[AgentFile]:
    found: dict[str, AgentFile] = {}
    for folder, scope in agent_dirs(workspace):
        try:
            paths = sorted(folder.glob("*.md"))
        except OSError:
            continue
        for path in paths:
            agent = _read(path, scope, workspace if scope == "project" else folder.parent)
            if agent is not None and agent.name not in found:
                found[agent.name] = agent
    return list(found.values())


def find(workspace: Path, name: str) -> AgentFile | None:
    return next((a for a in load(workspace) if a.name == name), None)
