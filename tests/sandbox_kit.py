"""What the sandbox tests share: a real sandbox of each kind or a clear SKIPPED, a command run in it,
and a TCP server on 127.0.0.1 that counts who reached it."""

from __future__ import annotations

import asyncio
import os
import socket
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from agent.config import SandboxPolicy
from agent.tools.sandbox import detect
from agent.tools.sandbox.confine import Sandbox, settle


def bubblewrap(workspace: Path, **policy: object) -> Sandbox:
    """A bubblewrap sandbox over `workspace`, or the test is SKIPPED saying why."""
    found = detect.find(workspace)
    if found.kind != "bubblewrap":
        reasons = "; ".join(f"{key} {detail}".strip() for key, detail in found.missing)
        pytest.skip(f"SKIPPED: bubblewrap cannot run here ({reasons}); .ci/run installs it where it can")
    return Sandbox(SandboxPolicy(**policy), workspace.resolve(), found)  # type: ignore[arg-type]


def landlock(workspace: Path, **policy: object) -> Sandbox:
    """The Landlock fallback over `workspace`, chosen directly (as detect would without bubblewrap)."""
    abi = detect.landlock_abi()
    if not abi:
        pytest.skip("SKIPPED: this kernel has no Landlock (or it is off): the fallback cannot run here")
    return Sandbox(
        SandboxPolicy(**policy), workspace.resolve(), detect.Mechanism("landlock", f"Landlock ABI {abi}", abi=abi)
    )


def run(sandbox: Sandbox | None, command: str, cwd: Path | None = None, timeout: float = 30) -> str:
    from agent.tools.shell import execute

    out = asyncio.run(execute(command, cwd or (sandbox.workspace if sandbox else Path.cwd()), timeout, sandbox))
    settle()  # the placeholders of absent protected paths are gone once it returns, as after a real turn
    return out


@contextmanager
def tcp_server() -> Iterator[tuple[int, list[str]]]:
    """A server on 127.0.0.1: its port, and one entry per connection it accepted."""
    accepted: list[str] = []
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, peer = server.accept()
            except OSError:
                continue
            accepted.append(str(peer))
            conn.close()

    worker = threading.Thread(target=serve, daemon=True)
    worker.start()
    try:
        yield server.getsockname()[1], accepted
    finally:
        stop.set()
        worker.join()
        server.close()


def processes_named(marker: str) -> list[int]:
    """Live processes whose command line holds `marker`."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as f:
                if marker.encode() in f.read():
                    found.append(int(name))
        except OSError:
            pass
    return found


def connect(port: int) -> str:
    """A command that connects to 127.0.0.1:`port` and says so."""
    code = f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=5); print('CONNECTED')"
    return f'{sys.executable} -c "{code}"'
