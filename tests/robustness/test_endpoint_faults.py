"""3. The endpoint misbehaves: refused connections, 401/403, an unknown model, 429 with
Retry-After, 500/503, timeouts, a stream cut off mid-answer, malformed JSON, broken tool
arguments, empty answers. Bounded retries where a retry can help, then one clear line; the
history stays one the next request accepts; nothing half-written reaches the session file."""

from __future__ import annotations

import socket
import time

import pytest

import session
from agent.events import Notice
from main import on_submit
from tests.fake_openai import CutStream, Empty, Error, Hang, Malformed, Text, ToolCalls
from tests.robustness.harness import (
    answer,
    consistent,
    crash_text,
    next_turn_is_accepted,
    run_agent,
)

# name -> (replies scripted for the turn, a phrase of the one error line, requests the turn may make)
FAULTS: dict[str, tuple[list, str, int]] = {
    "401": ([Error(401, "Authentication Fails, Your api key is invalid")], "DEEPSEEK_API_KEY", 1),
    "403": ([Error(403, "forbidden")], "HTTP 403", 1),
    "unknown-model-404": ([Error(404, "The model `x` does not exist", code="model_not_found")], "--model", 1),
    "unknown-model-400": ([Error(400, "Model Not Exist")], "--model", 1),
    "429-exhausted": ([Error(429, "Rate limit reached", {"Retry-After": "0"})] * 3, "HTTP 429", 3),
    "500-exhausted": ([Error(500, "boom")] * 3, "HTTP 500", 3),
    "503-exhausted": ([Error(503, "overloaded")] * 3, "HTTP 503", 3),
    "cut-stream": ([CutStream("The answer starts well and then", 2)], "broke off mid-answer", 1),
    "malformed-json": ([Malformed()], "not valid JSON", 1),
    "empty-every-time": ([Empty()] * 6, "could not be used", 4),
    "broken-args-every-time": ([ToolCalls([("read_file", '{"path": ')])] * 6, "could not be used", 4),
}
# Faults the agent gets past on its own: a retry or a second try of the model.
RECOVERED: dict[str, tuple[list, str]] = {
    "429-then-ok": ([Error(429, "Rate limit reached", {"Retry-After": "1"}), Text("fine now")], "fine now"),
    "500-then-ok": ([Error(500, "boom"), Text("fine now")], "fine now"),
    "503-then-ok": ([Error(503, "overloaded"), Error(503, "overloaded"), Text("fine now")], "fine now"),
    "empty-once": ([Empty()], "Echo:"),
    "broken-args-once": ([ToolCalls([("read_file", '{"path": ')])], "Done:"),
    "unknown-tool": ([ToolCalls([("delete_everything", {"path": "/"})])], "Done:"),
    "args-of-wrong-type": ([ToolCalls([("read_file", {"path": ["a", "b"], "offset": "x"})])], "Done:"),
}


def _errors(state) -> list[str]:
    return [n.text for n in state.emit.of(Notice) if n.level == "error"]


@pytest.fixture
def retries(monkeypatch):
    monkeypatch.setenv("CODING_AGENT_MAX_RETRIES", "2")


@pytest.mark.parametrize("name", list(FAULTS))
async def test_fault_ends_the_turn_with_one_clear_line(name, make_state, server, retries):
    replies, phrase, max_requests = FAULTS[name]
    state = make_state()
    await on_submit(state, "hello")
    before = session.session_file(state.session_id, state.workspace).read_bytes()
    history = list(state.history)
    server.script(*replies)
    sent = len(server.requests)
    await on_submit(state, "this one fails")
    [error] = _errors(state)
    assert phrase in error and "\n" not in error and len(error) < 400
    assert 1 <= len(server.requests) - sent <= max_requests  # bounded
    # Nothing of a failed answer reaches the file; what completed is kept, whole.
    data = session.session_file(state.session_id, state.workspace).read_bytes()
    assert data.startswith(before)
    assert b"The answer starts well" not in data
    assert len(state.history) >= len(history)
    consistent(state)
    await next_turn_is_accepted(state, server)


@pytest.mark.parametrize("name", list(RECOVERED))
async def test_fault_the_agent_gets_past(name, make_state, server, retries):
    replies, phrase = RECOVERED[name]
    state = make_state()
    server.script(*replies)
    started = time.monotonic()
    await on_submit(state, "read notes.txt" if "args" in name or "tool" in name else "hello")
    assert _errors(state) == []
    assert phrase in answer(state)
    if name == "429-then-ok":
        assert time.monotonic() - started >= 0.9  # Retry-After: 1 was honoured
    consistent(state)
    await next_turn_is_accepted(state, server)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def test_connection_refused(make_state, server, retries):
    state = make_state(base_url=f"http://127.0.0.1:{_closed_port()}/v1")
    started = time.monotonic()
    await on_submit(state, "hello")
    [error] = _errors(state)
    assert "Could not reach the model at http://127.0.0.1:" in error
    assert time.monotonic() - started < 15  # two retries with backoff, then it gives up
    assert state.history == []
    assert session.load(state.session_id, state.workspace).messages == []


async def test_timeout(make_state, server, monkeypatch):
    monkeypatch.setenv("CODING_AGENT_TIMEOUT", "1")
    monkeypatch.setenv("CODING_AGENT_MAX_RETRIES", "1")
    state = make_state()
    await on_submit(state, "hello")
    server.script(Hang(10), Hang(10))
    started = time.monotonic()
    await on_submit(state, "this one hangs")
    [error] = _errors(state)
    assert "no answer from the model" in error.lower() and "within 1 s" in error  # the timeout, said as one
    assert time.monotonic() - started < 8
    consistent(state)
    await next_turn_is_accepted(state, server)


def test_401_from_the_process_names_the_key_variable(tmp_path, workspace, server):
    server.script(Error(401, "Authentication Fails, Your api key is invalid"))
    done = run_agent(workspace, tmp_path / "home", server, "-p", "hello", API_KEY="sk-wrong")
    assert done.returncode == 1 and not crash_text(done.stderr)
    [line] = done.stderr.strip().splitlines()
    assert "API_KEY" in line and "DEEPSEEK_API_KEY" in line


def test_refused_from_the_process_is_one_line(tmp_path, workspace, server):
    done = run_agent(
        workspace, tmp_path / "home", server, "--base-url", f"http://127.0.0.1:{_closed_port()}/v1", "-p", "hello"
    )
    assert done.returncode == 1 and not crash_text(done.stderr)
    [line] = done.stderr.strip().splitlines()
    assert "Could not reach the model" in line
