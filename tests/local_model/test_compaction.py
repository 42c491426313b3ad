"""Compaction on a real server: automatic (the cheap tier: no prices, no cache seen, so clearing is
chosen), manual (/compact: the model writes the summary), a turn after each, and the attached file
kept through the fit to the window."""

from __future__ import annotations

import compact
from agent.events import CompactionFinished, Notice, UsageUpdate
from agent.marks import is_summary
from main import on_submit
from tests.local_model.test_window import numbered_code


def errors(state) -> list[str]:
    return [n.text for n in state.emit.of(Notice) if n.level == "error"]


def _tool_texts(state) -> list[str]:
    from pydantic_ai.messages import ModelRequest, ToolReturnPart

    return [
        p.model_response_str()
        for m in state.history
        if isinstance(m, ModelRequest)
        for p in m.parts
        if isinstance(p, ToolReturnPart)
    ]


async def test_automatic_compaction_then_a_turn(local_state, workspace):
    (workspace / "a.py").write_text(numbered_code(50))
    (workspace / "b.py").write_text(numbered_code(50))
    state = local_state(4096)
    await on_submit(state, "Say ok. @a.py")
    await on_submit(state, "Say ok. @b.py")  # past the threshold (3,153 at 4096): compacts first
    assert not errors(state)
    finished = state.emit.of(CompactionFinished)
    assert finished, [n.text for n in state.emit.of(Notice)]
    usage = state.emit.of(UsageUpdate)[-1]
    assert 0 < usage.input_tokens < 4096


async def test_manual_compaction_then_a_turn(local_state):
    from agent.errors import CompactError

    state = local_state(4096)
    await on_submit(state, "My name is Ada. Say ok.")
    before = list(state.history)
    try:
        await compact.run_compact(state, "Be very brief.")
    except CompactError as exc:
        # A 135M model may write no summary at all: then the history is exactly as it was.
        assert state.history == before, exc
    else:
        assert is_summary(state.history[0])
    await on_submit(state, "Say ok again.")
    assert not errors(state)
    assert state.emit.of(UsageUpdate)[-1].input_tokens < 4096


async def test_the_attached_file_survives_the_fit_to_the_window(local_state, workspace):
    """Finding 3: at 4096 the fit to the window left out "the 4 oldest messages", this turn's
    @inventory.py among them; the model then answered about a file it never saw. Now its first part
    (a share of the window) is sent, and the user is told which lines: the model reads on with offset."""
    (workspace / "old.py").write_text(numbered_code(45))
    (workspace / "inventory.py").write_text(numbered_code(70))
    state = local_state(4096, auto_compact=False)
    await on_submit(state, "Say ok. @old.py")
    await on_submit(state, "Summarize @inventory.py in one sentence.")
    notices = [n.text for n in state.emit.of(Notice)]
    attached = [n for n in notices if n.startswith("Attached @inventory.py")]
    assert attached and "(lines 1–" in attached[0], notices
    last = int(attached[0].split("(lines 1–")[1].split(";")[0].replace(",", ""))
    assert not any("Left out" in n for n in notices), notices
    part = _answer_to(state, "inventory.py")
    assert f"item_{last}(" in part and part.endswith(f"continue with offset={last + 1}]"), part[-300:]
    # The server counted the part in this turn's request (the first turn's, with old.py, was smaller).
    first, this = (u.input_tokens for u in state.emit.of(UsageUpdate)[-2:])
    assert this > first, (first, this)


def _answer_to(state, path: str) -> str:
    from pydantic_ai.messages import ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart

    ids = {
        p.tool_call_id
        for m in state.history
        if isinstance(m, ModelResponse)
        for p in m.parts
        if isinstance(p, ToolCallPart) and p.args_as_dict().get("path") == path
    }
    return next(
        p.model_response_str()
        for m in state.history
        if isinstance(m, ModelRequest)
        for p in m.parts
        if isinstance(p, ToolReturnPart) and p.tool_call_id in ids
    )
