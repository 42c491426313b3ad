"""A compaction whose history no longer fits one request summarizes what the last request sent
(cached) and keeps the rest verbatim, instead of clearing or cutting inside the prefix (issue 14)."""

from __future__ import annotations

from pydantic_ai.messages import ModelRequest, ToolReturnPart

import compact
from agent import compaction
from agent.compaction import watermark
from agent.events import CompactionFinished, ToolResult
from agent.tokens import count as tokens
from main import on_submit
from tests.builders import is_compaction, long_answer, note, responder, script_forever
from tests.fake_openai import Text, ToolCalls


async def test_a_read_past_the_request_limit_keeps_the_summary_cached(make_state, workspace, server, monkeypatch):
    # No background summary: the blocking path (the mark is agent.compaction.watermark's).
    monkeypatch.setattr(watermark, "LOWER_MARK", 10.0)
    state = make_state(context_window=32_000, cheap_tier="off")
    limit, threshold = compaction.figures(state).request_limit, compaction.threshold(state)
    n = 0
    # Close enough to the limit that one read, capped to a share of the window (agent.tools.read_cap,
    # issue 20), takes the history past it.
    while compaction.context_tokens(state) < threshold - 1_500:
        script_forever(server, responder([long_answer(n, 60)]))
        await on_submit(state, note(n, 120))
        n += 1
    assert not state.emit.of(CompactionFinished)
    # One read that takes the history past what a compaction request may hold.
    room = limit - compaction.context_tokens(state)
    line = "def handler(value): return value * 2  # a line of the module\n"
    lines = room // tokens.count_text(line) + 60
    (workspace / "module.py").write_text(line * lines)
    script_forever(server, responder([ToolCalls([("read_file", {"path": "module.py"})]), Text("Read it.")]))
    sent_before = len(server.requests)
    await on_submit(state, "read module.py")

    [finished] = state.emit.of(CompactionFinished)
    assert finished.trigger == "mid-turn" and finished.tier == "summary"
    [request] = [r for r in server.requests[sent_before:] if is_compaction(r["body"])]
    # The summary request is the turn's first request plus the prompt: served from the cache.
    assert request["cache_hit_tokens"] >= 0.9 * request["prompt_tokens"]
    first = server.requests[sent_before]["body"]["messages"]
    assert request["body"]["messages"][: len(first)] == first
    # The read is kept verbatim after the summary, as the model got it, and the turn went on.
    kept = [p for m in state.history if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)]
    [read] = [e.content for e in state.emit.of(ToolResult)]
    assert any(str(p.content) == read for p in kept) and "a line of the module" in read
    assert state.history[-1].parts[-1].content == "Read it."
    assert all(r["prompt_tokens"] <= 32_000 for r in server.requests)


async def test_a_resumed_session_summarizes_what_the_process_before_it_sent(make_state, workspace, server, monkeypatch):
    """The fuzzer's --continue: a long answer after the last request took the history past what a
    summary request may hold; the resumed process, which had sent nothing, cleared tool results
    instead (20% cached). The provider still caches what the process before sent, everything before
    that answer: the summary request is that plus the prompt, and the answer is kept after it."""
    import session
    from agent.state.transcript import Transcript

    monkeypatch.setattr(watermark, "LOWER_MARK", 10.0)
    config = {"context_window": 32_000, "cheap_tier": "off"}
    state = make_state(**config, auto_compact=False)
    limit = compaction.figures(state).request_limit
    n = 0
    while compaction.context_tokens(state) < compaction.threshold(state) - 6_000:
        script_forever(server, responder([long_answer(n, 60)]))
        await on_submit(state, note(n, 120))
        n += 1
    room = limit - compaction.context_tokens(state)
    script_forever(server, responder([Text("The design, at length: " + "the parser keeps a cursor " * (room // 5))]))
    await on_submit(state, "explain the design in detail")
    last = server.requests[-1]["body"]["messages"]
    assert compaction.context_tokens(state) > limit  # the answer took it past a summary request

    resumed = make_state(**config)
    resumed.transcript = Transcript(state.session_id, workspace, session.load(state.session_id, workspace).messages)
    script_forever(server, responder([Text("ok")]))
    before = len(server.requests)
    await on_submit(resumed, "go on")
    [request] = [r for r in server.requests[before:] if is_compaction(r["body"])]
    assert request["body"]["messages"][: len(last)] == last
    assert request["cache_hit_tokens"] >= 0.9 * request["prompt_tokens"]
    assert any("the parser keeps a cursor" in str(p.content) for m in resumed.history for p in m.parts)


async def test_the_compaction_after_an_undo_summarizes_the_restored_history_from_the_cache(
    make_state, workspace, server, monkeypatch
):
    """The fuzzer's 16k seeds: after /compact undo, the restored history and the turns made since no
    longer fit one request, and the summary request left out its oldest messages to fit (17-51%
    cached). The compaction that was undone sent the restored history, so the provider caches it:
    the next compaction summarizes that and keeps the turns made since after the summary."""
    monkeypatch.setattr(watermark, "LOWER_MARK", 10.0)
    state = make_state(context_window=32_000, cheap_tier="off")
    limit, n = compaction.figures(state).request_limit, 0
    while compaction.context_tokens(state) < compaction.threshold(state) - 1_500:
        script_forever(server, responder([long_answer(n, 60)]))
        await on_submit(state, note(n, 120))
        n += 1
    restored_tokens = compaction.context_tokens(state)
    before = len(server.requests)
    await compact.run_compact(state)
    [undone] = [r["body"]["messages"] for r in server.requests[before:] if is_compaction(r["body"])]
    later, compacted = 0, compaction.context_tokens(state)
    while restored_tokens + compaction.context_tokens(state) - compacted < limit + 2_000:
        script_forever(server, responder([long_answer(100 + later, 60)]))
        await on_submit(state, f"later {later}: " + "keep this one too " * 40)
        later += 1
    compaction.undo_compaction(state)
    assert compaction.context_tokens(state) > limit  # the restored history and the later turns

    script_forever(server, responder([Text("ok")]))
    before = len(server.requests)
    await on_submit(state, "go on")
    [request] = [r for r in server.requests[before:] if is_compaction(r["body"])]
    assert request["body"]["messages"][: len(undone) - 1] == undone[:-1]
    assert request["cache_hit_tokens"] >= 0.9 * request["prompt_tokens"]
    # The turns made since the undone compaction follow the summary, their messages verbatim.
    users = [str(p.content) for m in state.history for p in m.parts if type(p).__name__ == "UserPromptPart"]
    assert all(any(u.startswith(f"later {i}: keep this one too") for u in users) for i in range(later))
    assert all(r["prompt_tokens"] <= 32_000 for r in server.requests)
