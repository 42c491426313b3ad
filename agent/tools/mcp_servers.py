"""MCP servers, Claude Code's format: `{"mcpServers": {name: {"command", "args", "env"} | {"type": "http",
"url", "headers"}}}` in the project's `.mcp.json` and under `mcpServers` in any settings file
(`${VAR}` and `${VAR:-default}` are taken from the environment, which holds no API key of ours).

Each server runs through pydantic-ai's MCP client (MCPToolset). It starts in the background, so the
prompt never waits for it; a project's servers start only once the user approved the project. Its
tools reach the model as `mcp__<server>__<tool>` (as in Claude Code), pass the same permission rules
and hooks as ours (agent.tools.tool_gate), and their results are tool results like any other (counted,
cleared by the cheap tier). A server that fails to start or dies is one line; the session goes on
without it.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass, field
from typing import Any

from agent.text.i18n import t

START_TIMEOUT = 30.0  # seconds a turn waits for a server still starting; start-up itself never waits
PREFIX = "mcp__"


from agent.state.setup import Servers  # noqa: E402,F401 - re-exported


@dataclass
class Server:
    name: str
    config: dict[str, Any]
    scope: str  # "user" | "project"
    state: str = "waiting"  # waiting (for the project's approval) | starting | ready | failed | stopped
    error: str = ""
    tools: list[str] = field(default_factory=list)
    definition_tokens: int = 0
    toolset: Any = None  # what the agent is given while the server is ready
    task: asyncio.Task | None = None
    started: asyncio.Event = field(default_factory=asyncio.Event)
    stop: asyncio.Event = field(default_factory=asyncio.Event)


def server_of(tool_name: str) -> str | None:
    """`mcp__github__get_issue` -> "github"; None for our own tools."""
    if not tool_name.startswith(PREFIX):
        return None
    return tool_name[len(PREFIX):].split("__", 1)[0]


def _valid(config: Any) -> bool:
    if not isinstance(config, dict):
        return False
    kind = config.get("type", "stdio")
    if kind == "stdio":
        return isinstance(config.get("command"), str) and all(isinstance(a, str) for a in config.get("args", []))
    return kind in ("http", "streamable-http", "sse") and isinstance(config.get("url"), str)


def load(settings: Any, workspace: Any, lang: str) -> tuple[Servers, list[str]]:
    """Every server named in the settings files and .mcp.json; a later file's wins a shared name."""
    from agent.provider.grants import MCP_JSON, read_mcp_json
    from agent.provider.settings import is_users

    found: dict[str, tuple[Any, str, str]] = {}
    for layer, section in settings.section("mcpServers") if settings is not None else ():
        for name, config in section.items():
            found[name] = (config, "user" if is_users(layer) else "project", str(settings.path(layer)))
    for name, config in read_mcp_json(workspace).items():
        found.setdefault(name, (config, "project", str(workspace / MCP_JSON)))
    servers, warnings = Servers(), []
    for name, (config, scope, where) in found.items():
        if not re.fullmatch(r"[A-Za-z0-9_-]+", name) or "__" in name or not _valid(config):
            warnings.append(t("mcp_bad", lang, path=where, name=name))
            continue
        servers.servers[name] = Server(name, config, scope)
    return servers, warnings


# --- running -------------------------------------------------------------------------------


def _client(server: Server, workspace: Any, project_env: dict[str, str]) -> Any:
    from fastmcp.client import Client
    from fastmcp.client.transports import SSETransport, StdioTransport, StreamableHttpTransport

    from agent.provider.grants import expand
    from agent.tools.shell import command_env

    config = expand(server.config)
    kind = config.get("type", "stdio")
    if kind == "stdio":
        env = {**command_env(project_env), **{k: str(v) for k, v in (config.get("env") or {}).items()}}
        transport = StdioTransport(config["command"], list(config.get("args", [])), env=env,
                                   cwd=str(config.get("cwd") or workspace))
    elif kind == "sse":
        transport = SSETransport(config["url"], headers=config.get("headers") or None)
    else:
        transport = StreamableHttpTransport(config["url"], headers=config.get("headers") or None)
    return Client(transport)


def _notice(state: Any, key: str, level: str = "warn", **values: Any) -> None:
    from agent.events import Notice

    state.emit(Notice(t(key, state.lang, **values), level))


async def _serve(state: Any, server: Server) -> None:
    """The server's whole life in one task (its client's task groups must open and close in one task)."""
    from agent.tokens import count as tokens

    try:
        if state.scratch.ready is not None:
            # The warm-up imports pydantic-ai in a thread: importing its MCP client here meanwhile
            # would see it half-initialised. After it, the client's import runs off the event loop.
            await asyncio.shield(state.scratch.ready)
        await asyncio.to_thread(_import_client)
        from pydantic_ai.mcp import MCPToolset

        toolset = MCPToolset(_client(server, state.workspace, state.project.env), tool_error_behavior="failed")
        async with toolset:
            listed = await toolset.list_tools()
            server.tools = [tool.name for tool in listed]
            defs = [{"name": f"{PREFIX}{server.name}__{x.name}", "description": x.description or "",
                     "parameters": x.input_schema} for x in listed]
            server.definition_tokens = tokens.count_text(json.dumps(defs, ensure_ascii=False))
            server.toolset = Guarded(toolset.prefixed(f"{PREFIX}{server.name}_"), server=server, state=state)
            server.state = "ready"
            server.started.set()
            await server.stop.wait()
        server.state = "stopped"
    except asyncio.CancelledError:
        server.state = "stopped"
        raise
    except BaseException as exc:  # noqa: BLE001 - a server's failure is one line, never the session's end
        fail(state, server, exc)
    finally:
        server.started.set()


def _import_client() -> None:
    import fastmcp.client  # noqa: F401 - a second of imports, kept off the event loop
    import pydantic_ai.mcp  # noqa: F401


def fail(state: Any, server: Server, exc: BaseException) -> None:
    if server.state == "failed":
        return
    server.state, server.toolset = "failed", None
    server.error = _reason(exc)
    _notice(state, "mcp_failed", name=server.name, error=server.error)


def _reason(exc: BaseException) -> str:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return (str(exc) or type(exc).__name__).splitlines()[0][:300]


def start(state: Any, trusted: bool) -> None:
    """Start the servers in the background: the user's always, the project's once it is approved."""
    for server in state.mcp.servers.values():
        if server.scope == "project" and not trusted:
            continue
        server.state = "starting"
        server.task = asyncio.get_running_loop().create_task(_serve(state, server))


async def wait_started(state: Any) -> None:
    """Before a turn: the servers still starting get a bounded wait, so their tools are there."""
    starting = [s for s in state.mcp.servers.values() if s.state == "starting"]
    if not starting:
        return
    try:
        await asyncio.wait_for(asyncio.gather(*(s.started.wait() for s in starting)), START_TIMEOUT)
    except TimeoutError:
        for server in starting:
            if server.state == "starting":
                _notice(state, "mcp_slow", name=server.name, seconds=f"{START_TIMEOUT:g}")


async def stop_all(state: Any) -> None:
    servers = [s for s in state.mcp.servers.values() if s.task is not None and not s.task.done()]
    for server in servers:
        server.stop.set()
    if servers:
        done, pending = await asyncio.wait([s.task for s in servers], timeout=5)
        for task in pending:
            task.cancel()


def _connection_lost(exc: BaseException | None) -> bool:
    """Whether `exc` (or what caused it) says the server is gone rather than that its tool failed."""
    seen = 0
    while exc is not None and seen < 10:
        if isinstance(exc, (OSError, EOFError)) or "Connection closed" in str(exc) or \
                type(exc).__name__ in ("ClosedResourceError", "BrokenResourceError", "EndOfStream"):
            return True
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return False


def Guarded(wrapped: Any, *, server: Server, state: Any) -> Any:  # noqa: N802 - reads as a class
    """The server's toolset for the agent: a server that dies costs its tools, not the turn."""
    from dataclasses import dataclass as _dataclass

    from pydantic_ai.toolsets import WrapperToolset

    @_dataclass
    class _Guarded(WrapperToolset):
        async def __aenter__(self) -> Any:
            return self  # the connection is held by the server's own task (_serve)

        async def __aexit__(self, *args: Any) -> bool | None:
            return None

        async def get_tools(self, ctx: Any) -> Any:
            if server.state != "ready":
                return {}
            try:
                return await self.wrapped.get_tools(ctx)
            except Exception as exc:  # noqa: BLE001
                fail(state, server, exc)
                return {}

        async def call_tool(self, name: str, tool_args: dict[str, Any], ctx: Any, tool: Any) -> Any:
            if server.state != "ready":
                return f"Error: the MCP server {server.name} is not running ({server.error or server.state})"
            try:
                return await self.wrapped.call_tool(name, tool_args, ctx, tool)
            except Exception as exc:
                if not _connection_lost(exc):
                    raise  # the tool's own error: the model reads it (pydantic-ai's retry prompt)
                fail(state, server, exc)
                return f"Error: the MCP server {server.name} failed: {server.error}"

    return _Guarded(wrapped)
