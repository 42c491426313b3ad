"""Never a request over the window: not after the thrash guard, the failure breaker or
--no-auto-compact switched automatic compaction off."""

from __future__ import annotations

import session
from agent.events import Notice
from agent.marks import is_summary
from main import on_submit
from tests.builders import chat, is_compaction, note, responder, script_forever
from tests.robustness.harness import history_problems

WINDOW = 32_768


def _errors(state) -> list[str]:
    return [n.text for n in state.emit.of(Notice) if n.level == "error"]


async def test_after_the_thrash_guard_requests_still_fit(make_state, workspace, server):
    state = make_state(context_window=WINDOW)
    server.max_context = WINDOW  # the provider refuses anything longer
    script_forever(server, responder([]), n=400)
    turn = 0
    # The thrash guard backs off until it pauses automatic compaction (issue 20: it no longer
    # switches it off); meanwhile every request must still fit.
    while state.compaction.backoff < 2 and turn < 16:
        await on_submit(state, note(turn, 2_000))
        turn += 1
    assert state.compaction.backoff == 2
    first = len(server.requests)
    for i in range(8):  # ~8k tokens a turn: without a fit, the third turn is over the window
        await on_submit(state, note(100 + i, 2_000))
    assert _errors(state) == []
    assert all(r["prompt_tokens"] <= WINDOW for r in server.requests)
    ordinary = [r for r in server.requests[first:] if not is_compaction(r["body"])]
    assert len(ordinary) == 8  # every turn was answered
    assert any("would not fit the window" in n.text for n in state.emit.of(Notice))
    assert is_summary(state.history[0]) and history_problems(state.history) == []
    assert note(107, 2_000) in [p.content for m in state.history for p in m.parts if p.part_kind == "user-prompt"]


async def test_after_the_failure_breaker_the_oldest_are_left_out(make_state, workspace, server):
    state = make_state(context_window=WINDOW)
    await chat(state, [note(i, 1_000) for i in range(5)])
    server.max_context = WINDOW
    state.compaction.off_reason = "failures"  # summaries keep failing: do not ask for another
    script_forever(server, responder([]))
    before = len(server.requests)
    for i in range(4):
        await on_submit(state, note(10 + i, 1_000))
    assert _errors(state) == []
    assert not any(is_compaction(r["body"]) for r in server.requests[before:])
    assert all(r["prompt_tokens"] <= WINDOW for r in server.requests[before:])
    assert state.stats.left_out_messages > 0
    archives = session.list_archives(state.session_id, workspace)
    assert archives and note(0, 1_000) in archives[0].read_text()
    notes = [p.content for m in state.history for p in m.parts if p.part_kind == "user-prompt"]
    assert any("earlier messages were left out" in n and str(archives[-1]) in n for n in notes)
    assert note(0, 1_000) not in notes and note(13, 1_000) in notes
    assert any("Left out the" in n.text for n in state.emit.of(Notice))
    assert len(session.load(state.session_id, workspace).messages) == len(state.history)
    assert history_problems(state.history) == []


async def test_no_auto_compact_still_fits_by_a_summary(make_state, workspace, server):
    state = make_state(context_window=WINDOW, auto_compact=False, lang="zh")
    server.max_context = WINDOW
    script_forever(server, responder([]))
    for i in range(6):
        await on_submit(state, note(i, 1_500))
    assert _errors(state) == []
    assert all(r["prompt_tokens"] <= WINDOW for r in server.requests)
    assert any(is_compaction(r["body"]) for r in server.requests)
    assert any("超出窗口" in n.text for n in state.emit.of(Notice))


async def test_nothing_fits_one_clear_error_history_intact(make_state, workspace, server):
    state = make_state(context_window=WINDOW, auto_compact=False)
    await chat(state, ["hello"])
    history = list(state.history)
    saved = session.session_file(state.session_id, workspace).read_bytes()
    requests = len(server.requests)
    await on_submit(state, "words to fill " * 12_000)  # ~36k tokens in one message
    errors = _errors(state)
    assert len(errors) == 1 and "cannot fit the context window" in errors[0]
    assert state.history == history
    assert session.session_file(state.session_id, workspace).read_bytes() == saved
    assert len(server.requests) == requests  # nothing was sent


async def test_leaving_out_the_oldest_keeps_this_turns_attachment_shortened(make_state, workspace):
    """The fuzzer's 4k seed 2: the fit left this turn's @-mention out with the oldest messages (it
    had been shown as attached). It stays, cut to what the window leaves, and the user is told."""
    from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart

    from agent.compaction import fit
    from agent.compaction.watermark import fixed_prefix_tokens
    from agent.tokens import count as tokens
    from agent.tools.mentions import build_mention_messages

    (workspace / "big.md").write_text("".join(f"line {n} of the notes about the parser\n" for n in range(400)))
    state = make_state(context_window=8_000)
    prelude, _ = build_mention_messages(["big.md"], state)
    prompt = ModelRequest(parts=[UserPromptPart("what does @big.md say?")])
    old = [ModelRequest(parts=[UserPromptPart(note(1, 1_500))]), ModelResponse(parts=[TextPart("ok " * 1_500)])]
    state.transcript.update([*old, *prelude, prompt])
    limit = fixed_prefix_tokens(state) + tokens.count_messages([*prelude, prompt]) // 2 + fit.NOTE_ROOM
    assert fit.leave_out_oldest(state, limit + fit.NOTE_ROOM) == 2
    kept = state.history
    answer = kept[2].parts[0].content
    assert kept[3] == prompt and answer.startswith("     1\tline 0 of")
    assert "to fit the window; the file has 400 lines; continue with offset=" in answer
    assert any("attachments were cut further: @big.md (lines 1–" in n.text for n in state.emit.of(Notice))
    assert history_problems(kept) == []
