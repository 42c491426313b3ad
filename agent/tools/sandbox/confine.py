"""The one entry point: a command line run in the sandbox the policy asks for, with the mechanism
this machine has (agent.tools.sandbox.detect), from the command's Layout (agent.tools.sandbox.layout).

`for_commands` says whether commands are sandboxed at all (`for_command`: this one); `Sandbox.launch`
gives the command line to start and cleans up after it.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import threading
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.config import SandboxPolicy
from agent.tools.sandbox import detect, pids
from agent.tools.sandbox.layout import Layout, link_of, plan
from agent.tools.sandbox.policy import sandboxed_mode

if TYPE_CHECKING:
    from asyncio.subprocess import Process


@dataclass
class Launch:
    """What to start: `argv` in `env`, with `pass_fds` kept open in it (bubblewrap's report of its
    first process); `spawned()` once it runs, `kill_inside()` when it must stop before its end."""

    argv: list[str]
    env: dict[str, str]
    layout: Layout
    pass_fds: tuple[int, ...] = ()
    _report: int | None = field(default=None, repr=False)

    async def start(self, spawn: Awaitable[Process], stop: Callable[[Process], Awaitable[None]]) -> Process:
        """`spawn` (started with `pass_fds`) awaited to its end even when cancelled meanwhile, the
        process then ended by `stop`: a cancel inside asyncio's own start kills bubblewrap alone and
        waits for the output pipe to close, which the sandbox's first process may hold for ever."""
        task = asyncio.ensure_future(spawn)
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            proc = await task
            self.spawned()
            await stop(proc)
            raise
        finally:
            self.spawned()

    def spawned(self) -> None:
        """The process started: our copy of its end of the report goes, so the report ends when its does."""
        for fd in self.pass_fds:
            os.close(fd)
        self.pass_fds = ()

    async def kill_inside(self) -> None:
        """Kill the sandbox's first process, and with it everything in the sandbox (its PID namespace).
        Killing bubblewrap, even its process group, is not enough early on: the first process leaves
        the group (--new-session) before it ties its life to bubblewrap's (--die-with-parent), and
        one left behind runs the command and holds its output pipe open. bubblewrap names it before
        letting it start; this waits for that."""
        if self._report is None:
            return
        report = await _read_report(self._report)
        if report is not None:
            _kill_first(*report)


def _kill_first(pid: int, namespace: int) -> None:
    """SIGKILL the sandbox's first process if `pid` is still it: once it has ended, its number may be
    another process's. Held through a pidfd, it is checked to be the init of the PID namespace
    bubblewrap reported. No pidfd (a kernel before 5.3): not killed, rather than by number alone."""
    try:
        handle = os.pidfd_open(pid)
    except OSError:
        return
    try:
        if os.stat(f"/proc/{pid}/ns/pid").st_ino == namespace:
            signal.pidfd_send_signal(handle, signal.SIGKILL)
    except OSError:
        pass
    finally:
        os.close(handle)


async def _read_report(fd: int, patience: float = 5.0) -> tuple[int, int] | None:
    """The first process's pid and PID namespace that bubblewrap writes to its --info-fd, or None if
    it ended without them."""
    loop = asyncio.get_running_loop()
    os.set_blocking(fd, False)
    data = bytearray()
    ended = loop.create_future()

    def readable() -> None:
        try:
            chunk = os.read(fd, 4096)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        data.extend(chunk)
        if (not chunk or _parsed(data) is not None) and not ended.done():
            ended.set_result(None)

    loop.add_reader(fd, readable)
    try:
        await asyncio.wait_for(ended, patience)
    except TimeoutError:
        pass
    finally:
        loop.remove_reader(fd)
    return _parsed(data)


def _parsed(data: bytes | bytearray) -> tuple[int, int] | None:
    try:
        report = json.loads(data)
        return int(report["child-pid"]), int(report["pid-namespace"])
    except (ValueError, KeyError, TypeError):
        return None


@dataclass(frozen=True)
class Sandbox:
    policy: SandboxPolicy
    workspace: Path
    mechanism: detect.Mechanism

    @contextmanager
    def launch(self, inner: list[str], cwd: Path, env: dict[str, str], write: bool = True) -> Iterator[Launch]:
        """The command line that runs `inner` confined (`write`: with the policy's writable folders;
        without, only the private temp folder, as for grep). Placeholders go when the last ends."""
        with _lock:
            ours = frozenset(_made)
        layout = plan(self.policy, self.workspace, cwd, write, ours)
        made_here = self.mechanism.kind == "bubblewrap"
        limit = self.policy.max_processes
        with _placeholders(layout, made_here), pids.cgroup(limit) as procs, _report(made_here) as report:
            line = _argv(self, layout, inner, report[1] if report else None)
            if procs is not None:  # root: the first process joins the command's pids cgroup, then runs the rest
                line = ["/bin/sh", "-c", 'echo $$ > "$0" && exec "$@"', str(procs), *line]
            launch = Launch(line, _env(self, layout, env), layout)
            if report:
                launch.pass_fds, launch._report = (report[1],), report[0]
            try:
                yield launch
            finally:
                launch.spawned()

    def swapped_links(self, layout: Layout) -> list[Path]:
        """Protected symlinks that a command replaced (the one change the mounts cannot stop)."""
        return [path for path, target in layout.links.items() if link_of(path) != target]


def for_commands(config: Any, workspace: Path) -> Sandbox | None:
    """The sandbox commands run in, or None: no policy, danger-full-access, or no mechanism here."""
    policy = getattr(config, "sandbox", None)
    if not sandboxed_mode(policy):
        return None
    mechanism = detect.find(workspace)
    if not mechanism.works:
        return None
    from agent.tools.workspace import added_folders

    # A folder the user added (/add-dir) is written as the workspace is, with the same folders kept read-only.
    if added := [folder for folder in added_folders(workspace) if folder not in policy.writable_roots]:
        policy = replace(policy, writable_roots=(*policy.writable_roots, *added))
    return Sandbox(policy, workspace.resolve(), mechanism)


@contextmanager
def _placeholders(layout: Layout, made_here: bool) -> Iterator[None]:
    """bubblewrap makes each absent protected path as a mount point in the real folder; they are
    removed once no sandbox is running (removing one under a live sandbox would unmount it there).
    Removing a folder that was a mount point waits for the kernel to detach the dead sandbox's
    mounts, milliseconds each, so it is done by a thread after the command has answered; it holds
    the lock throughout, so a new sandbox starts only before it or after it."""
    global _live
    with _lock:
        _live += 1
        if made_here:
            _made.update(p for p in layout.absent if not p.exists())
    try:
        yield
    finally:
        with _lock:
            _live -= 1
            if _live == 0 and _made:
                _cleaner[:] = [t for t in _cleaner if t.is_alive()]
                _cleaner.append(threading.Thread(target=_remove_placeholders, name="sandbox-placeholders"))
                _cleaner[-1].start()  # not a daemon: the interpreter waits for it at exit


def _remove_placeholders() -> None:
    with _lock:
        if _live:
            return  # a sandbox started meanwhile: the one that ends last removes them
        for path in sorted(_made, reverse=True):
            try:
                path.rmdir()  # an empty folder only: never anything a user put there
            except OSError:
                pass
        _made.clear()


def settle() -> None:
    """Wait until the placeholders of the sandboxes that have ended are removed."""
    while _cleaner:
        _cleaner.pop(0).join()


@contextmanager
def _report(wanted: bool) -> Iterator[tuple[int, int] | None]:
    """A pipe for bubblewrap's --info-fd (read end, write end); the read end is closed after."""
    if not wanted:
        yield None
        return
    read_fd, write_fd = os.pipe()
    try:
        yield read_fd, write_fd
    finally:
        os.close(read_fd)


_lock = threading.Lock()
_live = 0
_made: set[Path] = set()
_cleaner: list[threading.Thread] = []


# --- each mechanism's command line -----------------------------------------------------------


def _argv(sandbox: Sandbox, layout: Layout, inner: list[str], report: int | None) -> list[str]:
    mechanism = sandbox.mechanism
    if mechanism.kind == "bubblewrap":
        from agent.tools.sandbox import bwrap

        assert mechanism.program is not None
        line = bwrap.argv(mechanism.program, layout, inner, report)
        limit = pids.rlimit(sandbox.policy.max_processes)
        return [mechanism.prlimit, f"--nproc={limit}:{limit}", "--", *line] if limit and mechanism.prlimit else line
    if mechanism.kind == "landlock":
        from agent.tools.sandbox import landlock

        return landlock.argv(layout, inner, mechanism.abi, pids.rlimit(sandbox.policy.max_processes))
    from agent.tools.sandbox import seatbelt

    assert mechanism.program is not None
    return seatbelt.argv(mechanism.program, layout, inner)


def _env(sandbox: Sandbox, layout: Layout, env: dict[str, str]) -> dict[str, str]:
    tmp = "/tmp" if sandbox.mechanism.kind == "bubblewrap" else str(layout.tmp)
    return {**env, "TMPDIR": tmp}


def for_command(state: Any, command: str) -> Sandbox | None:
    """The sandbox `command` runs in: None also when an allow rule marked `"sandbox": false` names it."""
    sandbox = for_commands(state.config, state.workspace)
    if sandbox is None or not state.permissions.outside_sandbox:
        return sandbox
    from agent.tools.permissions import Permissions, decide

    outside = Permissions(rules={"deny": [], "ask": [], "allow": list(state.permissions.outside_sandbox)})
    kind, _rule = decide(outside, "run_command", state.workspace, command=command)
    return None if kind == "allow" else sandbox
