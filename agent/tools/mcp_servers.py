"""MCP servers, Claude Code's format: `{"mcpServers": {name: {"command", "args", "env"} | {"type": "http",
"url", "headers"}}}` in the project's `.mcp.json` and under `mcpServers` in any settings file
(`${VAR}` and `${VAR:-default}` are taken from the environment, which holds no API key of ours).

Each server runs through pydantic-ai's MCP client (MCPToolset), a stdio one in a process of ours
(agent.tools.mcp_stdio) whose stderr goes to its log (agent.tools.mcp_log). It starts in the
background, so the prompt never waits for it; a project's servers start only once the user approved
the project. Its tools reach the model as `mcp__<server>__<tool>` (as in Claude Code), pass the same
permission rules and hooks as ours (agent.tools.tool_gate), and their results are tool results like
any other (cut to a share of the window, counted, cleared by the cheap tier: agent.tools.mcp_calls).
A server that fails to start, does not start in time or dies is one line, once; the session goes
on without it, and `/mcp retry` starts it again. Its prompts and resources are listed when it starts
(agent.tools.mcp_offers uses them); what it asks of the session is answered by agent.tools.mcp_requests.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import re
import uuid
from dataclasses import dataclass, field
from typing import Any

from agent.text.i18n import t

# Seconds a server has to start (Claude Code's MCP_TIMEOUT, in ms, changes it); a turn waits for one
# still starting, the prompt never does. One that does not make it is failed, once; /mcp retry tries again.
START_TIMEOUT = 30.0
# Seconds one tool call may take (MCP_TOOL_TIMEOUT or mcpToolTimeout, in ms): as long as a command may run.
TOOL_TIMEOUT = 600.0
STOP_GRACE = 10.0  # seconds a server that gave up has to be stopped before a turn stops waiting for it
PREFIX = "mcp__"
LISTED = 200  # prompts, and resources, kept of one server


from agent.state.settings_state import Servers  # noqa: E402,F401 - re-exported


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
    log: Any = None  # agent.tools.mcp_log.ServerLog, from its first start
    # The calls waiting for an answer (agent.tools.mcp_calls): each is told when a message is lost.
    waiting: set[asyncio.Future] = field(default_factory=set)
    running: list[str] = field(default_factory=list)  # the tools called now, the newest last
    # What it offers besides tools (agent.tools.mcp_offers), listed once it is up; `session` is its
    # pydantic-ai MCPToolset, which reads them.
    prompts: list[Any] = field(default_factory=list)
    resources: list[Any] = field(default_factory=list)
    session: Any = None


def server_of(tool_name: str) -> str | None:
    """`mcp__github__get_issue` -> "github"; None for our own tools."""
    if not tool_name.startswith(PREFIX):
        return None
    return tool_name[len(PREFIX) :].split("__", 1)[0]


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
    servers, warnings = Servers(), bad_limits(lang) if found else []
    for layer, _value in settings.section("mcpSampling") if settings is not None else ():
        if not is_users(layer):  # a project may not spend the user's model on its own servers
            warnings.append(t("mcp_sampling_project", lang, path=settings.path(layer)))
    for name, (config, scope, where) in found.items():
        if not re.fullmatch(r"[A-Za-z0-9_-]+", name) or "__" in name or not _valid(config):
            warnings.append(t("mcp_bad", lang, path=where, name=name))
            continue
        servers.servers[name] = Server(name, config, scope)
    return servers, warnings


# --- running -------------------------------------------------------------------------------


def _client(server: Server, state: Any) -> Any:
    from fastmcp.client.transports import SSETransport, StreamableHttpTransport

    from agent.provider.grants import expand
    from agent.tools.mcp_calls import capped_client
    from agent.tools.mcp_requests import handlers
    from agent.tools.mcp_stdio import ServerProcess
    from agent.tools.shell import command_env

    config = expand(server.config)
    kind = config.get("type", "stdio")
    if kind == "stdio":
        env = {**command_env(state.project.env), **{k: str(v) for k, v in (config.get("env") or {}).items()}}
        transport = ServerProcess(
            config["command"], list(config.get("args", [])), env, str(config.get("cwd") or state.workspace), server.log
        )
    elif kind == "sse":
        transport = SSETransport(config["url"], headers=config.get("headers") or None)
    else:
        transport = StreamableHttpTransport(config["url"], headers=config.get("headers") or None)
    return capped_client(
        transport,
        _cap(server, state),
        message_handler=_on_message(server),
        log_handler=_on_log(server),
        **handlers(state, server),
    )


def _cap(server: Server, state: Any) -> Any:
    """How an answer of this server is cut: one read's share of the window now, the rest saved."""

    def cap(result: Any) -> Any:
        from agent.tools.answer_cap import cap_result, saved_path
        from agent.tools.read_cap import read_token_cap

        path = saved_path(state.workspace, state.session_id, f"{server.name}-{uuid.uuid4().hex[:12]}")
        return cap_result(result, read_token_cap(state.config.context_window), path)

    return cap


def _on_message(server: Server) -> Any:
    """What the session tells the client besides answers: a message it could not read ends the
    calls waiting on this server (the answer one of them waits for may be the one lost)."""

    async def handle(message: Any) -> None:
        if isinstance(message, Exception):
            reason = _reason(message)
            server.log.note(f"[client] a message from the server could not be read: {reason}")
            for waiter in list(server.waiting):
                if not waiter.done():
                    waiter.set_result(reason)

    return handle


def _on_log(server: Server) -> Any:
    async def handle(message: Any) -> None:
        text = message.data if isinstance(message.data, str) else json.dumps(message.data, ensure_ascii=False)
        server.log.note(f"[{message.level}{' ' + message.logger if message.logger else ''}] {text[:10_000]}")

    return handle


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

        from agent.tools.mcp_calls import Guarded

        toolset = MCPToolset(_client(server, state), tool_error_behavior="failed")
        async with contextlib.AsyncExitStack() as stack:
            limit = timeouts(state).start
            try:
                async with asyncio.timeout(limit):
                    await stack.enter_async_context(toolset)
                    listed = await toolset.list_tools()
                    await _list_offers(server, toolset)
            except TimeoutError:
                raise StartTimeout(limit) from None
            server.tools = [tool.name for tool in listed]
            defs = [
                {
                    "name": f"{PREFIX}{server.name}__{x.name}",
                    "description": x.description or "",
                    "parameters": x.input_schema,
                }
                for x in listed
            ]
            server.definition_tokens = tokens.count_text(json.dumps(defs, ensure_ascii=False))
            server.toolset = Guarded(
                toolset.prefixed(f"{PREFIX}{server.name}_"),
                server=server,
                fail=lambda exc: fail(state, server, exc),
                timeout=lambda: timeouts(state).tool,
            )
            server.session, server.state = toolset, "ready"
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


async def _list_offers(server: Server, toolset: Any) -> None:
    """Its prompts and resources (agent.tools.mcp_offers uses them); none if it fails to list them."""
    for kind, listing in (("prompts", toolset.list_prompts), ("resources", toolset.list_resources)):
        try:
            found = (await listing())[:LISTED]
        except Exception as exc:  # noqa: BLE001 - a server that lists no prompts still serves its tools
            server.log.note(f"[client] listing its {kind} failed: {str(exc)[:300]}")
            continue
        if kind == "prompts":  # a prompt is a slash command: its name must be one
            server.prompts = [p for p in found if re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", p.name)]
        else:
            server.resources = found


class StartTimeout(Exception):
    def __init__(self, seconds: float) -> None:
        super().__init__(f"did not finish starting in {seconds:g} s")
        self.seconds = seconds


def _import_client() -> None:
    import fastmcp.client  # noqa: F401 - a second of imports, kept off the event loop
    import pydantic_ai.mcp  # noqa: F401

    # The client libraries log to the terminal (fastmcp puts a handler on stderr at import; mcp's
    # records reach Python's last-resort handler): over the REPL, and with a server's text in them.
    # What a server does is in its own log (agent.tools.mcp_log); their records go to --debug's.
    for name in ("mcp", "fastmcp"):
        logger = logging.getLogger(name)
        logger.handlers = [_DebugLog()]
        logger.propagate = False


class _DebugLog(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        from agent import debuglog

        debuglog.log("mcp_library", logger=record.name, level=record.levelname, message=record.getMessage()[:2000])


def fail(state: Any, server: Server, exc: BaseException) -> None:
    if server.state == "failed":
        return
    server.state, server.toolset, server.session = "failed", None, None
    server.error = _reason(exc)
    server.log.note(f"[client] failed: {server.error}")
    if isinstance(exc, StartTimeout):
        _notice(state, "mcp_start_timeout", name=server.name, seconds=f"{exc.seconds:g}")
    else:
        _notice(state, "mcp_failed", name=server.name, error=server.error)


def _reason(exc: BaseException) -> str:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return (str(exc) or type(exc).__name__).splitlines()[0][:300]


def _launch(state: Any, server: Server) -> None:
    from agent.tools.mcp_log import ServerLog, log_path

    server.state, server.error, server.tools, server.toolset, server.definition_tokens = "starting", "", [], None, 0
    server.prompts, server.resources, server.session, server.running = [], [], None, []
    server.started, server.stop = asyncio.Event(), asyncio.Event()
    server.log = ServerLog(log_path(state.workspace, server.name))
    server.task = asyncio.get_running_loop().create_task(_serve(state, server))


def start(state: Any, trusted: bool) -> None:
    """Start the servers in the background: the user's always, the project's once it is approved."""
    for server in state.mcp.servers.values():
        if server.scope == "project" and not trusted:
            continue
        _launch(state, server)


async def restart(state: Any, server: Server) -> None:
    """/mcp retry: stop the server if it runs, start it again and wait until it is up or failed."""
    if server.task is not None and not server.task.done():
        server.stop.set()
        await asyncio.wait([server.task], timeout=timeouts(state).start)
        server.task.cancel()
    _launch(state, server)
    await wait_started(state)


async def wait_started(state: Any) -> None:
    """Before a turn: the servers still starting, until each is up or has given up (once: a server
    that does not start in time is marked failed, and later turns do not wait for it)."""
    from agent.events import WaitingForModel

    starting = [s for s in state.mcp.servers.values() if s.state == "starting"]
    if not starting:
        return
    state.emit(WaitingForModel(t("spin_mcp_starting", state.lang, names=", ".join(s.name for s in starting))))
    waits = [asyncio.ensure_future(s.started.wait()) for s in starting]
    # The server's own task gives up at its limit; this bound only covers its stopping after that.
    _done, pending = await asyncio.wait(waits, timeout=timeouts(state).start + STOP_GRACE)
    for waiting in pending:
        waiting.cancel()


async def stop_all(state: Any) -> None:
    servers = [s for s in state.mcp.servers.values() if s.task is not None and not s.task.done()]
    for server in servers:
        server.stop.set()
        if server.state == "starting":
            server.task.cancel()  # it would not see `stop` before its start ends
    if servers:
        done, pending = await asyncio.wait([s.task for s in servers], timeout=5)
        for task in pending:
            task.cancel()


# --- limits ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Timeouts:
    start: float  # seconds a server has to start
    tool: float  # seconds one tool call may take


def _millis(name: str) -> float | None:
    """An environment variable in milliseconds, as Claude Code reads MCP_TIMEOUT and MCP_TOOL_TIMEOUT."""
    text = os.environ.get(name, "").strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        value = 0
    return value / 1000 if value > 0 else None


def timeouts(state: Any) -> Timeouts:
    """MCP_TIMEOUT (the environment) for a start; MCP_TOOL_TIMEOUT, then `mcpToolTimeout` of the
    settings, for a call (both in milliseconds, as Claude Code's)."""
    settings = state.config.settings
    tool = _millis("MCP_TOOL_TIMEOUT")
    if tool is None and settings is not None and (given := settings.section("mcpToolTimeout")):
        tool = given[-1][1] / 1000
    return Timeouts(start=_millis("MCP_TIMEOUT") or START_TIMEOUT, tool=tool or TOOL_TIMEOUT)


def bad_limits(lang: str) -> list[str]:
    """One line per MCP_TIMEOUT / MCP_TOOL_TIMEOUT that is not a number of milliseconds above 0, and
    one if Claude Code's MAX_MCP_OUTPUT_TOKENS is set: answers are cut by read_file's rule here."""
    bad = []
    for name in ("MCP_TIMEOUT", "MCP_TOOL_TIMEOUT"):
        text = os.environ.get(name, "").strip()
        if text and _millis(name) is None:
            bad.append(t("mcp_bad_timeout", lang, name=name, value=text[:40]))
    if os.environ.get("MAX_MCP_OUTPUT_TOKENS", "").strip():
        bad.append(t("mcp_output_tokens_ignored", lang))
    return bad
