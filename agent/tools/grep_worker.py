"""grep's regex search, run in a child process with a time limit.

Python's `re` backtracks: a pattern like `(a+)+$` on a line of 45 `a`s and a `!` takes longer than
the universe has existed, and `re` holds the GIL the whole time, so in a thread it would freeze the
REPL and ignore Ctrl-C just the same. A non-backtracking engine (RE2) would change the syntax the
tool promises (no backreferences or lookarounds) and is one more compiled dependency. A worker
process keeps Python's syntax exactly and can always be killed: on the time limit, or at once when
Ctrl-C cancels the tool. It starts in about 20 ms (-I -S: no site-packages, nothing from the
environment) and gets the file list from us, so the confinement checks stay in this process.

Run as a script: reads {"pattern", "files": [[path, name]], "line_cap", "show_cap", "max"} as JSON
on stdin, writes one JSON string per matching line on stdout as it finds it.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import signal
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agent.tools.process_slots import holds_slot

if TYPE_CHECKING:
    from agent.tools.sandbox.confine import Launch, Sandbox

ROOT = Path(__file__).resolve().parents[2]  # the checkout: agent/tools/ is two folders down


def _search(job: dict) -> None:
    import re

    from agent.state.file_state import file_lines, looks_binary, open_regular

    regex = re.compile(job["pattern"])
    found = 0
    for path, name in job["files"]:
        try:
            with open_regular(Path(path)) as f:
                if looks_binary(f):
                    continue
                for n, line in enumerate(file_lines(f, job["line_cap"]), start=1):
                    if regex.search(line):
                        cap = job["show_cap"]
                        shown = line if len(line) <= cap else line[:cap] + " [...]"
                        sys.stdout.write(json.dumps(f"{name}:{n}:{shown}") + "\n")
                        sys.stdout.flush()
                        found += 1
                        if found > job["max"]:
                            return
        except OSError:
            pass  # unreadable files, FIFOs and devices are skipped like binaries


@dataclass
class Outcome:
    lines: list[str]
    timed_out: bool


@holds_slot
async def run(
    pattern: str,
    files: list[tuple[str, str]],
    *,
    line_cap: int,
    show_cap: int,
    max_matches: int,
    timeout: float,
    env: dict[str, str],
    sandbox: Sandbox | None = None,
) -> Outcome:
    """The matching lines (at most max_matches + 1); killed after `timeout` s or when cancelled.
    Waits for a free process slot first (agent.tools.process_slots). In `sandbox`, if given, with
    nothing to write (agent.tools.sandbox)."""
    code = f"import sys; sys.path.insert(0, {str(ROOT)!r}); from agent.tools.grep_worker import main; main()"
    argv = [sys.executable, "-I", "-S", "-c", code]
    job = {"pattern": pattern, "files": files, "line_cap": line_cap, "show_cap": show_cap, "max": max_matches}
    job["deadline"] = math.ceil(timeout) + 1
    if sandbox is None:
        job["parent"] = os.getpid()  # in a sandbox, bwrap's --die-with-parent does this job
        return await _search_in(argv, env, job, timeout)
    with sandbox.launch(argv, sandbox.workspace, env, write=False) as launch:
        return await _search_in(launch.argv, launch.env, job, timeout, launch)


async def _search_in(
    argv: list[str], env: dict[str, str], job: dict, timeout: float, launch: Launch | None = None
) -> Outcome:
    spawn = asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        env=env,
        limit=1 << 20,
        # Out of the terminal's process group: Ctrl-C reaches the agent alone, which cancels the
        # search; `re` stops on SIGINT, and a worker that ended by itself at that moment would pass
        # its partial matches off as the answer.
        start_new_session=True,
        pass_fds=launch.pass_fds if launch else (),
    )
    proc = await (launch.start(spawn, lambda p: _stop(p, launch)) if launch else spawn)
    lines: list[str] = []

    async def collect() -> None:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps(job).encode())
        proc.stdin.close()
        while raw := await proc.stdout.readline():
            lines.append(json.loads(raw))
        await proc.wait()

    try:
        await asyncio.wait_for(collect(), timeout)
        return Outcome(lines, timed_out=False)
    except TimeoutError:
        return Outcome(lines, timed_out=True)
    finally:
        if proc.returncode is None:
            await _stop(proc, launch)


async def _stop(proc: asyncio.subprocess.Process, launch: Launch | None) -> None:
    if launch:
        await launch.kill_inside()
    proc.kill()
    await proc.wait()


def _bound_lifetime(deadline: int, parent: int | None) -> None:
    """The worker ends on its own: an agent killed outright (SIGKILL, a closed terminal) cannot kill
    it, and a pattern like (a+)+$ would keep a core busy for ever. Both signals keep their default
    action, which the kernel carries out even while `re` holds the interpreter."""
    signal.alarm(deadline)
    if sys.platform == "linux":
        import ctypes

        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: die with the parent
    if parent is not None and os.getppid() != parent:  # it died before the line above
        os._exit(1)


def main() -> None:
    job = json.loads(sys.stdin.read())
    _bound_lifetime(job["deadline"], job.get("parent"))
    try:
        _search(job)
    except BrokenPipeError:
        os._exit(0)


if __name__ == "__main__":
    main()
