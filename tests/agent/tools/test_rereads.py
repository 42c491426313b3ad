"""A re-read of unchanged lines is answered by reference (agent.tools.rereads), through the real
agent and the emulator: the note when the same read's text is still in the context, the text when
the file changed (even with its size and time kept), when that read was cleared, when it was
compacted away; and what rewrites the history later never leaves a note without its read above it
(agent.compaction.rebuild.anchored)."""

from __future__ import annotations

import os

from pydantic_ai.messages import ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart, UserPromptPart

import compact
from agent.compaction.rebuild import PLACEHOLDER, anchored, clear_tool_results, compacted_history
from agent.compaction.restore import shown_reads
from agent.text.i18n import t
from agent.text.i18n_tools import is_reference
from main import on_submit
from tests.builders import long_answer, responder, script_forever
from tests.fake_openai import Text, ToolCalls

TEXT = "".join(f"value_{n} = compute({n})  # the {n}th value\n" for n in range(30))


def _tool_answers(body: dict) -> list[str]:
    return [m["content"] for m in body["messages"] if m.get("role") == "tool"]


async def _read_twice(state, server, path: str = "config.py", between=None) -> list[str]:
    """Two turns that read `path`; `between` runs after the first. The tool answers of the request
    that follows the second read."""
    script_forever(
        server,
        responder(
            [
                ToolCalls([("read_file", {"path": path})]),
                Text("read it"),
                ToolCalls([("read_file", {"path": path})]),
                Text("read it again"),
            ]
        ),
    )
    await on_submit(state, f"look at {path}")
    if between is not None:
        await between()
    await on_submit(state, f"look at {path} again")
    return _tool_answers(server.requests[-1]["body"])


async def test_an_unchanged_reread_names_the_earlier_read(make_state, server, workspace):
    state = make_state()
    (workspace / "config.py").write_text(TEXT)
    answers = await _read_twice(state, server)
    assert len(answers) == 2 and "value_29 = compute(29)" in answers[0]
    assert answers[1] == t("read_unchanged", "en", path="config.py") and is_reference(answers[1])
    assert "value_0" not in answers[1]
    # The read still counts as a read: the file may be edited.
    assert state.read_file_state.check_fresh(workspace / "config.py") is None


async def test_the_note_is_in_the_users_language(make_state, server, workspace):
    state = make_state(lang="zh")
    (workspace / "config.py").write_text(TEXT)
    answers = await _read_twice(state, server)
    assert answers[1] == t("read_unchanged", "zh", path="config.py") and "未改动" in answers[1]
    assert is_reference(answers[1])


async def test_a_file_changed_with_its_size_and_time_kept_is_read_out_in_full(make_state, server, workspace):
    state = make_state()
    target = workspace / "config.py"
    target.write_text(TEXT)
    before = target.stat()

    async def change() -> None:  # another program: same size, same mtime, other bytes
        target.write_text(TEXT.replace("value_7 ", "value_X "))
        os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
        assert target.stat().st_size == before.st_size and target.stat().st_mtime_ns == before.st_mtime_ns

    answers = await _read_twice(state, server, between=change)
    assert "value_X = compute(7)" in answers[1] and not is_reference(answers[1])


async def test_another_range_is_not_taken_for_the_same_read(make_state, server, workspace):
    state = make_state()
    (workspace / "config.py").write_text(TEXT)
    script_forever(
        server,
        responder(
            [
                ToolCalls([("read_file", {"path": "config.py"})]),
                Text("read"),
                ToolCalls([("read_file", {"path": "config.py", "offset": 5})]),
                Text("again"),
            ]
        ),
    )
    await on_submit(state, "look at config.py")
    await on_submit(state, "look at it from line 5")
    assert "value_4 = compute(4)" in _tool_answers(server.requests[-1]["body"])[1]


async def test_a_read_cleared_since_is_read_out_in_full(make_state, server, workspace):
    state = make_state()
    (workspace / "config.py").write_text(TEXT)

    async def clear() -> None:  # the cheap tier's clearing, as a compaction commits it
        cleared, saved = clear_tool_results(state.history, keep_tokens=0)
        assert saved > 0
        state.transcript.update(cleared)

    answers = await _read_twice(state, server, between=clear)
    assert answers[0].startswith("[Old tool result cleared")
    assert "value_29 = compute(29)" in answers[1]


async def test_a_read_compacted_away_is_read_out_in_full(make_state, server, workspace):
    state = make_state()
    (workspace / "config.py").write_text(TEXT)
    others = [f"other{i}.py" for i in range(5)]
    for name in others:
        (workspace / name).write_text(f"x = '{name}'\n")

    async def summarize() -> None:  # five newer reads: a summary restores those, not config.py
        script_forever(
            server,
            responder(
                [
                    ToolCalls([("read_file", {"path": n}) for n in others]),
                    long_answer(),
                    ToolCalls([("read_file", {"path": "config.py"})]),
                    Text("again"),
                ]
            ),
        )
        await on_submit(state, "read the others")
        await compact.run_compact(state)
        assert not any("value_0" in str(getattr(p, "content", "")) for m in state.history for p in m.parts)

    answers = await _read_twice(state, server, between=summarize)
    assert "value_29 = compute(29)" in answers[-1] and not is_reference(answers[-1])


# --- what rewrites the history keeps each note with its read ------------------------------------


def _read(call_id: str, content: str, path: str = "config.py") -> list:
    return [
        ModelResponse(parts=[ToolCallPart("read_file", {"path": path}, tool_call_id=call_id)]),
        ModelRequest(parts=[ToolReturnPart("read_file", content, tool_call_id=call_id)]),
    ]


NOTE = t("read_unchanged", "en", path="config.py")


def test_clearing_keeps_a_read_a_note_points_to_and_clears_the_note_with_it():
    big = "\n".join(f"{n:6}\tline {n} of the file with some words" for n in range(400))
    history = [
        ModelRequest(parts=[UserPromptPart("read it")]),
        *_read("a", big),
        *_read("b", NOTE),
        ModelResponse(parts=[]),
    ]
    # A note is not a later read: the text it points to is not superseded by it.
    kept, _ = clear_tool_results(history, keep_tokens=100_000)
    assert kept[2].parts[0].content == big and kept[4].parts[0].content == NOTE
    # Once the text is cleared, so is the note (the model reads the file again).
    cleared, _ = clear_tool_results(history, keep_tokens=0)
    assert cleared[2].parts[0].content.startswith("[Old tool result cleared")
    assert cleared[4].parts[0].content == PLACEHOLDER.format(call='read_file(path="config.py")')


def test_a_rebuilt_history_without_the_read_clears_its_note():
    summary = ModelRequest(parts=[UserPromptPart("the summary")])
    tail = [ModelRequest(parts=[UserPromptPart("again")]), *_read("b", NOTE)]
    alone = compacted_history([], [], summary, tail)
    assert alone[-1].parts[0].content.startswith("[Old tool result cleared")
    restored = compacted_history([], _read("r", TEXT), summary, tail)
    assert restored[-1].parts[0].content == NOTE
    # Nothing to change: the same objects.
    history = [*_read("a", TEXT), *_read("b", NOTE)]
    assert all(x is y for x, y in zip(anchored(history), history, strict=True))


def test_a_note_in_the_tail_does_not_count_as_showing_the_file():
    texts, reads = shown_reads([*_read("a", TEXT), *_read("b", NOTE)])
    assert texts == {TEXT} and reads == [("config.py", True), ("config.py", False)]
    texts, reads = shown_reads(_read("b", NOTE))
    assert texts == set() and reads == [("config.py", False)]
