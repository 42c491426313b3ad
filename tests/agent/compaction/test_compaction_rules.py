"""The pure decisions of a compaction (values in, values out), beside the code they pin."""

from __future__ import annotations

from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart, UserPromptPart

from agent.compaction.rebuild import PLACEHOLDER, clear_tool_results, refuse_result
from agent.compaction.summary import carried_and_older, missing_user_messages, strip_wrapper
from agent.compaction.undo import UndoPlan
from agent.compaction.watermark import REBUILT_SHARE, SUMMARY_OVERHEAD, budgets
from agent.text.prompts import load_prompt
from agent.tokens import count as tokens

CLEARED = PLACEHOLDER.split(":")[0]


def _read(n: int, size: int = 400) -> tuple[ModelResponse, ModelRequest]:
    call = ToolCallPart("read_file", {"path": f"f{n}.txt"}, tool_call_id=f"c{n}")
    result = ToolReturnPart("read_file", f"content of f{n} " * size, tool_call_id=f"c{n}")
    return ModelResponse(parts=[call]), ModelRequest(parts=[result])


def _results(messages) -> list[str]:
    return [
        p.content for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)
    ]


def test_results_after_the_last_response_are_never_cleared() -> None:
    old_call, old_result = _read(0)
    calls = ModelResponse(
        parts=[ToolCallPart("read_file", {"path": f"n{i}.txt"}, tool_call_id=f"n{i}") for i in range(3)]
    )
    unseen = ModelRequest(
        parts=[ToolReturnPart("read_file", f"new {i} " * 2_000, tool_call_id=f"n{i}") for i in range(3)]
    )
    history = [ModelRequest(parts=[UserPromptPart("go")]), old_call, old_result, calls, unseen]
    cleared, saved = clear_tool_results(history, keep_tokens=0)
    assert cleared[-1] is unseen  # not sent yet: kept whatever the budget
    assert CLEARED in _results(cleared)[0] and saved > 0


def test_results_are_cleared_oldest_first() -> None:
    """A newer result that does not fit is not cleared while an older, smaller one is kept."""
    small_call, small = _read(0, size=100)
    big_call, big = _read(1, size=2_000)
    newest_call, newest = _read(2, size=100)
    history = [
        ModelRequest(parts=[UserPromptPart("go")]),
        small_call,
        small,
        big_call,
        big,
        newest_call,
        newest,
        ModelResponse(parts=[TextPart("done")]),
    ]
    keep = tokens.count_text(newest.parts[0].content) + tokens.count_text(small.parts[0].content) + 10
    cleared, _ = clear_tool_results(history, keep_tokens=keep)
    kept = [CLEARED not in r for r in _results(cleared)]
    assert kept == [False, False, True]


def test_user_messages_carried_newest_first_within_the_budget() -> None:
    messages = [f"message {i}: " + "word " * 200 for i in range(10)]
    cost = tokens.count_text(messages[0])
    carried, older = carried_and_older(messages, budget=int(cost * 3.5), lang="en")
    verbatim = carried[-4:]
    assert verbatim[-3:] == messages[-3:]  # the newest, whole and in order
    assert "characters cut" in verbatim[0] and verbatim[0].startswith("message 6: word")  # crossing the budget: cut
    assert sum(tokens.count_texts(verbatim)) <= int(cost * 3.5)
    # The older ones by their first words, within half as much again; the rest counted.
    heads = carried[:-4]
    numbers = range(6 - len(heads), 6)
    assert heads and all(h.startswith(f"message {i}: word") for i, h in zip(numbers, heads, strict=True))
    assert older == 6 - len(heads) and sum(tokens.count_texts(heads)) <= int(cost * 3.5) // 2


def test_a_carried_message_counts_as_quoted_up_to_its_cut_marker() -> None:
    cut = carried_and_older(["keep this exact wording " * 40], budget=40, lang="en")[0][0]
    head = cut.split(" [...")[0]
    assert missing_user_messages(f"summary quoting {head} and more", [cut], "en") == []
    assert missing_user_messages("a summary that forgot it", [cut], "en") == [cut]


def test_strip_wrapper_removes_our_header_and_titles_in_both_languages() -> None:
    for lang in ("en", "zh"):
        wrapper = load_prompt("summary_wrapper", lang).format(summary="1. OLD SUMMARY", transcript="/t.jsonl")
        copied = f"1. New work.\n5. All user messages:\n- {wrapper}\n- fix the bug"
        text = strip_wrapper(copied)
        header = wrapper.splitlines()[0]
        assert header not in text and "1. OLD SUMMARY" in text and "- fix the bug" in text


def test_a_result_not_smaller_or_over_the_threshold_is_refused() -> None:
    assert refuse_result(5_619, 10_177, 6_168) == "compact_not_smaller"
    assert refuse_result(9_000, 9_000, 6_168) == "compact_not_smaller"
    assert refuse_result(9_000, 7_000, 6_168) == "compact_over_threshold"
    assert refuse_result(9_000, 2_000, 6_168) is None


def test_budgets_share_out_the_target() -> None:
    assert REBUILT_SHARE <= 0.7
    for window, threshold, fixed in ((4_096, 3_158, 1_350), (8_192, 6_317, 1_165), (1_000_000, 771_000, 2_000)):
        plan = budgets(window, threshold, fixed)
        parts = fixed + SUMMARY_OVERHEAD + plan.summary + plan.user_messages + plan.restore + plan.tail
        assert plan.target == int(threshold * REBUILT_SHARE) and parts <= plan.target
        assert min(plan.summary, plan.user_messages, plan.restore, plan.tail) > 0
    big = budgets(1_000_000, 771_000, 2_000)
    assert (big.summary, big.user_messages, big.restore) == (20_000, 20_000, 50_000)  # the caps bind


def test_the_turns_made_since_a_compaction() -> None:
    carried = ModelRequest(parts=[UserPromptPart("the user's words")], metadata={"agent_note": "carried"})
    later = [
        carried,
        ModelRequest(parts=[UserPromptPart("three")]),
        ModelResponse(parts=[TextPart("ok")]),
        ModelRequest(parts=[UserPromptPart("four")]),
        ModelResponse(parts=[TextPart("ok")]),
    ]
    assert UndoPlan(None, [], later).later_turns == 2  # the compaction's own messages are no turn
    assert UndoPlan(None, [], None).later_turns == 0


def test_the_summary_message_names_only_the_newest_transcripts(tmp_path) -> None:
    from agent.compaction.summary import ARCHIVES_SHOWN, SummaryParts, summary_messages

    archives = [f"/archive/{n}.jsonl" for n in range(ARCHIVES_SHOWN + 4)]
    text = summary_messages(SummaryParts("s", archives), "en")[1].parts[0].content
    assert all(a in text for a in archives[-ARCHIVES_SHOWN:]) and archives[0] not in text
