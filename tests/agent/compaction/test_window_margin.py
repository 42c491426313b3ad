"""Issue 20, cases 1 and 4: a request over the window is never resent unchanged, and the size check
before every request learns how far the server counts above the agent (the learned margin,
agent.compaction.watermark)."""

from __future__ import annotations

import json

import session
from agent.events import Notice
from agent.provider.server_errors import is_too_long, prompt_count
from main import on_submit
from tests.fake_openai import Text
from tests.test_main import run_main

WINDOW = 16_000


def _p(server, workspace, home, prompt: str, *more: str):
    return run_main(
        ["--base-url", server.base_url, "--context-window", str(WINDOW), *more, "-p", prompt],
        workspace,
        home,
        timeout=120,
    )


def _refused_twice(requests) -> list[int]:
    """Indexes of refused requests whose body was sent again unchanged."""
    seen: set[bytes] = set()
    again = []
    for i, r in enumerate(requests):
        if not r.get("billed") and r["raw"] in seen:
            again.append(i)
        if not r.get("billed"):
            seen.add(r["raw"])
    return again


def _texts(body) -> str:
    return json.dumps(body["messages"], ensure_ascii=False)


def test_an_answer_larger_than_the_window_then_a_short_turn(workspace, home, server):
    """Case 1: a one-line turn, a ~17k-token answer, then "summarize it in one line" at 16k."""
    server.max_context = WINDOW
    huge = "Answer: " + "a detailed explanation of the change " * 2_900  # ~17.4k tokens
    server.script(Text(huge))
    first = _p(server, workspace, home, "explain the parser in full")
    assert first.returncode == 0, first.stderr
    start = len(server.requests)
    second = _p(server, workspace, home, "summarize it in one line", "--continue")
    assert second.returncode == 0, second.stderr
    assert "Echo: summarize it in one line" in second.stdout
    requests = server.requests[start:]
    assert all(r.get("billed") for r in requests), [r["prompt_tokens"] for r in requests]
    assert _refused_twice(server.requests) == []
    # The summary request held the conversation, the turn after it both user messages.
    summary = next(r for r in requests if "<summary>" in json.dumps(r["body"]["messages"][-1]))
    assert "explain the parser in full" in _texts(summary["body"])
    assert "explain the parser in full" in _texts(requests[-1]["body"])
    assert "run /compact" not in second.stdout + second.stderr


async def test_a_server_counting_above_the_agent_is_refitted_not_resent(make_state, workspace, server):
    """The server counts 30% more than the agent: the first refusal teaches the margin from the
    error's own figures, the request goes again smaller, and the rest of the session fits."""
    server.max_context = WINDOW
    server.count_scale = 1.3
    state = make_state(context_window=WINDOW)
    for i in range(12):
        await on_submit(state, f"note {i}: " + "remember this detail please " * 300)
    errors = [n.text for n in state.emit.of(Notice) if n.level == "error"]
    assert errors == []
    assert _refused_twice(server.requests) == []
    answered = [r for r in server.requests if r.get("billed")]
    assert all(r["prompt_tokens"] <= WINDOW for r in answered)
    # Most of the 30% (the part in the instructions and tool definitions goes into the fixed prefix's
    # calibration, agent/compaction/context.py, and not into the margin).
    assert state.stats.count_ratio >= 1.15
    # Every turn was answered.
    assert (
        sum(
            1
            for r in answered
            if "Echo: note" in json.dumps(r["body"]["messages"][-1])
            or r["body"]["messages"][-1]["content"].startswith("note ")
        )
        >= 12
    )


def test_the_margin_is_kept_with_the_stats(workspace, home, server):
    server.count_scale = 1.2
    # Past what the fixed prefix is calibrated from (agent.compaction.context.calibrate_prefix): the whole
    # difference is the margin's to learn.
    long = "remember this detail please " * 3_000
    result = run_main(["--base-url", server.base_url, "-p", long], workspace, home)
    assert result.returncode == 0, result.stderr
    sid = session.list_sessions(workspace)[0].session_id
    learned = session.load_stats(sid, workspace)["count_ratio"]
    assert learned > 1.1
    again = run_main(["--base-url", server.base_url, "--continue", "-p", "and again"], workspace, home)
    assert again.returncode == 0, again.stderr
    assert session.load_stats(sid, workspace)["count_ratio"] >= learned


def test_the_figures_of_a_refusal_are_read():
    from pydantic_ai.exceptions import ModelHTTPError

    openai = ModelHTTPError(
        400,
        "m",
        {
            "error": {
                "message": "This model's maximum context length is 16000 tokens. "
                "However, you requested 19170 tokens (19170 in the messages, "
                "0 in the completion)."
            }
        },
    )
    llama = ModelHTTPError(
        400,
        "m",
        {
            "error": {
                "message": "the request exceeds the available context size",
                "type": "exceed_context_size_error",
                "n_prompt_tokens": 17001,
                "n_ctx": 16384,
            }
        },
    )
    assert is_too_long(openai) and prompt_count(openai) == 19170
    assert is_too_long(llama) and prompt_count(llama) == 17001
