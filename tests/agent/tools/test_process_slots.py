"""Issue 19, finding 4: one reply with 200 grep calls never runs more than MAX_PROCESSES worker
processes at once (it started 200, 4 GB of memory)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from agent.tools.process_slots import MAX_PROCESSES
from main import on_submit
from tests.fake_openai import Text, ToolCalls


def _grep_workers() -> int:
    """Our children that are grep workers, from /proc (the kernel's count, not ours)."""
    count = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            if ppid == os.getpid() and b"grep_worker" in (entry / "cmdline").read_bytes():
                count += 1
        except (OSError, IndexError, ValueError):
            continue  # gone meanwhile
    return count


async def test_two_hundred_greps_in_one_reply_run_a_few_at_a_time(make_state, server, workspace, monkeypatch):
    monkeypatch.setenv("CODING_AGENT_GREP_TIMEOUT", "0.05")  # each worker lives until this limit
    (workspace / "evil.txt").write_text("a" * 40 + "!\n")
    server.script(ToolCalls([("grep", {"pattern": "(a+)+$"})] * 200), Text("done"))
    state = make_state()
    most, done = 0, threading.Event()

    def watch() -> None:
        nonlocal most
        # Sampled every 10 ms: each worker lives at least the 0.05 s limit, and a scan without a pause
        # would hold the interpreter lock the agent and the emulator's thread need.
        while not done.wait(0.01):
            most = max(most, _grep_workers())

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        await on_submit(state, "search a lot")
    finally:
        done.set()
        watcher.join()
    # The results as the turn kept them, whether or not the model's reply to them came back: what is
    # measured is the processes, not the endpoint (which answered 503 here once on a loaded CI machine).
    results = [p for m in state.history for p in m.parts if getattr(p, "part_kind", "") == "tool-return"]
    assert len(results) == 200, ([type(m).__name__ for m in state.history], state.emit.events[-3:])
    assert all("grep stopped after 0.05 s" in r.content for r in results)
    assert 2 <= most <= MAX_PROCESSES, most
