"""A grep worker never outlives its search: a regex that never ends is stopped by the worker's own
deadline, and the worker dies with the agent even when the agent is killed outright (SIGKILL), so
that nothing keeps a core busy after the agent is gone (seen on CI's machine: an orphan at 100%)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from agent.tools import grep_worker
from tests.robustness.harness import wait_for

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")

WORKER = f"import sys; sys.path.insert(0, {str(grep_worker.ROOT)!r}); from agent.tools.grep_worker import main; main()"


def _evil(folder: Path) -> Path:
    path = folder / "evil.txt"
    path.write_text("a" * 45 + "!\n")  # (a+)+$ backtracks on it for longer than anyone waits
    return path


def _children(parent: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            if entry.name.isdigit() and ppid == parent and b"grep_worker" in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except (OSError, IndexError, ValueError):
            continue
    return found


def _running(pid: int) -> bool:
    try:  # a zombie waiting for its reaper has stopped running
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_a_worker_ends_at_its_own_deadline(tmp_path):
    job = {"pattern": "(a+)+$", "files": [[str(_evil(tmp_path)), "evil.txt"]], "line_cap": 10_000}
    job |= {"show_cap": 200, "max": 100, "deadline": 1}
    worker = subprocess.Popen([sys.executable, "-I", "-S", "-c", WORKER], stdin=subprocess.PIPE)
    worker.communicate(json.dumps(job).encode(), timeout=60)
    assert worker.returncode == -signal.SIGALRM


def test_a_worker_dies_with_an_agent_killed_outright(tmp_path):
    # The agent's side as builtin.grep calls it, with a ten-minute limit it never reaches.
    agent = textwrap.dedent(f"""
        import asyncio, os, sys
        sys.path.insert(0, {str(grep_worker.ROOT)!r})
        from agent.tools.grep_worker import run
        asyncio.run(run("(a+)+$", [({str(_evil(tmp_path))!r}, "evil.txt")], line_cap=10_000, show_cap=200,
                        max_matches=100, timeout=600, env={{"PATH": os.environ["PATH"]}}))
    """)
    parent, workers = subprocess.Popen([sys.executable, "-c", agent]), []
    try:
        assert wait_for(lambda: bool(_children(parent.pid)), 30), "the worker never started"
        workers[:] = _children(parent.pid)
        (worker,) = workers
        assert _running(worker)
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait()
        assert wait_for(lambda: not _running(worker), 30), "the worker outlived the agent"
    finally:
        parent.kill()
        for pid in workers:
            if _running(pid):
                os.kill(pid, signal.SIGKILL)
