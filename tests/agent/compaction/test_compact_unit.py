"""Unit tests: summary extraction, threshold math, the watermark, the restore budget."""

from __future__ import annotations

import pytest
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart
from pydantic_ai.usage import RequestUsage

from agent.compaction.restore import restore_files
from agent.compaction.summary import extract_summary
from agent.compaction.watermark import (
    CompactAtOutOfRange,
    compact_at_range,
    compact_threshold,
    context_tokens,
    figures,
    parse_compact_at,
)
from agent.state.file_state import ReadFileState
from agent.tokens import count as tokens


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("<analysis>draft</analysis>\n<summary>the summary</summary>", "the summary"),
        ("no tags at all", "no tags at all"),
        ("<analysis>a</analysis>just text", "just text"),
        ("before <summary>inside</summary> after", "inside"),
        ("<summary>outer <summary>nested</summary></summary>", "outer nested"),
        ("<summary>cut off before the end", "cut off before the end"),
        ("<analysis>only a draft</analysis>", ""),
        ("stray </analysis> tag <summary>ok</summary>", "ok"),
    ],
)
def test_extract_summary(text: str, expected: str) -> None:
    assert extract_summary(text) == expected


def test_threshold_matches_the_design_at_131072() -> None:
    assert compact_threshold(131_072) == 131_072 - 20_000 - 10_000


@pytest.mark.parametrize("window", [4_096, 8_192, 32_768, 131_072, 200_000, 1_000_000])
def test_threshold_scales_and_stays_sane(window: int) -> None:
    limit = compact_threshold(window)
    assert window * 0.6 < limit < window * 0.85
    assert limit > 0


def test_one_million_window_does_not_compact_at_970k() -> None:
    assert compact_threshold(1_000_000) < 800_000


def test_compact_at_overrides() -> None:
    assert compact_threshold(1_000_000, "900000") == 900_000
    assert compact_threshold(1_000_000, "50%") == 500_000
    assert compact_threshold(131_072, "60k") == 60_000
    # Refused, not clamped: never beyond the window minus the summary's reserve, never absurdly low.
    low, high = compact_at_range(131_072)
    assert parse_compact_at(str(high), 131_072) == high and parse_compact_at(str(low), 131_072) == low
    for outside in ("200000", "200%", "10", str(high + 1), str(low - 1), "-5"):
        with pytest.raises(CompactAtOutOfRange):
            parse_compact_at(outside, 131_072)


def _response(text: str, input_tokens: int, output_tokens: int) -> ModelResponse:
    usage = RequestUsage(input_tokens=input_tokens, output_tokens=output_tokens)
    return ModelResponse(parts=[TextPart(text)], usage=usage)


def test_context_tokens_uses_newest_usage_plus_newer_messages(make_state) -> None:
    state = make_state()
    later = ModelRequest(parts=[UserPromptPart("一个新的问题 about the code")])
    state.transcript.update(
        [
            ModelRequest(parts=[UserPromptPart("hi")]),
            _response("old", 100, 10),
            ModelRequest(parts=[UserPromptPart("again")]),
            _response("new", 5_000, 200),
            later,
        ]
    )
    pending = [ModelRequest(parts=[UserPromptPart("pending text")])]
    expected = 5_200 + tokens.count_message(later) + tokens.count_message(pending[0])
    assert context_tokens(state, pending) == expected


def test_context_tokens_without_usage_counts_everything(make_state) -> None:
    state = make_state()
    assert context_tokens(state) > 0  # instructions and tools alone are not 0
    empty = context_tokens(state)
    state.transcript.update([ModelRequest(parts=[UserPromptPart("hello " * 100)])])
    assert context_tokens(state) == empty + tokens.count_message(state.history[0])


def test_restore_budget_and_order(make_state, workspace) -> None:
    state = make_state(context_window=131_072)
    old = ReadFileState()
    names = [f"f{i}.txt" for i in range(8)]
    for name in names:
        (workspace / name).write_text(f"content of {name}\n" * 20)
        old.record(workspace / name)
    (workspace / "f6.txt").unlink()  # gone: skipped, older ones still fit
    new = ReadFileState()
    state.read_file_state, budget = old, figures(state).budgets.restore
    messages = restore_files(state, new, budget, [])
    restored = [p.name for p in new.paths()]
    # Newest five that exist, in their original read order.
    assert restored == ["f2.txt", "f3.txt", "f4.txt", "f5.txt", "f7.txt"]
    # A call and its answer per file, by path, each id made of the path and the text (issue 20).
    assert len(messages) == 10
    calls = [m.parts[0] for m in messages[::2]]
    assert [c.args_as_dict()["path"] for c in calls] == restored
    assert [r.parts[0].tool_call_id for r in messages[1::2]] == [c.tool_call_id for c in calls]
    again = restore_files(state, ReadFileState(), budget, [])
    assert [m.parts[0].tool_call_id for m in again] == [m.parts[0].tool_call_id for m in messages]


def test_restore_skips_a_file_too_big_but_keeps_older(make_state, workspace) -> None:
    state = make_state(context_window=20_000)  # budget: 2,000 tokens
    old = ReadFileState()
    (workspace / "small_old.txt").write_text("small\n")
    old.record(workspace / "small_old.txt")
    (workspace / "huge_new.txt").write_text(("word " * 20 + "\n") * 500)  # ~10k tokens as read_file shows it
    old.record(workspace / "huge_new.txt")
    new = ReadFileState()
    state.read_file_state = old
    restore_files(state, new, figures(state).budgets.restore, [])
    assert [p.name for p in new.paths()] == ["small_old.txt"]
