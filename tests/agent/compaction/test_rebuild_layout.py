"""Issue 20, case 7: the rebuilt history is laid out for the next cache hit. What a later compaction
keeps comes first (the fixed line, the user messages carried), then the summary it rewrites, then
the restored files (by path, with ids of their path and text), which the cheap tier may clear
without sending the summary again; checked on the rebuilt history and through the emulator's
prefix cache (DeepSeek's template, 64-token blocks)."""

from __future__ import annotations

from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, ToolCallPart, UserPromptPart

import compact
import session
from agent import compaction
from agent.compaction.fit import fit_messages
from agent.compaction.rebuild import compacted_history
from agent.compaction.summary import head_end, previous_summary
from agent.compaction.watermark import fixed_prefix_tokens
from agent.marks import SUMMARY_KEY, is_summary, summary_text
from agent.tokens import count as tokens
from main import on_submit
from tests.builders import big_files, is_compaction, long_answer, responder, script_forever
from tests.fake_openai import ToolCalls


def _reads(history) -> list[str]:
    return [
        p.args_as_dict()["path"]
        for m in history
        if isinstance(m, ModelResponse)
        for p in m.parts
        if isinstance(p, ToolCallPart)
    ]


async def _session(state, server, workspace, files: list[str]) -> None:
    big_files(workspace, 3, lines=40)
    turn = []
    for name in files:
        turn += [ToolCalls([("read_file", {"path": name})]), long_answer(len(turn))]
    script_forever(server, responder(turn))
    for n, name in enumerate(files):
        await on_submit(state, f"request {n}: read {name} and explain it")


async def test_the_rebuilt_history_puts_what_the_next_compaction_keeps_first(make_state, server, workspace):
    state = make_state()
    await _session(state, server, workspace, ["big1.txt", "big0.txt"])
    await compact.run_compact(state)
    history = state.history
    end = head_end(history)
    # The fixed line, the user messages carried, the summary; then the files restored (by path).
    assert str(history[0].parts[0].content).startswith("This session continues a conversation")
    assert summary_text(history[0]) is None and is_summary(history[0])
    users = history[1]
    assert "- request 0: read big1.txt and explain it\n- request 1: read big0.txt" in users.parts[0].content
    assert history[end - 1] is previous_summary(history) and end == 3
    assert _reads(history[:end]) == [] and _reads(history[end:]) == ["big0.txt", "big1.txt"]
    # None of the head is taken for the user's words (titles, the next summary's carried list).
    assert all(
        is_summary(m)
        for m in history[:end]
        if isinstance(m, ModelRequest) and any(isinstance(p, UserPromptPart) for p in m.parts)
    )
    shown = compaction.last_summary(state)
    assert "request 0: read big1.txt" in shown and "Here is the summary" in shown and "line 0 of file" not in shown


def test_the_restored_files_follow_the_summary():
    lead, users = (ModelRequest(parts=[UserPromptPart(content=t)]) for t in ("fixed line", "users"))
    summary = ModelRequest(parts=[UserPromptPart(content="summary")], metadata={SUMMARY_KEY: "s"})
    pair = [ModelResponse(parts=[ToolCallPart("read_file", {"path": "a"}, tool_call_id="x")]), lead]
    tail = [ModelRequest(parts=[UserPromptPart(content="now")])]
    assert compacted_history([lead, users], pair * 2, summary, tail) == [lead, users, summary, *pair, *pair, *tail]


async def test_clearing_a_restored_file_keeps_the_summary_cached(make_state, server, workspace):
    """The cheap tier clears old tool results, the restored files among them: after the summary,
    the request that follows still has the fixed line, the user messages and the summary cached."""
    from agent.compaction.rebuild import PLACEHOLDER, clear_tool_results

    state = make_state()
    await _session(state, server, workspace, ["big1.txt", "big0.txt"])
    await compact.run_compact(state)
    await on_submit(state, "go on with the explanation")
    first = [r for r in server.requests if not is_compaction(r["body"])][-1]
    cleared, saved = clear_tool_results(state.history, keep_tokens=0)
    placeholder = PLACEHOLDER.split(":")[0]
    assert saved > 0 and any(placeholder in str(getattr(p, "content", "")) for m in cleared for p in m.parts)
    state.transcript.update(cleared)
    await on_submit(state, "and the next part of it")
    second = [r for r in server.requests if not is_compaction(r["body"])][-1]
    end = head_end(state.history)
    assert second["body"]["messages"][: 1 + end] == first["body"]["messages"][: 1 + end]  # system + head
    head = tokens.count_messages(state.history[:end])
    assert second["cache_hit_tokens"] >= fixed_prefix_tokens(state) + head - 64, second["cache_hit_tokens"]


async def test_a_session_of_the_earlier_layout_still_compacts(make_state, server, workspace):
    """Sessions written before: the summary message alone first (carried messages inside it), the
    restored files after it. It is still the head fit_messages keeps, its user messages are carried
    on, and the next compaction writes the new layout."""
    old = ModelRequest(
        parts=[UserPromptPart(content="This session continues ...\n- the old precious rule")],
        metadata={SUMMARY_KEY: "old summary", "archives": [], "files": {}, "user_messages": ["the old precious rule"]},
    )
    restored = [ModelResponse(parts=[ToolCallPart("read_file", {"path": "a.py"}, tool_call_id="c1")])]
    state = make_state()
    state.transcript.append(
        old,
        *restored,
        ModelRequest(parts=[UserPromptPart(content="a later ask " * 300)]),
        ModelResponse(parts=[TextPart("a long answer " * 300)]),
    )
    state.transcript.persist()
    loaded = session.load(state.session_id, workspace).messages  # the session file, as --continue reads it
    assert head_end(loaded) == 1 and head_end(state.history) == 1
    kept, _dropped = fit_messages(state.history, 1, 0)
    assert kept[0] is old
    script_forever(server, responder([]))
    await compact.run_compact(state)
    users = "\n".join(str(m.parts[0].content) for m in state.history[: head_end(state.history)] if is_summary(m))
    assert "- the old precious rule\n- a later ask" in users
    assert summary_text(state.history[0]) is None and previous_summary(state.history) is not None


async def test_a_restored_file_after_the_summary_is_still_shown_as_restored(make_state, server, workspace):
    from ui.context_view import breakdown

    state = make_state()
    await _session(state, server, workspace, ["big1.txt"])
    await compact.run_compact(state)
    end = head_end(state.history)
    assert _reads(state.history[end:]) == ["big1.txt"]
    assert isinstance(state.history[end], ModelResponse)  # the fixed line, the user messages, the summary, the file
    kinds = {kind for kind, _name, _n in breakdown(state)}
    assert {"summary", "restored"} <= kinds and "tool" not in kinds


async def test_a_file_the_kept_tail_shows_is_not_restored_twice(make_state, server, workspace):
    """The kept tail holds the newest read of big0.txt: restoring it after the summary would send
    the same text twice. It is still registered as read (an edit needs no new read). A file edited
    since its read in the tail is restored: the tail's copy is out of date."""
    state = make_state()
    await _session(state, server, workspace, ["big1.txt", "big2.txt", "big0.txt"])
    tail = state.history[-4:]  # the last turn: the request, the read, its answer, the reply
    assert _reads(tail) == ["big0.txt"]
    (workspace / "big2.txt").write_text("big2 changed since it was read\n")
    await compact.run_compact(state, keep=tail)
    after_head = state.history[head_end(state.history) :]
    assert sorted(_reads(after_head)) == ["big0.txt", "big1.txt", "big2.txt"]  # big0.txt once: the tail's
    assert workspace / "big0.txt" in state.read_file_state
    assert state.read_file_state.check_fresh(workspace / "big0.txt") is None


async def test_a_kept_read_right_after_the_summary_is_not_shown_as_restored(make_state, server, workspace):
    """A compaction in the middle of a turn keeps the turn's read verbatim, right after the summary
    when no file is restored: /context shows it as the read_file tool's, not as a restored file. The
    read is one a model without thinking makes (a call and nothing else), as a restored one looks."""
    from pydantic_ai.messages import ToolReturnPart

    from ui.context_view import breakdown

    state = make_state()
    await _session(state, server, workspace, ["big1.txt"])
    (workspace / "big1.txt").unlink()  # nothing left to restore
    tail = [
        ModelResponse(parts=[ToolCallPart("read_file", {"path": "big0.txt"}, tool_call_id="call_model_7")]),
        ModelRequest(parts=[ToolReturnPart("read_file", "     1\tline 0 of file 0", tool_call_id="call_model_7")]),
        ModelResponse(parts=[TextPart("big0.txt starts with line 0.")]),
    ]
    state.transcript.append(*tail)
    await compact.run_compact(state, keep=tail)
    end = head_end(state.history)
    assert _reads(state.history[end : end + 1]) == ["big0.txt"]
    rows = {(kind, name) for kind, name, _n in breakdown(state)}
    assert ("tool", "read_file") in rows and "restored" not in {kind for kind, _ in rows}


async def test_a_file_read_whole_and_edited_in_the_kept_tail_is_not_restored(make_state, server, workspace):
    """The tail holds a whole read of big0.txt and the agent's own edit of it: the model has the text
    and what it changed, so the file is not restored. big1.txt, read whole there too but changed on
    disk by someone else since, is restored: what the tail shows of it is out of date."""
    state = make_state()
    big_files(workspace, 2, lines=40)
    turn = [
        ToolCalls([("read_file", {"path": "big0.txt"})]),
        ToolCalls([("edit_file", {"path": "big0.txt", "old_string": "line 3 of file 0", "new_string": "LINE 3"})]),
        ToolCalls([("read_file", {"path": "big1.txt"})]),
        long_answer(1),
    ]
    script_forever(server, responder([long_answer(0), *turn]))
    await on_submit(state, "an early request, to be summarized " * 40)
    await on_submit(state, "read big0.txt, change its line 3, then read big1.txt")
    assert "LINE 3" in (workspace / "big0.txt").read_text()
    (workspace / "big1.txt").write_text("changed by the user\n")
    tail = state.history[-8:]  # the last turn
    assert _reads(tail) == ["big0.txt", "big0.txt", "big1.txt"]  # read, edit, read
    await compact.run_compact(state, keep=tail)
    after_head = state.history[head_end(state.history) :]
    # The tail's read, edit and read; then big1.txt restored once, big0.txt not.
    assert sorted(_reads(after_head)) == ["big0.txt", "big0.txt", "big1.txt", "big1.txt"]
    assert state.read_file_state.check_fresh(workspace / "big0.txt") is None  # an edit needs no new read
