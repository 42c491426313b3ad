"""The compaction request reuses the last request's messages (agent.provider.prefix): the same bytes as
sending the whole history through pydantic-ai, checked against the local server."""

from __future__ import annotations

import asyncio

import pytest

import compact
from agent import compaction, debuglog
from agent.compaction import request
from agent.events import CompactionFinished
from agent.provider.prefix import PrefixMismatch, RequestContext, RequestRecorder, join
from agent.turn.warmup import warm_up
from main import on_submit
from tests.builders import LATER_TOOLS, big_files, chat, is_compaction, long_answer, note, responder, script_forever
from tests.fake_openai import Text, ToolCalls


@pytest.fixture
def both_ways(monkeypatch, server):
    """Every compaction request is sent twice: as the agent sends it, then with the recorded
    request forgotten (pydantic-ai builds all of it). Returns the (joined, whole) body pairs."""
    pairs: list[tuple[dict, dict]] = []
    reusing = request._responses_reusing

    async def twice(agent, state, messages, prompt, settings):
        joined = state.scratch.recorder.covering(messages) is not None
        response = await reusing(agent, state, messages, prompt, settings)
        first = _last_compaction(server)
        if joined:
            last, state.scratch.recorder.last = state.scratch.recorder.last, None
            await request._responses(agent, state, messages, prompt, settings)  # joined onto nothing
            state.scratch.recorder.last = last
            pairs.append((first, _last_compaction(server)))
        return response

    monkeypatch.setattr(request, "_responses_reusing", twice)
    return pairs


def _last_compaction(server) -> dict:
    # A background summary runs beside the turn: the newest request may be the turn's.
    return next(r["body"] for r in reversed(server.requests) if is_compaction(r["body"]))


def _assert_same(pairs) -> None:
    assert pairs, "no compaction request reused the last request"
    for joined, whole in pairs:
        assert is_compaction(joined) and is_compaction(whole)
        assert joined == whole


async def test_after_turns_with_tools_and_reasoning(make_state, workspace, server, both_ways):
    state = make_state(model="deepseek-v4-flash")
    (workspace / "a.py").write_text("print('a')\n")
    server.script(
        ToolCalls([("read_file", {"path": "a.py"})], reasoning="look at a.py first"),
        Text(long_answer().content, reasoning="it is one line"),
    )
    await on_submit(state, "what does a.py do?")
    server.script(Text("你好，有什么可以帮忙？", reasoning="用中文回答"))
    await on_submit(state, "你好")
    sent = state.scratch.recorder.last
    assert sent is not None and state.scratch.recorder.covering(state.history) is sent
    previous = server.requests[-1]["body"]

    server.script(Text("<summary>1. read a.py</summary>"))
    await compact.run_compact(state, "keep the file names")

    _assert_same(both_ways)
    joined = both_ways[0][0]
    assert joined["messages"][: len(previous["messages"])] == previous["messages"]
    assert joined["tools"] == previous["tools"] and joined["tool_choice"] == previous["tool_choice"] == "auto"
    assert state.emit.of(CompactionFinished)
    # The history was replaced: the record no longer covers it, and the next turn records anew.
    assert state.scratch.recorder.covering(state.history) is None


async def test_mid_turn_compaction_reuses_the_request_in_flight(make_state, workspace, server, both_ways):
    window = 16_000
    # At 11k the request has room to go whole (with the reuse) rather than fitted, and the turn starts
    # below the background summary's mark (85% of it), with the six tools this was measured with (the
    # later ones' definitions push it over: a background summary's request would then be the newest).
    state = make_state(context_window=window, compact_at="11k", disallowed_tools=LATER_TOOLS)
    server.max_context = window
    await chat(state, [note(i) for i in range(3)])
    big_files(workspace, 6, lines=60)
    calls = [ToolCalls([("read_file", {"path": f"big{i}.txt"})], reasoning=f"step {i}") for i in range(6)]
    script_forever(server, responder(calls + [Text("done")]))

    await on_submit(state, "read every file")

    finished = state.emit.of(CompactionFinished)
    assert finished and all(f.trigger in ("mid-turn", "background") for f in finished)
    _assert_same(both_ways)
    # The summary request is the turn's request in flight, whole, and the prompt: the tool exchange
    # that came after it, never sent, follows the summary instead (agent.compaction.background).
    joined = both_ways[0][0]["messages"]
    [in_flight] = [
        r["body"]["messages"] for r in server.requests if r["body"]["messages"][-1].get("content") == "read every file"
    ]
    assert joined[:-1] == in_flight and joined[-1]["role"] == "user"


async def test_not_reused_when_the_history_was_rebuilt(make_state, workspace, server, both_ways):
    state = make_state()
    server.script(long_answer())
    await on_submit(state, "hello")
    # The same messages, but not the same objects: as after loading the session from disk.
    state.transcript.update([m.__class__(**{f: getattr(m, f) for f in m.__dataclass_fields__}) for m in state.history])
    assert state.scratch.recorder.covering(state.history) is None
    server.script(Text("<summary>1. said hello</summary>"))
    await compact.run_compact(state)
    assert both_ways == []
    assert server.requests[-1]["body"]["messages"][0]["role"] == "system"


async def test_other_instructions_fall_back_to_the_whole_request(make_state, workspace, server, home):
    path = debuglog.enable()
    try:
        state = make_state()
        server.script(long_answer())
        await on_submit(state, "hello")
        sent = state.scratch.recorder.last
        sent.messages = [{"role": "system", "content": "other instructions"}, *sent.messages[1:]]
        server.script(Text("<summary>1. said hello</summary>"))
        await compact.run_compact(state)
    finally:
        debuglog._path = None
    body = server.requests[-1]["body"]
    assert is_compaction(body) and body["messages"][0]["content"] != "other instructions"
    assert "compact_prefix_mismatch" in path.read_text()


def test_join_outside_and_inside():
    recorder = RequestRecorder()
    messages = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]
    assert join(messages, None, None) is messages
    assert join(messages, None, RequestContext(recorder)) is messages
    recorder.record(messages, ["tool"])
    assert recorder.last is None  # nothing expected: not an agent request
    recorder.expect(["m"])
    recorder.record(messages, ["tool"])
    context = RequestContext(join=recorder.last)
    tail = [{"role": "system", "content": "s"}, {"role": "user", "content": "prompt"}]
    assert join(tail, ["tool"], context) == [*messages, {"role": "user", "content": "prompt"}]
    with pytest.raises(PrefixMismatch):
        join(tail, ["other tool"], context)
    with pytest.raises(PrefixMismatch):
        join([{"role": "system", "content": "changed"}], ["tool"], context)
    context.whole = True  # a request the turn's guard fitted for this once goes out as given
    assert join(tail, ["tool"], context) is tail


def _resume(state, make_state, **config):
    """A new state on the same session, loaded from disk as --continue does."""
    import session
    from agent.state.transcript import Transcript

    resumed = make_state(**config)
    resumed.transcript = Transcript(
        state.session_id, state.workspace, session.load(state.session_id, state.workspace).messages
    )
    return resumed


async def test_resumed_near_the_threshold_is_primed(make_state, workspace, server, both_ways):
    window = {"context_window": 16_000, "compact_at": "8k"}  # the whole history fits a summary request
    state = make_state(**window, auto_compact=False)
    (workspace / "a.py").write_text("x = 1\n" * 20)
    server.script(ToolCalls([("read_file", {"path": "a.py"})], reasoning="read it"), Text("read", reasoning="ok"))
    await on_submit(state, "read a.py")
    n = 0
    while compaction.context_tokens(state) < compaction.threshold(state):
        await on_submit(state, note(n))
        n += 1
    resumed = _resume(state, make_state, **window)
    assert compaction.context_tokens(resumed) >= compaction.threshold(resumed)

    await asyncio.get_running_loop().run_in_executor(None, warm_up, resumed)

    sent = resumed.scratch.recorder.last
    assert sent is not None and sent.history == resumed.history
    assert server.requests[-1]["body"]["messages"][-1]["content"] == note(n - 1)  # nothing was sent
    # The next turn compacts first, reusing the primed request: the same bytes as building it all.
    await on_submit(resumed, "go on")
    assert [f.tier for f in resumed.emit.of(CompactionFinished)] == ["summary"]
    _assert_same(both_ways)


async def test_primed_request_is_what_the_next_turn_sends(make_state, workspace, server):
    state = make_state(context_window=16_000, auto_compact=False)
    # Past the mark where priming starts, still short of the window (a longer one is fitted first).
    for i in range(4):
        await on_submit(state, note(i))
    resumed = _resume(state, make_state, context_window=16_000, auto_compact=False)

    await asyncio.get_running_loop().run_in_executor(None, warm_up, resumed)
    primed = resumed.scratch.recorder.last.messages
    await on_submit(resumed, "next")

    sent = server.requests[-1]["body"]["messages"]
    assert sent[:-1] == primed and sent[-1] == {"role": "user", "content": "next"}


async def test_far_from_the_threshold_nothing_is_primed(make_state, workspace, server):
    state = make_state()
    await on_submit(state, "hello")
    resumed = _resume(state, make_state)
    await asyncio.get_running_loop().run_in_executor(None, warm_up, resumed)
    assert resumed.scratch.recorder.last is None
