"""A stdio MCP server's process and pipes, as a transport of fastmcp's client (its public
`ClientTransport`, under pydantic-ai's MCPToolset), speaking through the `mcp` package's ClientSession.

Why not the `mcp` package's own stdio transport: it joins each chunk the server writes to the line
read so far, so one long answer costs time quadratic in its length, on the event loop (a 25 MB
answer: docs/measured.md), and it keeps a line of any size; and it gives the server's stderr a
file of ours (the terminal), which nothing can escape or bound.
Here a line is gathered in linear time and refused past MAX_MESSAGE bytes (the rest of it is read
and dropped, and the session is told, which ends the call waiting for it: agent.tools.mcp_calls);
stderr goes through a pipe into the server's log (agent.tools.mcp_log). Parsing a message holds the
event loop as long as it takes wherever it runs (the parser keeps the interpreter's lock throughout),
so MAX_MESSAGE also bounds that. The server runs in its own process group and ends as the MCP specification
says: its stdin closed, then SIGTERM to the group, then SIGKILL.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import AsyncIterator
from typing import Any

import anyio
import mcp_types
from anyio.abc import ByteReceiveStream, ByteSendStream, Process
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from fastmcp.client.transports import ClientTransport
from fastmcp.client.transports.base import TransportOptions
from mcp.client.stdio import get_default_environment
from mcp.os.posix.utilities import terminate_posix_process_tree
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from agent.tools.mcp_log import ServerLog

MAX_MESSAGE = 64 << 20  # bytes of one message from a server
EXIT_GRACE = 2.0  # seconds a server has to exit once its stdin is closed, and again after SIGTERM
_PIPE_ERRORS = (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError)


class AnswerTooLarge(ValueError):
    """A message over MAX_MESSAGE bytes: read and dropped, never held."""

    def __init__(self, size: int) -> None:
        super().__init__(f"a message of over {size / 1e6:,.0f} MB (more than {MAX_MESSAGE >> 20} MB) was dropped")


class ServerProcess(ClientTransport):
    """One connection is one process: the process starts when the session opens and ends with it."""

    def __init__(self, command: str, args: list[str], env: dict[str, str], cwd: str, log: ServerLog) -> None:
        self.command, self.args, self.env, self.cwd, self.log = command, args, env, cwd, log

    def __repr__(self) -> str:
        return f"<ServerProcess {self.command}>"

    @contextlib.asynccontextmanager
    async def connect_session(
        self, *, transport_options: TransportOptions | None = None, **session_kwargs: Any
    ) -> AsyncIterator[Any]:
        options = transport_options or TransportOptions()
        async with self._pipes() as (read, write), options.session_class(read, write, **session_kwargs) as session:
            yield session

    @contextlib.asynccontextmanager
    async def _pipes(self) -> AsyncIterator[tuple[Any, Any]]:
        self.log.start(" ".join([self.command, *self.args]))
        process = await anyio.open_process(
            [self.command, *self.args], env=get_default_environment() | self.env, cwd=self.cwd, start_new_session=True
        )
        answers, read = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        write, requests = anyio.create_memory_object_stream[SessionMessage](0)
        try:
            async with anyio.create_task_group() as tasks:
                assert process.stdout and process.stdin and process.stderr
                tasks.start_soon(_read_answers, process.stdout, answers)
                tasks.start_soon(_write_requests, process.stdin, requests, answers)
                tasks.start_soon(self._keep_stderr, process.stderr)
                try:
                    yield read, write
                finally:
                    with anyio.CancelScope(shield=True):
                        await _stop(process)
                        self.log.note(f"[client] the server ended (exit code {process.returncode})")
                    tasks.cancel_scope.cancel()
        finally:
            _kill_now(process)  # if the graceful stop above was itself cut short
            for stream in (read, write, answers, requests):
                stream.close()

    async def _keep_stderr(self, stderr: ByteReceiveStream) -> None:
        with contextlib.suppress(*_PIPE_ERRORS):
            async for chunk in stderr:
                self.log.write(chunk)


async def _read_answers(stdout: ByteReceiveStream, out: MemoryObjectSendStream[SessionMessage | Exception]) -> None:
    """One message per line. A line is kept in one bytearray (no joining of ever longer strings)."""
    line, dropped = bytearray(), 0
    with contextlib.suppress(*_PIPE_ERRORS):
        async with out:
            async for chunk in stdout:
                start = 0
                while (end := chunk.find(b"\n", start)) >= 0:
                    piece, start = chunk[start:end], end + 1
                    if dropped or len(line) + len(piece) > MAX_MESSAGE:
                        await out.send(AnswerTooLarge(dropped + len(line) + len(piece)))
                    elif line or piece.strip():
                        line += piece
                        await out.send(_parse(line))
                    line, dropped = bytearray(), 0
                rest = chunk[start:]
                if dropped or len(line) + len(rest) > MAX_MESSAGE:
                    dropped += len(line) + len(rest)
                    line = bytearray()
                else:
                    line += rest


def _parse(raw: bytearray) -> SessionMessage | Exception:
    try:
        return SessionMessage(mcp_types.jsonrpc_message_adapter.validate_json(raw, by_name=False))
    except ValidationError as exc:  # told to the session, as mcp does; its first error says why
        errors = exc.errors(include_url=False, include_input=False)
        return ValueError(f"not an MCP message: {errors[0]['msg'] if errors else exc}")
    except Exception as exc:  # noqa: BLE001 - whatever the parser raises, the session is told
        return exc


async def _write_requests(
    stdin: ByteSendStream, requests: MemoryObjectReceiveStream[SessionMessage], answers: MemoryObjectSendStream[Any]
) -> None:
    try:
        async with requests:
            async for message in requests:
                data = message.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
                await stdin.send(data.encode())
    except _PIPE_ERRORS:
        answers.close()  # the server stopped reading: the session sees the connection end, not a hang


async def _stop(process: Process) -> None:
    assert process.stdin
    with contextlib.suppress(*_PIPE_ERRORS):
        await process.stdin.aclose()
    if not await _exited(process, EXIT_GRACE):
        await terminate_posix_process_tree(process, EXIT_GRACE)
        await _exited(process, EXIT_GRACE)


async def _exited(process: Process, seconds: float) -> bool:
    """Whether the process ended within `seconds` (its return code, not the end of its pipes,
    which a child of it may still hold)."""
    with anyio.move_on_after(seconds):
        while process.returncode is None:
            await anyio.sleep(0.01)
    return process.returncode is not None


def _kill_now(process: Process) -> None:
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
