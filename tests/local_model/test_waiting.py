"""Waiting on a CPU server: the timeout's words, and Ctrl-C during the prompt's processing."""

from __future__ import annotations

import asyncio
import json
import time
import urllib.request

from agent.events import Notice, WaitingForModel
from main import on_submit
from tests.local_model.test_window import numbered_code


def until(server, busy: bool, timeout: float = 120) -> None:
    """Until the server's one slot is (or is no longer) processing a task, by its /slots."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with urllib.request.urlopen(server.root + "/slots", timeout=10) as response:
            slots = json.loads(response.read())
        if any(s.get("is_processing") for s in slots) == busy:
            return
        time.sleep(0.05)  # the server has no way to push its state: polled
    raise AssertionError(f"the server's slot did not become {'busy' if busy else 'idle'}")


async def test_a_timeout_says_the_server_may_still_be_processing(local_state, monkeypatch):
    monkeypatch.setenv("CODING_AGENT_TIMEOUT", "0.5")
    state = local_state(4096)
    # A prompt no cache holds: processing it takes seconds even on quiet cores.
    await on_submit(state, "Say ok.\n" + numbered_code(30).replace("item", "timeout_case"))
    (error,) = [n.text for n in state.emit.of(Notice) if n.level == "error"]
    assert "within 0 s" in error or "within 1 s" in error
    assert "CODING_AGENT_TIMEOUT" in error and "processing" in error


async def test_ctrl_c_while_the_server_works_counts_the_request(local_state, llama):
    state = local_state(4096)
    sent = asyncio.Event()
    log = state.emit

    def emit(event):
        log(event)
        if isinstance(event, WaitingForModel):
            sent.set()

    state.emit = emit
    turn = asyncio.create_task(on_submit(state, "Say ok.\n" + numbered_code(30).replace("item", "ctrl_c_case")))
    await sent.wait()
    server = llama(4096)
    await asyncio.to_thread(until, server, busy=True)  # the server has it and works on the prompt
    turn.cancel()
    try:
        await turn
    except asyncio.CancelledError:
        pass
    assert state.stats.requests == 1
    # Nothing came back, and the user's message stays, marked interrupted (issue 20: Ctrl-C loses nothing).
    prompts = [p.content for m in state.history for p in m.parts if p.part_kind == "user-prompt"]
    assert any("ctrl_c_case" in str(p) for p in prompts)
    await asyncio.to_thread(until, server, busy=False)  # and the server stopped working on it
