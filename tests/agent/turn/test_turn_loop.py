"""The turn loop as a user meets it: long turns, the request limit, what the spinner is told."""

from __future__ import annotations

import contextlib

from agent.events import CommandRunning, Notice, Retrying, UsageUpdate
from agent.turn.loop import run_turn
from tests.fake_openai import Error, Text, ToolCalls
from tests.robustness.harness import answer, consistent, next_turn_is_accepted


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


# --- what the spinner is told --------------------------------------------------------------


async def test_the_loop_says_what_it_waits_for(make_state, server, monkeypatch):
    monkeypatch.setenv("CODING_AGENT_MAX_RETRIES", "2")
    server.script(
        Error(429, "Rate limit reached", headers={"retry-after": "1"}),
        ToolCalls([("run_command", {"command": "echo hi"})]),
    )
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


def test_the_request_limit_comes_from_a_flag_or_the_environment(monkeypatch):
    import main

    def limit(*argv: str) -> int | None:
        return main.build_config(main.parse_args(["--base-url", "http://127.0.0.1:1/v1", *argv])).max_requests

    assert limit() is None  # no limit unless the user sets one
    assert limit("--max-requests", "300") == 300 and limit("--max-requests", "0") is None
    monkeypatch.setenv("CODING_AGENT_MAX_REQUESTS", "7")
    assert limit() == 7


# --- the hook before each request (how compaction reaches into a turn without the loop knowing it) ---


async def test_the_turn_hook_sees_every_request_and_may_send_one_smaller(make_state, server, workspace):
    from agent.turn.guard import Refit

    (workspace / "a.txt").write_text("x\n")
    state = make_state()
    server.script(Text("Hello."))
    assert (await run_turn(state, "hi")).ok
    # The turn joins onto the last request (agent.provider.prefix.reuse); a request the hook gives whole still
    # goes out as given, without that request's messages put in front.
    server.script(ToolCalls([("list_files", {"pattern": "*.txt"})]), Text("One file."))
    seen: list[int] = []

    async def hook(st, messages):
        seen.append(len(messages))
        # The second request of the turn goes out without the first turn, this once.
        return Refit(once=messages[2:]) if len(seen) == 2 else None

    outcome = await run_turn(state, "list the files", before_request=hook)
    assert outcome.ok, outcome.error
    assert seen == [3, 5]  # the turn's two requests: hi, Hello, list / ... + the call and its result
    roles = [[m["role"] for m in r["body"]["messages"] if m["role"] != "system"] for r in server.requests[1:]]
    assert roles == [["user", "assistant", "user"], ["user", "assistant", "tool"]]
    # Only that request: the history keeps the first turn, and a run given no hook is not checked.
    assert len(state.history) == 6
    # A compaction request after it joins onto the recorded request again (the turn's "whole" ends).
    import compact
    from agent import errors
    from tests.builders import is_compaction

    server.script(Text("<summary>1. The user said hi and asked for the files.\n6. ok</summary>"))
    with contextlib.suppress(errors.CompactError):  # a history this small may not shrink: no matter
        await compact.run_compact(state)
    [summary] = [r["body"]["messages"] for r in server.requests if is_compaction(r["body"])]
    first = server.requests[1]["body"]["messages"]
    assert summary[: len(first)] == first
    server.script(Text("Still here."))
    assert (await run_turn(state, "and now")).ok and seen == [3, 5]
    consistent(state)
