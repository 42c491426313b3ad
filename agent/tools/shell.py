"""Running a shell command: bounded output, its own process group, killed whole on timeout
or Ctrl-C, no API keys in its environment, and the OS sandbox around it when there is one."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from agent.provider.keys import is_key_name
from agent.tools.memory_guard import command_preexec
from agent.tools.process_slots import holds_slot

if TYPE_CHECKING:
    from agent.tools.sandbox.confine import Launch, Sandbox

COMMAND_HEAD = 15_000  # bytes of output kept from the start...
COMMAND_TAIL = 15_000  # ...and from the end
KILL_GRACE = 2.0  # seconds between SIGTERM and SIGKILL
DRAIN_GRACE = 1.0  # seconds to keep reading after the shell exits (background children)


def command_env(project: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for commands: ours without API keys, so a command cannot leak them, over an
    approved project's `env` (agent.provider.trust: a variable already set wins, as in the settings)."""
    # The agent removes them from its own environment at start-up (agent.provider.keys); this is for callers
    # that did not (tests, library use).
    return {k: v for k, v in {**(project or {}), **os.environ}.items() if not is_key_name(k)}


class HeadTail:
    """Keeps the first and last bytes of a stream of any length in bounded memory."""

    def __init__(self, head: int = COMMAND_HEAD, tail: int = COMMAND_TAIL) -> None:
        self.head_limit, self.tail_limit = head, tail
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.head_limit - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        self.tail += chunk
        if len(self.tail) > self.tail_limit:
            del self.tail[: len(self.tail) - self.tail_limit]

    def text(self) -> str:
        cut = self.total - len(self.head) - len(self.tail)
        middle = f"\n[... {cut} bytes cut ...]\n".encode() if cut else b""
        return bytes(self.head + middle + self.tail).decode("utf-8", errors="replace")


async def _pump(stream: asyncio.StreamReader, out: HeadTail) -> None:
    while chunk := await stream.read(1 << 16):
        out.add(chunk)


def _signal_group(pid: int, sig: signal.Signals) -> None:
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


async def _kill_group(proc: asyncio.subprocess.Process, launch: Launch | None) -> None:
    _signal_group(proc.pid, signal.SIGTERM)
    try:
        await asyncio.wait_for(proc.wait(), KILL_GRACE)
    except TimeoutError:
        pass
    finally:
        # Always: children that ignored SIGTERM or outlived the shell still hold the group.
        await _kill_now(proc, launch)


async def _kill_now(proc: asyncio.subprocess.Process, launch: Launch | None) -> None:
    if launch:  # a sandbox's processes have a session of their own, out of the group's reach
        await launch.kill_inside()
    _signal_group(proc.pid, signal.SIGKILL)


async def _open_output(read_fd: int) -> tuple[asyncio.StreamReader, asyncio.ReadTransport]:
    loop = asyncio.get_running_loop()
    stream = asyncio.StreamReader(limit=1 << 16)
    pipe = os.fdopen(read_fd, "rb", buffering=0)
    transport, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stream), pipe)
    return stream, transport


@holds_slot
async def execute(
    command: str, cwd: Path, timeout: float, sandbox: Sandbox | None = None, env: dict[str, str] | None = None
) -> str:
    """Run `command` in a shell (in `sandbox`, if given: agent.tools.sandbox; in `env`, else
    command_env()); its output (capped) and how it ended. Waits for a process slot."""
    env = command_env() if env is None else env
    if sandbox is None:
        return await _run(["/bin/sh", "-c", command], cwd, timeout, env)
    with sandbox.launch(["/bin/sh", "-c", command], cwd, env) as launch:
        output = await _run(launch.argv, cwd, timeout, launch.env, launch)
    if swapped := sandbox.swapped_links(launch.layout):
        output += f"\n[warning: the command replaced {', '.join(map(str, swapped))}, which the sandbox protects]"
    return output


async def _run(argv: list[str], cwd: Path, timeout: float, env: dict[str, str], launch: Launch | None = None) -> str:
    # Our own pipe rather than PIPE: asyncio's wait() would wait for every holder of the pipe to
    # close it, forever if the command left a background child (`server &`) behind.
    read_fd, write_fd = os.pipe()
    try:
        spawn = asyncio.create_subprocess_exec(
            *argv,
            cwd=cwd,
            start_new_session=True,  # its own process group, so it can be killed whole
            stdin=asyncio.subprocess.DEVNULL,
            stdout=write_fd,
            stderr=write_fd,
            env=env,
            preexec_fn=command_preexec(),  # no CAP_SYS_PTRACE: our memory stays out of reach
            pass_fds=launch.pass_fds if launch else (),
        )
        proc = await (launch.start(spawn, lambda p: _kill_now(p, launch)) if launch else spawn)
    except BaseException:
        os.close(read_fd)
        raise
    finally:
        os.close(write_fd)
    try:
        stream, transport = await _open_output(read_fd)
    except BaseException:
        # Ctrl-C can land while the output pipe is being set up, after the command has started.
        await _kill_now(proc, launch)
        raise
    output = HeadTail()
    reader = asyncio.create_task(_pump(stream, output))
    ending = ""
    try:
        async with asyncio.timeout(timeout):
            await proc.wait()
            # Background children may still write, or hold the pipe open: drain briefly, move on.
            await asyncio.wait({reader}, timeout=DRAIN_GRACE)
    except TimeoutError:
        await _kill_group(proc, launch)
        ending = f"[killed: timed out after {timeout:g} seconds]"
    except asyncio.CancelledError:
        await _kill_group(proc, launch)
        raise
    finally:
        reader.cancel()
        transport.close()
    text = output.text() or "(no output)"
    return f"{text.rstrip()}\n{ending or f'[exit code: {proc.returncode}]'}"
