"""Issue 20, case 2: a summary that fits the window is kept, even over the threshold (a target, not a
veto); what goes first to bring it down are the restored files, never the user's messages."""

from __future__ import annotations

from agent.compaction.summary import user_messages
from agent.compaction.watermark import threshold
from agent.events import CompactionFailed, CompactionFinished, Notice
from agent.marks import is_summary
from main import on_submit
from tests.builders import chat, note, responder, script_forever

WINDOW = 16_000
LONG_SUMMARY = "<summary>1. The user works on the parser. " + "the work so far in detail " * 1_800 + "\n6. ok</summary>"


async def test_a_summary_over_the_threshold_that_fits_is_kept(make_state, workspace, server):
    server.max_context = WINDOW
    state = make_state(context_window=WINDOW, cheap_tier="off")
    (workspace / "a.txt").write_text("".join(f"line {n}: some words of the file\n" for n in range(200)))
    (workspace / "b.txt").write_text("".join(f"row {n}: other words of another file\n" for n in range(700)))
    await chat(state, ["read a.txt", "read b.txt"] + [note(i, 15) for i in range(6)])
    script_forever(server, responder([], summary=LONG_SUMMARY))
    await on_submit(state, "and now the lexer")
    assert not state.emit.of(CompactionFailed)
    finished = state.emit.of(CompactionFinished)
    assert finished and finished[0].tokens_after > threshold(state)
    assert any("over the compaction threshold" in n.text for n in state.emit.of(Notice))
    assert is_summary(state.history[0])
    assert state.stats.left_out_messages == 0
    # Every user message is in the context: carried by the summary, or the turn's own.
    words = "\n".join(p.content for m in state.history for p in m.parts if p.part_kind == "user-prompt")
    for text in ["read a.txt", "read b.txt", *[note(i, 15) for i in range(6)], "and now the lexer"]:
        assert text.strip() in words
    # The restored file went first: it can be read again.
    assert "line 199: some words of the file" not in words
    assert [u for u in user_messages(state.history) if u.startswith("and now")] == ["and now the lexer"]
