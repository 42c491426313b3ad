"""A project's grants need the user's approval once: its allow rules, hooks, MCP servers and custom
commands' `allowed-tools` come from files anyone may have written (a cloned repository's
`.coding-agent/`, `.claude/commands/`, `.mcp.json`), and they run code or let it run. The approval
is kept in the data folder, keyed by the workspace and a hash of those grants: a changed grant is
asked about again.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from agent.config import data_home

PROJECT_LAYERS = ("project", "local")
MCP_JSON = ".mcp.json"


def _store() -> Path:
    return data_home() / "trusted_projects.json"


def read_mcp_json(workspace: Path) -> dict[str, Any]:
    """`.mcp.json`'s `mcpServers` as written (agent.tools.mcp_servers checks it), {} if none or unreadable."""
    try:
        data = json.loads((workspace / MCP_JSON).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    servers = data.get("mcpServers") if isinstance(data, dict) else None
    return servers if isinstance(servers, dict) else {}


def grants(settings: Any, workspace: Path) -> dict[str, Any]:
    """What the project's files would let run: allow rules, hooks, MCP servers (empty parts left out)."""
    found: dict[str, Any] = {}
    if settings is not None:
        for layer in settings.layers:
            if layer.name not in PROJECT_LAYERS:
                continue
            allow = (layer.data.get("permissions") or {}).get("allow")
            if allow:
                found.setdefault("allow", []).extend(a for a in allow if isinstance(a, str))
            if layer.data.get("hooks"):
                found.setdefault("hooks", {})[layer.name] = layer.data["hooks"]
            if layer.data.get("mcpServers"):
                found.setdefault("mcp", {}).update(layer.data["mcpServers"])
    if servers := read_mcp_json(workspace):
        found.setdefault("mcp", {}).update(servers)
    from agent.provider.command_files import project_grants

    if commands := project_grants(workspace):  # `allowed-tools` a command's turn would be granted
        found["commands"] = commands
    return found


def digest(found: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(found, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def _approved() -> dict[str, str]:
    try:
        data = json.loads(_store().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _current(state: Any) -> dict[str, Any]:
    from agent.provider import settings as files

    # Read again: the file may have changed since start-up (an "always for this project" answer).
    return grants(files.load(state.workspace, state.lang), state.workspace)


def is_trusted(state: Any, found: dict[str, Any] | None = None) -> bool:
    found = _current(state) if found is None else found
    return not found or _approved().get(str(state.workspace)) == digest(found)


def remember(state: Any, found: dict[str, Any] | None = None) -> None:
    """Record the user's approval of the project's grants as they are now."""
    from agent.store.atomic import replace_file

    found = _current(state) if found is None else found
    approved = _approved()
    approved[str(state.workspace)] = digest(found)
    path = _store()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    replace_file(path, (json.dumps(approved, indent=2) + "\n").encode(), mode=0o600)


def describe(found: dict[str, Any]) -> list[str]:
    """One line per grant, for the question (the UI escapes them: they are the project's text)."""
    lines = [f"  allow  {rule}" for rule in found.get("allow", [])]
    for layer, hooks in found.get("hooks", {}).items():
        for event, groups in (hooks.items() if isinstance(hooks, dict) else ()):
            for group in groups if isinstance(groups, list) else ():
                for hook in (group.get("hooks") or []) if isinstance(group, dict) else ():
                    if isinstance(hook, dict):
                        lines.append(f"  hook   {event} ({layer}): {hook.get('command', '')}")
    for name, command in found.get("commands", {}).items():
        runs = "".join(f"; runs !`{line}`" for line in command["runs"])
        lines.append(f"  command {name}: allowed-tools {', '.join(command['allowed-tools'])}{runs}")
    for name, server in found.get("mcp", {}).items():
        if isinstance(server, dict):
            what = server.get("url") or " ".join(str(x) for x in [server.get("command", ""), *server.get("args", [])])
            lines.append(f"  mcp    {name}: {what}")
    return lines


async def settle(state: Any) -> bool:
    """Before the first prompt: ask once about the project's grants (none, or approved before: no
    question). Returns whether they count; the callers switch them on (permissions, hooks, servers)."""
    from agent.events import Listing, Notice, Question, ask
    from agent.text.i18n import t

    found = grants(state.config.settings, state.workspace)
    if not found:
        return True
    if is_trusted(state, found):
        return True
    state.emit(Listing((t("trust_intro", state.lang, path=state.workspace), *describe(found))))
    if await ask(state.emit, Question(t("trust_question", state.lang), yes_no=True)) != "y":
        state.emit(Notice(t("trust_declined", state.lang), "warn"))
        return False
    try:
        remember(state, found)
    except OSError as exc:  # approved for this session; asked again next time
        state.emit(Notice(t("trust_not_saved", state.lang, error=exc.strerror or exc), "warn"))
    return True
