"""What a project's files would grant, as data: everything in them that decides where traffic goes or
what code runs, collected from the project's layers and `.mcp.json`, `${VAR}` expanded as it would run,
and told line by line for the one trust question (agent.provider.trust).

A project's plain preferences (model, compaction thresholds, language, thinking) are not grants: they
apply at once. What is: its `env` (the names it may set at all: agent.provider.protected_env), its
`baseUrl` and the key that would go there, its allow rules and `defaultMode`, its hooks and its MCP
servers (command, args, env, cwd, url, headers).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any

from agent.provider.claude_settings import CLAUDE_DIR, is_claude
from agent.provider.protected_env import protected
from agent.provider.settings import is_users
from agent.text.i18n import t

MCP_JSON = ".mcp.json"
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
# Sections of a project's file that another part holds back until the project is approved (its loader
# checks `state.project.trusted`), shown in the question as written. A new one is a name here.
HELD_SECTIONS: tuple[str, ...] = ()


def expand(value: Any) -> Any:
    """Claude Code's `${VAR}` and `${VAR:-default}`, from the environment (which holds no API key)."""
    if isinstance(value, str):
        return _VAR.sub(lambda m: os.environ.get(m.group(1), m.group(2) or ""), value)
    if isinstance(value, list):
        return [expand(v) for v in value]
    if isinstance(value, dict):
        return {k: expand(v) for k, v in value.items()}
    return value


def read_mcp_json(workspace: Path) -> dict[str, Any]:
    """`.mcp.json`'s `mcpServers` as written (agent.tools.mcp_servers checks it), {} if none or unreadable."""
    try:
        data = json.loads((workspace / MCP_JSON).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    servers = data.get("mcpServers") if isinstance(data, dict) else None
    return servers if isinstance(servers, dict) else {}


def collect(settings: Any, workspace: Path, endpoint: Any = None, mode: str | None = None) -> dict[str, Any]:
    """What the project's files would grant (empty parts left out). `endpoint` is the project's
    baseUrl where nothing of the user's overrides it (agent.config.Endpoint), `mode` its
    `defaultMode` likewise (agent.provider.settings.apply_to_args and agent.tools.permissions.load
    decide which)."""
    found: dict[str, Any] = {}
    if settings is not None and (env := settings.project_env):
        found["env"] = env
    if endpoint is not None:
        found["baseUrl"] = {"url": endpoint.url, "key": endpoint.key_name}
    servers: dict[str, Any] = {}
    for layer in settings.layers if settings is not None else ():
        if is_users(layer.name):
            continue
        allow = (layer.data.get("permissions") or {}).get("allow")
        # `{"rule": ..., "sandbox": false}` runs its commands outside the OS sandbox: shown as such.
        rules = (
            [
                a if isinstance(a, str) else f"{a['rule']} (sandbox: false)"
                for a in allow
                if isinstance(a, str) or isinstance(a, dict) and isinstance(a.get("rule"), str)
            ]
            if isinstance(allow, list)
            else []
        )
        if is_claude(layer.name):  # another tool's file: the user may not expect it to be read
            rules = [f"{rule}  ({CLAUDE_DIR}/{layer.path.name})" for rule in rules]
        if rules:
            found.setdefault("allow", []).extend(rules)
        if layer.data.get("hooks"):
            found.setdefault("hooks", {})[layer.name] = layer.data["hooks"]
        servers.update(layer.data.get("mcpServers") or {})
        for key in HELD_SECTIONS:
            if key in layer.data:
                found.setdefault(key, {})[layer.name] = layer.data[key]
    if mode:
        found["defaultMode"] = mode
    for name, server in read_mcp_json(workspace).items():
        servers.setdefault(name, server)  # a settings file's server wins a shared name, as it runs
    if servers:
        found["mcp"] = expand(servers)
    from agent.provider.command_files import project_grants

    if commands := project_grants(workspace):  # the `allowed-tools` a command's turn would be given
        found["commands"] = commands
    return found


def digest(found: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(found, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


# --- the question's lines -----------------------------------------------------------------------


def _hooks(found: dict[str, Any]) -> list[str]:
    lines = []
    for layer, hooks in found.get("hooks", {}).items():
        for event, groups in hooks.items() if isinstance(hooks, dict) else ():
            for group in groups if isinstance(groups, list) else ():
                matcher = group.get("matcher", "") if isinstance(group, dict) else ""
                where = f"{event} {matcher} ({layer})" if matcher else f"{event} ({layer})"
                for hook in (group.get("hooks") or []) if isinstance(group, dict) else ():
                    if isinstance(hook, dict):
                        lines.append(f"hook     {where}: {hook.get('command', '')}")
    return lines


def _server(name: str, server: Any, lang: str) -> list[str]:
    if not isinstance(server, dict):
        return [f"mcp      {name}: {json.dumps(server, ensure_ascii=False)}"]
    args = server.get("args") if isinstance(server.get("args"), list) else []
    what = server.get("url") or " ".join(str(x) for x in [server.get("command", ""), *args])
    lines = [f"mcp      {name}: {what}"]
    for key, value in (server.get("env") or {}).items() if isinstance(server.get("env"), dict) else ():
        mark = f"  ({t('grant_protected', lang)})" if protected(str(key)) else ""
        lines.append(f"mcp      {name}: env {key}={value}{mark}")
    if server.get("cwd"):
        lines.append(f"mcp      {name}: cwd {server['cwd']}")
    for key, value in (server.get("headers") or {}).items() if isinstance(server.get("headers"), dict) else ():
        lines.append(f"mcp      {name}: header {key}: {value}")
    rest = {k: v for k, v in server.items() if k not in ("type", "command", "args", "env", "cwd", "url", "headers")}
    if rest:
        lines.append(f"mcp      {name}: {json.dumps(rest, ensure_ascii=False)}")
    return lines


def describe(found: dict[str, Any], lang: str) -> list[str]:
    """One line per grant, as it would run (the UI escapes them: they are the project's text)."""
    lines = [f"env      {name}={value}" for name, value in found.get("env", {}).items()]
    if endpoint := found.get("baseUrl"):
        key = t("grant_key_sent", lang, name=endpoint["key"]) if endpoint["key"] else t("grant_no_key", lang)
        lines.append(f"baseUrl  {endpoint['url']}  ({key})")
    lines += [f"allow    {rule}" for rule in found.get("allow", [])]
    if "defaultMode" in found:
        lines.append(f"mode     defaultMode {found['defaultMode']}")
    lines += _hooks(found)
    for name, server in found.get("mcp", {}).items():
        lines += _server(name, server, lang)
    for name, command in found.get("commands", {}).items():
        runs = "".join(f"; runs !`{line}`" for line in command["runs"])
        lines.append(f"command  {name}: allowed-tools {', '.join(command['allowed-tools'])}{runs}")
    for key in HELD_SECTIONS:
        for layer, value in found.get(key, {}).items():
            lines.append(f"{key:<8} ({layer}) {json.dumps(value, ensure_ascii=False)}")
    return lines


def summary(found: dict[str, Any], lang: str) -> str:
    """What the grants are, in a few words (the line that says they were skipped or used)."""
    parts = []
    if env := found.get("env"):
        parts.append(t("grant_env", lang, names=", ".join(env)))
    if endpoint := found.get("baseUrl"):
        parts.append(t("grant_base_url", lang, url=endpoint["url"]))
    if rules := found.get("allow"):
        parts.append(t("grant_allow", lang, n=len(rules)))
    if "defaultMode" in found:
        parts.append(t("grant_mode", lang, mode=found["defaultMode"]))
    if hooks := _hooks(found):
        parts.append(t("grant_hooks", lang, n=len(hooks)))
    if servers := found.get("mcp"):
        parts.append(t("grant_mcp", lang, names=", ".join(servers)))
    if commands := found.get("commands"):
        parts.append(t("grant_commands", lang, names=", ".join(commands)))
    parts += [key for key in HELD_SECTIONS if key in found]
    return t("list_separator", lang).join(parts)
