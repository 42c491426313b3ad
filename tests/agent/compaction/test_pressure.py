"""Compaction under pressure: mid-turn, the cheap tier, oversized requests, thrashing."""

from __future__ import annotations

import json

import compact
import session
from agent import compaction, debuglog
from agent.compaction import rebuild
from agent.compaction.rebuild import PLACEHOLDER
from agent.events import CompactionFailed, CompactionFinished, Notice
from agent.marks import is_summary
from main import on_submit
from tests.builders import big_files, chat, is_compaction, note, responder, script_forever
from tests.fake_openai import Text, ToolCalls
from tests.robustness.harness import history_problems


async def test_mid_turn_compaction_keeps_the_run_going(make_state, workspace, server):
    window = 16_000
    state = make_state(context_window=window)
    server.max_context = window  # the provider rejects anything longer: the run would die
    await chat(state, [note(i) for i in range(3)])
    big_files(workspace, 8, lines=60)
    calls = [ToolCalls([("read_file", {"path": f"big{i}.txt"})]) for i in range(8)]
    script_forever(server, responder(calls + [Text("All files refactored.")]))

    request = "refactor the module and fix all tests"
    await on_submit(state, request)

    finished = state.emit.of(CompactionFinished)
    assert finished and all(f.trigger in ("mid-turn", "background") for f in finished)
    assert any(is_compaction(r["body"]) for r in server.requests)
    assert not any(n.level == "error" for n in state.emit.of(Notice))
    # The run went on to the end without the user doing anything.
    # (after the reasoning the strict emulator streams first)
    assert [p.content for p in state.history[-1].parts if p.part_kind == "text"] == ["All files refactored."]
    # The current request survives verbatim after the summary; calls keep their results.
    assert is_summary(state.history[0])
    prompts = [p.content for m in state.history if m.kind == "request" for p in m.parts if p.part_kind == "user-prompt"]
    assert request in prompts
    assert history_problems(state.history) == []
    # The newest tool exchange is kept verbatim.
    last_read = [p for m in state.history if m.kind == "request" for p in m.parts if p.part_kind == "tool-return"][-1]
    assert "line 0 of file 7" in last_read.content
    # Session file and archive follow.
    assert len(session.load(state.session_id, workspace).messages) == len(state.history)
    assert session.list_archives(state.session_id, workspace)


async def test_cheap_tier_spares_the_llm_call(make_state, workspace, server):
    state = make_state(context_window=16_000)
    big_files(workspace, 5, lines=120)
    await chat(
        state, ["read big0.txt", "read big1.txt", "read big0.txt", "read big2.txt", "read big3.txt", "read big4.txt"]
    )
    assert compaction.context_tokens(state) >= compaction.threshold(state)
    archive_source = session.session_file(state.session_id, workspace).read_bytes()
    requests = len(server.requests)

    await on_submit(state, "and now?")

    finished = state.emit.of(CompactionFinished)
    assert [f.tier for f in finished] == ["cheap"]
    assert not any(is_compaction(r["body"]) for r in server.requests[requests:])
    assert state.stats.cheap_tier_saved > 0 and state.stats.cheap_tier_spared_calls == 1
    assert compaction.context_tokens(state) < compaction.threshold(state) * rebuild.CHEAP_TIER_TARGET + 500
    returns = [p.content for m in state.history if m.kind == "request" for p in m.parts if p.part_kind == "tool-return"]
    # big0 read again unchanged was answered by a note (agent.tools.rereads): its read is not superseded
    # by it, and once that read is cleared the note goes with it.
    assert returns[0] == returns[2] == PLACEHOLDER.format(call='read_file(path="big0.txt")')
    assert any('read_file(path="big1.txt")' in r and PLACEHOLDER.split(":")[0] in r for r in returns)
    assert "line 0 of file 4" in returns[-1]  # the newest result stays
    # Clearing changes what is sent, not what the archive keeps.
    archive = session.list_archives(state.session_id, workspace)[0]
    assert archive.read_bytes().startswith(archive_source)


async def test_gauge_is_right_right_after_the_cheap_tier(make_state, workspace, server):
    state = make_state(context_window=16_000)
    big_files(workspace, 5, lines=120)
    await chat(state, [f"read big{i}.txt" for i in range(5)])
    result = await compact.run_compact(state, trigger="auto")
    assert result.tier == "cheap"
    assert compaction.context_tokens(state) == result.tokens_after < compaction.threshold(state)


async def test_compaction_request_never_too_long(make_state, workspace, server):
    window = 16_000
    state = make_state(context_window=window)
    server.max_context = window
    await chat(state, [note(i, 400) for i in range(8)])  # far more than one request can hold
    script_forever(server, responder([]))

    result = await compact.run_compact(state)

    assert result.left_out_messages > 0
    requests = [r for r in server.requests if is_compaction(r["body"])]
    assert requests and all(r["prompt_tokens"] <= window for r in requests)
    assert f"{result.left_out_messages} of the oldest messages" in compaction.last_summary(state)


async def test_provider_still_too_long_is_retried_smaller(make_state, workspace, server):
    window = 16_000
    state = make_state(context_window=window)
    await chat(state, [note(i, 400) for i in range(8)])
    server.max_context = 9_000  # smaller than what we think fits: the provider rejects the first try
    script_forever(server, responder([]))

    await compact.run_compact(state)

    attempts = [r for r in server.requests if is_compaction(r["body"])]
    assert len(attempts) >= 2
    assert attempts[-1]["prompt_tokens"] <= 9_000 < attempts[0]["prompt_tokens"]
    assert is_summary(state.history[0])


async def test_thrashing_backs_off_and_rearms(make_state, workspace, server):
    """Issue 20, case 6: the thrash guard no longer switches automatic compaction off for the rest
    of the session; it raises the target, then pauses, and re-arms after compaction.REARM_TURNS turns."""
    state = make_state(context_window=16_000)
    script_forever(server, responder([]))
    for i in range(8):
        await on_submit(state, note(i, 900))
        if state.compaction.backoff:
            break
    assert state.compaction.backoff == 1 and state.compaction.off_reason is None
    assert compaction.auto_limit(state) > compaction.threshold(state)
    rearm = state.compaction.rearm_at
    assert any(f"until turn {rearm}" in n.text for n in state.emit.of(Notice))
    from ui.status import status_lines

    assert any(f"until turn {rearm}" in str(line) for line in status_lines(state))
    # Raised, perhaps paused after: each back-off ends, REARM_TURNS turns after it began.
    for _ in range(3 * compaction.REARM_TURNS):
        await on_submit(state, note(50 + state.turns, 900))
        if any("back at its usual threshold" in n.text for n in state.emit.of(Notice)):
            break
    assert any("back at its usual threshold" in n.text for n in state.emit.of(Notice))
    assert state.compaction.off_reason is None
    compactions = state.stats.compactions
    for i in range(3):
        await on_submit(state, note(200 + i, 900))
    assert state.stats.compactions > compactions


async def test_a_compaction_that_does_not_shrink_is_discarded(make_state, workspace, server):
    state = make_state(context_window=16_000)
    await chat(state, [note(i) for i in range(5)])
    assert compaction.context_tokens(state) >= compaction.threshold(state)
    before = list(state.history)
    huge = "<summary>" + "padding words " * 6_000 + "\n6. ok</summary>"
    script_forever(server, responder([], summary=huge))
    await on_submit(state, "go on")
    assert state.emit.of(CompactionFailed) and "not smaller" in state.emit.of(CompactionFailed)[0].reason
    assert state.compaction.failures == 1
    assert state.history[: len(before)] == before


async def test_debug_log_records_decisions_without_the_key(make_state, workspace, server, home):
    path = debuglog.enable()
    try:
        state = make_state(context_window=16_000, api_key="sk-test-SECRET-123")
        big_files(workspace, 5, lines=120)
        await chat(state, [f"read big{i}.txt" for i in range(5)] + ["read big0.txt"])
        await on_submit(state, "next")
    finally:
        debuglog._path = None
    events = [json.loads(line)["event"] for line in path.read_text().splitlines()]
    assert "cheap_tier" in events and "compacted" in events
    assert "sk-test-SECRET-123" not in path.read_text()


async def test_every_mechanism_is_shown_in_status(make_state, workspace, server):
    from ui.status import status_lines

    state = make_state(context_window=16_000)
    big_files(workspace, 5, lines=120)
    await chat(state, [f"read big{i}.txt" for i in range(5)] + ["read big0.txt"])
    await on_submit(state, "next")
    text = "\n".join(str(line) for line in status_lines(state))
    assert f"saved {state.stats.cheap_tier_saved:,} tokens" in text and "spared 1 summary call" in text
