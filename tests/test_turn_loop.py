"""The turn loop as a user meets it: long turns, the request limit, and what -p says."""

from __future__ import annotations

import session
from agent.context import compact_at_range
from agent.events import CommandRunning, Notice, Retrying, UsageUpdate
from agent.loop import run_turn
from tests.fake_openai import Error, Text, ToolCalls
from tests.robustness.harness import answer, consistent, next_turn_is_accepted
from tests.test_main import run_main


def _rounds(n: int) -> list[ToolCalls]:
    return [ToolCalls([("list_files", {"pattern": "*.txt"})]) for _ in range(n)]


async def test_a_sixty_round_turn_is_not_cut_at_fifty(make_state, server, workspace):
    (workspace / "a.txt").write_text("x\n")
    server.script(*_rounds(60), Text("All sixty rounds done."))
    state = make_state()
    outcome = await run_turn(state, "refactor every module")
    assert outcome.ok, outcome.error
    assert len(server.requests) == 61
    assert answer(state).endswith("All sixty rounds done.")
    consistent(state)


async def test_the_request_limit_is_the_users_and_says_so(make_state, server, workspace):
    (workspace / "a.txt").write_text("x\n")
    server.script(*_rounds(10))
    state = make_state(max_requests=4)
    outcome = await run_turn(state, "refactor every module")
    assert not outcome.ok
    assert len(server.requests) == 4
    error = state.emit.of(Notice)[-1].text
    assert "4 model requests" in error and "--max-requests" in error and "UsageLimitExceeded" not in error
    # The work done before the limit is kept, and the user can go on from it.
    assert len(state.history) > 2
    await next_turn_is_accepted(state, server)


# --- the command line ----------------------------------------------------------------------


def test_print_mode_says_it_declined_a_command(workspace, home, server):
    result = run_main(["--base-url", server.base_url, "-p", "run touch made.txt"], workspace, home)
    assert not (workspace / "made.txt").exists()
    assert "touch made.txt" in result.stderr and "--yes" in result.stderr


def test_print_mode_refuses_an_empty_message(workspace, home, server):
    for prompt in ("", "   "):
        result = run_main(["--base-url", server.base_url, "-p", prompt], workspace, home)
        assert result.returncode == 2 and "-p" in result.stderr
    assert server.requests == [] and session.list_sessions(workspace) == []


def test_compact_at_outside_the_range_is_refused_with_the_range(workspace, home, server):
    low, high = compact_at_range(16_000)
    for value in ("200%", str(high + 1), "1%"):
        result = run_main(["--base-url", server.base_url, "--context-window", "16000", "--compact-at", value,
                           "-p", "hi"], workspace, home)
        assert result.returncode == 2
        assert f"{low:,}" in result.stderr and f"{high:,}" in result.stderr, result.stderr
    assert server.requests == []


def test_errors_name_the_installed_command(workspace, home):
    result = run_main(["--context-window", "abc"], workspace, home)
    assert result.returncode == 2
    assert "usage: coding-agent" in result.stderr and "main.py" not in result.stderr


# --- what the spinner is told --------------------------------------------------------------


async def test_the_loop_says_what_it_waits_for(make_state, server, monkeypatch):
    monkeypatch.setenv("CODING_AGENT_MAX_RETRIES", "2")
    server.script(Error(429, "Rate limit reached", headers={"retry-after": "1"}), ToolCalls([("run_command",
                  {"command": "echo hi"})]))
    state = make_state()
    outcome = await run_turn(state, "go")
    assert outcome.ok, outcome.error
    kinds = [type(e).__name__ for e in state.emit.events if not isinstance(e, UsageUpdate)]
    # A spinner for the request, its retry, the command while it runs, and the request after it.
    assert kinds.index("WaitingForModel") < kinds.index("Retrying") < kinds.index("CommandRunning")
    assert kinds.index("CommandRunning") < len(kinds) - 1 - kinds[::-1].index("WaitingForModel")
    assert kinds.index("WaitingForModel") < kinds.index("TextDelta")
    assert state.emit.of(Retrying) == [Retrying(attempt=2, attempts=3, wait=1.0, status=429)]
    assert state.emit.of(CommandRunning) == [CommandRunning("echo hi")]
