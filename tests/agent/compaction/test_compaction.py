"""Compaction against the local OpenAI-compatible server, through the real openai client."""

from __future__ import annotations

import asyncio

import pytest

import compact
import session
from agent import compaction, errors
from agent.events import CompactionFailed, CompactionFinished, Notice
from agent.marks import is_summary
from main import on_submit
from tests.builders import SUMMARY, big_files, chat, long_answer, note
from tests.fake_openai import Error, Hang, Text
from tests.robustness.harness import wait_for


async def _fill(state, workspace, count: int = 4, notes: int = 0, lines: int = 150) -> None:
    """Read big files and chat (no compaction yet: auto off). Notes are user text the cheap tier
    cannot clear, so a summary is needed."""
    big_files(workspace, count, lines)
    await chat(state, [note(i) for i in range(notes)] + [f"read big{i}.txt" for i in range(count)])


async def _fill_over(state, workspace) -> None:
    """Notes (which the cheap tier cannot clear) and a file read until over the threshold."""
    await _fill(state, workspace, count=1, lines=50)
    auto, state.config.auto_compact = state.config.auto_compact, False
    n = 0
    while compaction.context_tokens(state) < compaction.threshold(state):
        await on_submit(state, note(n))
        n += 1
    state.config.auto_compact = auto


def _snapshot(state):
    return (
        list(state.history),
        session.session_file(state.session_id, state.workspace).read_bytes(),
        list(state.read_file_state.paths()),
        list(state.file_history.checkpoints),
    )


def _assert_unchanged(state, before) -> None:
    history, data, paths, checkpoints = before
    assert len(state.history) == len(history) and all(a is b for a, b in zip(state.history, history, strict=True))
    assert session.session_file(state.session_id, state.workspace).read_bytes() == data
    assert list(state.read_file_state.paths()) == paths
    assert list(state.file_history.checkpoints) == checkpoints


async def test_auto_compaction_fires_archives_and_rebuilds(make_state, workspace, server):
    state = make_state(context_window=16_000)
    await _fill(state, workspace, count=2, notes=4, lines=50)
    before_messages = session.load(state.session_id, workspace).messages
    assert compaction.context_tokens(state) >= compaction.threshold(state)

    server.script(Text(SUMMARY))
    await on_submit(state, "what next?")

    finished = state.emit.of(CompactionFinished)
    assert len(finished) == 1 and finished[0].trigger == "auto"
    assert any("compacting automatically" in n.text for n in state.emit.of(Notice))
    # The archive holds the full pre-compaction transcript.
    archives = session.list_archives(state.session_id, workspace)
    assert len(archives) == 1
    archived = session.parse_lines(archives[0].read_bytes()).messages
    assert len(archived) == len(before_messages)
    # The session file holds the rebuilt history (+ the turn that followed).
    on_disk = session.load(state.session_id, workspace).messages
    assert is_summary(on_disk[0])
    assert len(on_disk) == len(state.history)
    # The next request starts with the compaction's head: the fixed line, the files, the summary.
    request = server.requests[-1]["body"]["messages"]
    assert request[0]["role"] == "system"
    head = "\n".join(str(m.get("content")) for m in request[1:])
    assert request[1]["content"].startswith("This session continues")
    assert "The user asked to read files" in head and str(archives[0]) in head
    restored = [m for m in request if m["role"] == "tool"]
    assert restored and "line 0 of file 1" in restored[-1]["content"]
    assert request[-1]["content"] == "what next?"
    # The gauge is right right after the compaction: counted, smaller, not zero.
    assert 0 < finished[0].tokens_after < finished[0].tokens_before


async def test_compaction_request_is_a_prefix_match_and_cached(make_state, workspace, server):
    state = make_state(context_window=50_000)
    await _fill(state, workspace, count=2, notes=2, lines=50)
    last_agent_request = server.requests[-1]
    server.script(Text(SUMMARY))
    await compact.run_compact(state, "focus on the tests")
    request = server.requests[-1]
    body, previous = request["body"], last_agent_request["body"]
    assert body["tools"] == previous["tools"]
    assert body.get("tool_choice") == previous.get("tool_choice") == "auto"  # what every turn sends
    assert body["messages"][: len(previous["messages"])] == previous["messages"]
    assert "Additional instructions:\nfocus on the tests" in body["messages"][-1]["content"]
    assert request["cache_hit_tokens"] >= 0.9 * request["prompt_tokens"]


async def test_custom_instructions_in_chinese(make_state, workspace, server):
    state = make_state(lang="zh")
    server.script(long_answer())
    await on_submit(state, "你好")
    server.script(Text(SUMMARY))
    await compact.run_compact(state, "重点保留测试相关内容")
    prompt = server.requests[-1]["body"]["messages"][-1]["content"]
    assert prompt.startswith("重要：只输出纯文本")
    assert "补充要求：\n重点保留测试相关内容" in prompt


@pytest.mark.parametrize(
    "reply",
    [Error(500, "boom"), Text(""), Text("<analysis>only a draft</analysis>")],
    ids=["http-500", "empty", "empty-summary"],
)
async def test_failures_leave_everything_as_it_was(make_state, workspace, server, reply):
    state = make_state(context_window=50_000)
    await _fill(state, workspace, count=2)
    state.file_history.make_checkpoint(len(state.history), "x")
    before = _snapshot(state)
    server.script(reply)
    with pytest.raises(Exception):  # noqa: B017 - each kind raises its own error; all must leave state alone
        await compact.run_compact(state)
    assert server.pending == 0  # the scripted fault was what the compaction met
    _assert_unchanged(state, before)
    assert session.list_archives(state.session_id, workspace) == []


async def test_timeout_leaves_everything_as_it_was(make_state, workspace, server, monkeypatch):
    monkeypatch.setenv("CODING_AGENT_TIMEOUT", "1")
    state = make_state()
    await on_submit(state, "hello")
    before = _snapshot(state)
    server.script(Hang(5))
    with pytest.raises(Exception):  # noqa: B017
        await compact.run_compact(state)
    assert server.pending == 0  # the scripted fault was what the compaction met
    _assert_unchanged(state, before)


async def test_cancel_leaves_everything_as_it_was(make_state, workspace, server):
    state = make_state()
    await on_submit(state, "hello")
    before = _snapshot(state)
    server.script(Hang(600))  # the summary never comes: the compaction is cancelled waiting on it
    task = asyncio.create_task(compact.run_compact(state))
    await asyncio.to_thread(wait_for, lambda: server.pending == 0, 30)  # the request is in flight
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    _assert_unchanged(state, before)
    assert session.list_archives(state.session_id, workspace) == []


async def test_unwritable_archive_folder_refuses_before_anything(make_state, workspace, server):
    state = make_state()
    await on_submit(state, "hello")
    (session.project_dir(workspace) / session.ARCHIVE_DIR_NAME).write_text("a file where the folder should be")
    before = _snapshot(state)
    requests = len(server.requests)
    with pytest.raises(errors.CompactError, match="archive"):
        await compact.run_compact(state)
    _assert_unchanged(state, before)
    assert len(server.requests) == requests  # refused before the LLM call


async def test_circuit_breaker_after_three_failures(make_state, workspace, server):
    state = make_state(context_window=16_000)
    await _fill_over(state, workspace)
    for _ in range(3):
        server.script(Error(500, "boom"))
        await on_submit(state, "go on")
    assert len(state.emit.of(CompactionFailed)) == 3
    assert state.compaction.off_reason == "failures"
    assert any("now off" in n.text for n in state.emit.of(Notice))
    requests = len(server.requests)
    await on_submit(state, "one more")
    assert len(server.requests) == requests + 1  # only the turn itself: no compaction attempt


async def test_success_resets_failure_count(make_state, workspace, server):
    state = make_state(context_window=16_000)
    await _fill_over(state, workspace)
    server.script(Error(500, "boom"))
    await on_submit(state, "go on")
    assert state.compaction.failures == 1
    server.script(Text(SUMMARY))
    await on_submit(state, "go on")
    assert state.compaction.failures == 0
    assert state.emit.of(CompactionFinished)


async def test_compaction_needs_no_tool_choice_none(make_state, workspace, server):
    """An endpoint refusing tool_choice="none" no longer costs the cache: the request keeps its tools."""
    state = make_state(context_window=50_000)
    server.reject_tool_choice_none = True
    await _fill(state, workspace, count=2, notes=2, lines=50)
    server.script(Text(SUMMARY))
    await compact.run_compact(state)
    request = server.requests[-1]
    assert request["body"]["tools"] == server.requests[-2]["body"]["tools"]
    assert request["cache_hit_tokens"] >= 0.9 * request["prompt_tokens"]
    assert is_summary(state.history[0])


async def test_checkpoints_into_compacted_messages_are_dropped(make_state, workspace, server):
    state = make_state()
    server.script(long_answer(1), long_answer(2))
    await on_submit(state, "one")
    await on_submit(state, "two")
    assert len(state.file_history.checkpoints) == 2
    server.script(Text(SUMMARY))
    await compact.run_compact(state)
    assert state.file_history.checkpoints == []


async def test_nothing_to_compact(make_state):
    state = make_state()
    with pytest.raises(errors.NothingToCompact):
        await compact.run_compact(state)
