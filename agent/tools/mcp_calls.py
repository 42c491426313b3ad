"""An MCP server's tools as the agent calls them. A call ends with an error line for the model
(never a hang) when the server does not answer within the tool timeout (agent.tools.mcp_servers.timeouts),
or when the session reports a message from it that could not be read (the answer the call waits
for may be that one: the client drops it and would wait forever). A server that dies costs its tools,
not the turn. An answer too big for the window is cut like read_file's as soon as the session has
it (`capped_client`, agent.tools.answer_cap), before the client libraries map it and before the hooks,
the history or the gauge see it. While a call runs, the spinner names its tool and shows the progress
its server reports (agent.tools.mcp_requests)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from agent.events import ToolProgress
from agent.tools.mcp_requests import PROGRESS, progress_handler


def _connection_lost(exc: BaseException | None) -> bool:
    """Whether `exc` (or what caused it) says the server is gone rather than that its tool failed."""
    seen = 0
    while exc is not None and seen < 10:
        if (
            isinstance(exc, (OSError, EOFError))
            or "Connection closed" in str(exc)
            or type(exc).__name__ in ("ClosedResourceError", "BrokenResourceError", "EndOfStream")
        ):
            return True
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return False


async def _answer(call: asyncio.Task, server: Any, seconds: float) -> tuple[str, Any]:
    """("ok", the answer) or ("lost", why) or ("timeout", None); Ctrl-C ends the call too."""
    # An ended call's own failure is nobody's to report (asyncio would print it on the terminal).
    call.add_done_callback(lambda task: task.cancelled() or task.exception())
    lost = asyncio.get_running_loop().create_future()
    server.waiting.add(lost)
    try:
        done, _ = await asyncio.wait({call, lost}, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        call.cancel()
        raise
    finally:
        server.waiting.discard(lost)
    if call in done:
        return "ok", call.result()
    call.cancel()
    return ("lost", lost.result()) if lost in done else ("timeout", None)


def Guarded(
    wrapped: Any,
    *,
    server: Any,
    fail: Callable[[BaseException], None],  # noqa: N802 - reads as a class
    timeout: Callable[[], float],
) -> Any:
    """The server's toolset for the agent (a pydantic-ai WrapperToolset around its MCPToolset): `fail`
    marks the server failed, `timeout` is the tool timeout now (agent.tools.mcp_servers owns both)."""
    from dataclasses import dataclass

    from pydantic_ai.toolsets import WrapperToolset

    @dataclass
    class _Guarded(WrapperToolset):
        async def __aenter__(self) -> Any:
            return self  # the connection is held by the server's own task (mcp_servers._serve)

        async def __aexit__(self, *args: Any) -> bool | None:
            return None

        async def get_tools(self, ctx: Any) -> Any:
            if server.state != "ready":
                return {}
            try:
                return await self.wrapped.get_tools(ctx)
            except Exception as exc:  # noqa: BLE001
                fail(exc)
                return {}

        async def call_tool(self, name: str, tool_args: dict[str, Any], ctx: Any, tool: Any) -> Any:
            if server.state != "ready":
                return f"Error: the MCP server {server.name} is not running ({server.error or server.state})"
            seconds = timeout()
            # The spinner names this tool from now on (an approval asked before it is answered), and its
            # progress reaches it: the call's task carries the handler (capped_client reads it).
            ctx.deps.emit(ToolProgress(name))
            token = PROGRESS.set(progress_handler(ctx.deps.emit, name))
            try:
                call = asyncio.ensure_future(self.wrapped.call_tool(name, tool_args, ctx, tool))
            finally:
                PROGRESS.reset(token)
            server.running.append(name)
            try:
                how, answer = await _answer(call, server, seconds)
            except Exception as exc:
                if not _connection_lost(exc):
                    raise  # the tool's own error: the model reads it (pydantic-ai's ToolFailed)
                fail(exc)
                return f"Error: the MCP server {server.name} failed: {server.error}"
            finally:
                server.running.remove(name)
            if how == "lost":
                return (
                    f"Error: the MCP server {server.name} sent an answer that could not be read ({answer}); "
                    "the call was ended"
                )
            if how == "timeout":
                server.log.note(f"[client] {name} did not answer in {seconds:g} s; the call was ended")
                return (
                    f"Error: {name} did not answer in {seconds:g} s, so the call was ended "
                    "(the limit is mcpToolTimeout in the settings, or MCP_TOOL_TIMEOUT, in milliseconds)"
                )
            return answer

    return _Guarded(wrapped)


def capped_client(transport: Any, cap: Callable[[Any], Any], **options: Any) -> Any:
    """A fastmcp Client whose every tool answer (mcp_types.CallToolResult) passes `cap`, in a worker
    thread, before fastmcp and pydantic-ai read it (`call_tool_mcp` is where fastmcp's `call_tool`
    gets the session's answer)."""
    from fastmcp.client import Client

    class _CappedClient(Client):
        async def call_tool_mcp(
            self,
            name: str,
            arguments: dict[str, Any],
            progress_handler: Any = None,
            timeout: Any = None,
            meta: dict[str, Any] | None = None,
        ) -> Any:
            result = await super().call_tool_mcp(
                name, arguments, timeout=timeout, meta=meta, progress_handler=progress_handler or PROGRESS.get()
            )
            return await asyncio.to_thread(cap, result)

    return _CappedClient(transport, **options)
