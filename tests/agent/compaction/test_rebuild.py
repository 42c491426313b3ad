"""agent.compaction.rebuild and the rest of the pure core (agent.compaction.tiers): values in, values out, no server,
no AppState. The cases of the compaction-holes issue (#13) among them."""

from __future__ import annotations

import dataclasses

from pydantic_ai.messages import (
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.usage import RequestUsage

from agent.compaction.fit import fit_messages
from agent.compaction.rebuild import (
    CHEAP_TIER_TARGET,
    PLACEHOLDER,
    cheap_tier,
    cheap_tier_enough,
    checkpoints_cut,
    clear_tool_results,
    compacted_history,
    kept_for_fit,
    mid_turn_keep,
    refuse_result,
    turn_prompt,
    without_usage,
)
from agent.compaction.restore import choose_restored
from agent.compaction.summary import SummaryParts, missing_user_messages, summary_messages, summary_parts
from agent.state.file_history import Checkpoint
from agent.tokens import count as tokens

CLEARED = PLACEHOLDER.split(":")[0]


def _ask(text: str) -> ModelRequest:
    return ModelRequest(parts=[UserPromptPart(text)])


def _exchange(n: int, size: int = 200) -> tuple[ModelResponse, ModelRequest]:
    call = ToolCallPart("read_file", {"path": f"f{n}.txt"}, tool_call_id=f"c{n}")
    result = ToolReturnPart("read_file", f"content of f{n} " * size, tool_call_id=f"c{n}")
    return ModelResponse(parts=[call], usage=RequestUsage(input_tokens=1_000 * n)), ModelRequest(parts=[result])


def _turn_with_tools(prompt: str, exchanges: int, size: int = 200) -> list:
    messages: list = [_ask(prompt)]
    for n in range(exchanges):
        messages += list(_exchange(n, size))
    return messages


def _calls_answered(messages) -> bool:
    """Every call kept has its result and every result its call."""
    calls = {
        p.tool_call_id for m in messages if isinstance(m, ModelResponse) for p in m.parts if isinstance(p, ToolCallPart)
    }
    results = {
        p.tool_call_id
        for m in messages
        if isinstance(m, ModelRequest)
        for p in m.parts
        if isinstance(p, ToolReturnPart)
    }
    return calls == results


def _summary_message() -> ModelRequest:
    return ModelRequest(parts=[UserPromptPart("summary")], metadata={"compact_summary": "s", "archives": []})


# --- what to keep ------------------------------------------------------------------------------


def test_a_mid_turn_tail_keeps_the_user_request_and_whole_exchanges():
    messages = [_ask("earlier"), ModelResponse(parts=[TextPart("ok")])] + _turn_with_tools("refactor it", 6)
    prompt_at = turn_prompt(messages)
    assert prompt_at == 2
    one = tokens.count_messages(messages[-2:])
    keep = mid_turn_keep(messages, prompt_at, budget=int(one * 2.5))
    assert keep[0] is messages[prompt_at]  # the user's request, however old in the turn
    assert keep[1:] == messages[-4:]  # the two newest exchanges that fit the budget
    assert _calls_answered(keep[1:])


def test_a_mid_turn_tail_keeps_the_newest_exchange_even_over_budget():
    messages = _turn_with_tools("go", 3, size=2_000)
    keep = mid_turn_keep(messages, 0, budget=10)
    assert keep == [messages[0], *messages[-2:]] and isinstance(keep[1], ModelResponse)


def test_no_mid_turn_prompt_before_the_turn_had_an_answer():
    assert turn_prompt([_ask("a"), ModelResponse(parts=[TextPart("b")]), _ask("new")]) is None
    assert turn_prompt([ModelRequest(parts=[ToolReturnPart("x", "y", tool_call_id="1")])]) is None


def test_kept_for_fit():
    mid = _turn_with_tools("go", 4)
    assert kept_for_fit(mid, tail_budget=10)[0] is mid[0] and kept_for_fit(mid, tail_budget=10)[1:] == mid[-2:]
    before_answer = [_ask("old"), ModelResponse(parts=[TextPart("ok")]), _ask("new")]
    assert kept_for_fit(before_answer, tail_budget=10) == before_answer[-1:]


def test_a_cut_never_separates_a_call_from_its_result():
    messages = [_ask("first")]
    for n in range(8):
        messages += [*_exchange(n), _ask(f"then {n}")]
    total = tokens.count_messages(messages)
    for limit in range(total // 10, total, total // 10):
        kept, dropped = fit_messages(messages, limit, fixed=0)
        assert kept == messages[dropped:] and _calls_answered(kept), limit
        assert tokens.count_messages(kept) <= limit or len(kept) == 1


def test_fitting_keeps_an_attachment_with_its_message():
    """The fuzzer's 4k seed 2: "Left out the 4 oldest messages" took this turn's @-mention read and
    kept its message (the kept part started at the prompt, after the read)."""
    from agent.tools.mentions import read_messages

    mention = [dataclasses.replace(m, metadata={"mention": True}) for m in read_messages([("a.md", "x " * 300)])]
    messages = [_ask("old " * 200), ModelResponse(parts=[TextPart("answer " * 200)]), *mention, _ask("look at @a.md")]
    kept, dropped = fit_messages(messages, tokens.count_messages(messages[2:]) + 10, fixed=0)
    assert dropped == 2 and kept == messages[2:]


def test_fitting_keeps_a_summary_at_the_start():
    messages = [_summary_message()] + [
        m for n in range(4) for m in (_ask(f"q{n} " * 300), ModelResponse(parts=[TextPart("a")]))
    ]
    kept, dropped = fit_messages(messages, tokens.count_messages(messages[-2:]) + 200, fixed=0)
    assert kept[0] is messages[0] and dropped > 0


def test_checkpoints_into_the_compacted_part_go_with_every_later_one():
    checkpoints = [Checkpoint(0, "a"), Checkpoint(4, "b"), Checkpoint(9, "c")]
    assert checkpoints_cut(checkpoints, 4) == checkpoints  # from the first that points into it
    assert checkpoints_cut(checkpoints[1:], 3) == []


# --- what to restore ---------------------------------------------------------------------------


def test_restored_files_newest_first_within_the_budget_in_read_order():
    newest_first = [("f7", 50), ("f6", 900), ("f5", 50), ("f4", 50), ("f3", 50), ("f2", 50), ("f1", 50)]
    chosen = choose_restored(newest_first, budget=400, max_files=5)
    assert chosen == ["f2", "f3", "f4", "f5", "f7"]  # f6 is too big, older ones still fit
    assert choose_restored(newest_first, budget=120) == ["f5", "f7"]


def test_no_file_is_read_after_the_last_one_is_chosen():
    taken = []

    def reads():
        for n in range(10):
            taken.append(n)
            yield n, 1

    assert choose_restored(reads(), budget=100, max_files=3) == [2, 1, 0]
    assert taken == [0, 1, 2]


# --- the new history ---------------------------------------------------------------------------


def test_user_messages_the_summary_misses_are_checked_in(tmp_path):
    history = [
        _ask("always run the tests with -x"),
        ModelResponse(parts=[TextPart("ok")]),
        _ask("rename foo"),
        ModelResponse(parts=[TextPart("done")]),
    ]
    parts = summary_parts(history, [], "<summary>1. The user renamed foo: rename foo</summary>", 0, 1_000, "en")
    assert parts.user_messages == ["always run the tests with -x", "rename foo"]
    assert missing_user_messages(parts.summary, parts.user_messages, "en") == ["always run the tests with -x"]
    text = "\n".join(m.parts[0].content for m in summary_messages(parts, "en")[0])
    assert "always run the tests with -x" in text


def test_user_messages_carry_across_compactions_and_the_tail_is_not_summarised(tmp_path):
    first = summary_parts([_ask("precious rule"), ModelResponse(parts=[TextPart("ok")])], [], "s1", 0, 1_000, "en")
    first.archives.append("/a/1.jsonl")
    head = summary_messages(first, "en")[1]
    tail = [_ask("current request")]
    second = summary_parts(
        [head, _ask("more"), ModelResponse(parts=[TextPart("ok")]), *tail], tail, "s2", 0, 1_000, "en"
    )
    assert second.user_messages == ["precious rule", "more"] and second.archives == ["/a/1.jsonl"]
    assert summary_parts(tail, [], "  \n ", 0, 1_000, "en") is None  # an empty summary is refused


def test_the_compacted_history_is_carried_files_summary_tail_without_old_usage(tmp_path):
    parts = SummaryParts("s", ["/a.jsonl"], user_messages=["precious"])
    carried, head = summary_messages(parts, "en")
    restored = [_ask("the file f1.txt")]
    tail = list(_exchange(3))
    rebuilt = compacted_history(carried, restored, head, tail)
    assert rebuilt[:4] == [*carried, head, *restored] and [m.parts for m in rebuilt[4:]] == [m.parts for m in tail]
    assert rebuilt[4].usage == RequestUsage() and tail[0].usage.input_tokens == 3_000
    assert without_usage(rebuilt)[5] is rebuilt[5]  # requests stay the same objects


def test_a_rebuilt_history_that_is_not_smaller_is_refused(tmp_path):
    history = [_ask("short"), ModelResponse(parts=[TextPart("ok")])]
    head = summary_messages(SummaryParts("a long summary " * 200, []), "en")[1]
    before, after = tokens.count_messages(history), tokens.count_messages([head])
    assert refuse_result(before, after, limit=10 * after) == "compact_not_smaller"
    assert refuse_result(after * 3, after, limit=after - 1) == "compact_over_threshold"
    assert refuse_result(after * 3, after, limit=after) is None


def test_clearing_keeps_what_the_model_has_not_seen_and_clears_oldest_first():
    old = _turn_with_tools("go", 3, size=400) + [ModelResponse(parts=[TextPart("done")])]
    unseen_call, unseen = _exchange(9, size=400)
    cleared, saved = clear_tool_results([*old, unseen_call, unseen], keep_tokens=0)
    assert cleared[-1] is unseen and saved > 0
    results = [
        p.content for m in cleared[:-1] if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)
    ]
    assert results and all(r.startswith(CLEARED) for r in results)


def test_the_cheap_tier_clears_old_results_and_forgets_old_usage():
    history = _turn_with_tools("go", 4, size=400) + [
        ModelResponse(parts=[TextPart("done")], usage=RequestUsage(input_tokens=9_999))
    ]
    before = tokens.count_messages(history)
    cleared, saved = cheap_tier(history, limit=before)
    after = tokens.count_messages(cleared)
    assert (
        saved > 0 and after < before and all(m.usage == RequestUsage() for m in cleared if isinstance(m, ModelResponse))
    )
    assert cheap_tier_enough(saved, before, after, limit=int(after / CHEAP_TIER_TARGET) + 1)
    assert not cheap_tier_enough(saved, before, after, limit=int(after / CHEAP_TIER_TARGET) - 50)
    assert not cheap_tier_enough(0, before, after, limit=10 * before)
    assert not cheap_tier_enough(saved, after, after, limit=10 * before)


def test_a_text_cut_to_fit_keeps_its_start():
    """The fuzzer's 4k seed 8: a budget smaller than the tail cut this turn's attachment to nothing
    but the note. Each text keeps its first HEAD_FLOOR tokens; the largest ones are cut first."""
    from agent.compaction.fit import CUT_NOTE, HEAD_FLOOR, cut_to_fit
    from agent.tools.mentions import read_messages

    call, answer = read_messages([("a.md", "".join(f"{n:6}\tline {n} of the notes\n" for n in range(1, 600)))])
    small = ModelResponse(parts=[TextPart("a short answer " * 20)])
    cut = cut_to_fit([call, answer, small], budget=50)
    text = cut[1].parts[0].content
    assert text.startswith("     1\tline 1 of the notes") and CUT_NOTE.split("{")[0] in text
    assert HEAD_FLOOR <= tokens.count_text(text) <= HEAD_FLOOR + 60
    assert cut[2] == small  # under the floor: left whole
