"""The session's set-up as data: the permission mode and rules, the hooks, the MCP servers,
and what the project's approval switched on.

AppState holds them, and the tools and the turn act on them (agent/tools/permissions.py,
agent/tools/hooks.py, agent/tools/mcp_servers.py), so the data lives here, below the tools, and the
behaviour above: the rule, hook and server objects are those modules' own types (Any here).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

MODES = ("default", "acceptEdits", "plan", "bypassPermissions")
CYCLE = ("default", "acceptEdits", "plan")
START_MODE = "acceptEdits"
KINDS = ("deny", "ask", "allow")


def mode(state: Any) -> str:
    """The permission mode now (`state` an AppState, which holds a Permissions)."""
    perms = state.permissions
    return perms.mode or ("bypassPermissions" if state.config.yes else START_MODE)


@dataclass
class Permissions:
    # None until a flag, a file or Shift+Tab sets it: then --yes (Config.yes) means bypassPermissions.
    mode: str | None = None
    rules: dict[str, list[Any]] = field(default_factory=lambda: {kind: [] for kind in KINDS})
    # A project's allow rules, waiting for the user's approval of the project (agent.provider.trust).
    pending_allow: list[Any] = field(default_factory=list)
    # A project's defaultMode where no flag or file of the user's set one: the mode once it is approved
    # (kept after, as part of what was approved).
    project_mode: str | None = None
    # Allow rules written `{"rule": ..., "sandbox": false}`: their commands run outside the OS sandbox
    # (agent.tools.sandbox.confine); a project's wait with its other allow rules.
    outside_sandbox: list[Any] = field(default_factory=list)
    pending_outside: list[Any] = field(default_factory=list)
    cycle: tuple[str, ...] = CYCLE

    def next_mode(self, state: Any) -> str:
        """Shift+Tab: the mode after this one."""
        now = mode(state)
        modes = self.cycle if now in self.cycle else (now, *self.cycle)
        self.mode = modes[(modes.index(now) + 1) % len(modes)]
        return self.mode

    def trust_project(self) -> None:
        self.rules["allow"] += self.pending_allow
        self.outside_sandbox += self.pending_outside
        self.pending_allow, self.pending_outside = [], []
        if self.mode is None and self.project_mode is not None:
            self.mode = self.project_mode


@dataclass
class Project:
    """What the user's approval of the project switched on (agent.provider.trust): its hooks and MCP
    servers may run, and its `env` goes to the programs the session starts (commands, hooks, MCP
    servers), never into the agent's own environment."""

    trusted: bool = False
    env: dict[str, str] = field(default_factory=dict)


@dataclass
class Hooks:
    active: list[Any] = field(default_factory=list)
    pending: list[Any] = field(default_factory=list)  # a project's, until it is approved
    # SessionStart's context, for the next turn's request.
    queued: list[str] = field(default_factory=list)
    tasks: set[asyncio.Task] = field(default_factory=set)

    def trust_project(self) -> None:
        self.active += self.pending
        self.pending = []


@dataclass
class Servers:
    servers: dict[str, Any] = field(default_factory=dict)
    # The tools that list and read resources (agent.tools.mcp_offers), made when a server first has some.
    resource_tools: Any = None

    def ready_toolsets(self) -> list[Any]:
        return [s.toolset for s in self.servers.values() if s.state == "ready" and s.toolset is not None]

    def definition_tokens(self) -> int:
        return sum(s.definition_tokens for s in self.servers.values() if s.state == "ready")
