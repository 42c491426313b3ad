"""Issue 13, compaction: the holes a new user and a review found, against the local server."""

from __future__ import annotations

import pytest

import compact
import session
from agent import compaction, errors
from agent.compaction.rebuild import PLACEHOLDER
from agent.compaction.watermark import fixed_prefix_tokens, history_tokens
from agent.events import CompactionFinished
from agent.marks import is_summary
from main import on_submit
from tests.builders import big_files, chat, is_compaction, long_answer, responder, script_forever
from tests.fake_openai import Text, ToolCalls

CLEARED = PLACEHOLDER.split(":")[0]


def _file_lines(workspace, name: str, chars: int) -> None:
    line = f"a line of {name} with some words to fill the context window\n"
    (workspace / name).write_text(line * (chars // len(line)))


async def test_results_the_model_never_saw_are_not_cleared(make_state, workspace, server):
    """One message reads three ~25k-character files and crosses the threshold mid-turn: the cheap
    tier clears older results, never the three the model has not been sent yet."""
    state = make_state(context_window=64_000, compact_at="40000")
    for i in range(4):
        _file_lines(workspace, f"old{i}.txt", 25_000)
    await chat(state, [f"read old{i}.txt" for i in range(4)])
    for i in range(3):
        _file_lines(workspace, f"new{i}.txt", 25_000)
    script_forever(
        server,
        responder([ToolCalls([("read_file", {"path": f"new{i}.txt"}) for i in range(3)]), Text("All three reviewed.")]),
    )
    start = len(server.requests)

    await on_submit(state, "review new0.txt, new1.txt and new2.txt")

    assert [f.trigger for f in state.emit.of(CompactionFinished)] == ["mid-turn"]
    after = [r["body"]["messages"] for r in server.requests[start:] if not is_compaction(r["body"])][-1]
    results = [m["content"] for m in after if m["role"] == "tool"]
    for i in range(3):
        assert any(f"a line of new{i}.txt" in r for r in results), f"new{i}.txt was cleared before it was seen"
    assert sum(CLEARED in r for r in results) == 4  # the old reads, all seen, went instead
    assert state.history[-1].parts[-1].content == "All three reviewed."  # after the reasoning


async def test_a_user_message_survives_any_number_of_compactions(make_state, workspace, server):
    """The second summary drops a message the first one carried: it is still there, verbatim."""
    state = make_state()
    precious = "always run the tests with -x before you commit"
    script_forever(server, responder([long_answer(1)], summary=f"<summary>1. Rules: {precious}\n6. ok</summary>"))
    await on_submit(state, precious)
    await compact.run_compact(state)
    assert precious in compaction.last_summary(state)
    for n in range(2, 5):
        # Every later summary forgets it (the model cut the quoted text).
        script_forever(server, responder([long_answer(n)], summary=f"<summary>1. Work round {n}.\n6. ok</summary>"))
        await on_submit(state, f"round {n}")
        await compact.run_compact(state)
        text = compaction.last_summary(state)
        assert precious in text, f"lost after compaction {n}"
        assert f"round {n - 1}" in text or n == 2


async def test_a_manual_compaction_that_grows_is_refused(make_state, workspace, server):
    state = make_state(context_window=8_000)
    script_forever(server, responder([long_answer(words=60)]))
    await on_submit(state, "keep every file name")
    history = list(state.history)
    data = session.session_file(state.session_id, workspace).read_bytes()
    huge = "<summary>" + "every file name, again and again " * 400 + "\n6. ok</summary>"
    script_forever(server, responder([], summary=huge))

    with pytest.raises(errors.CompactError, match="not smaller|over the threshold"):
        await compact.run_compact(state, "保留所有文件名")

    assert state.history == history
    assert session.session_file(state.session_id, workspace).read_bytes() == data
    assert session.list_archives(state.session_id, workspace) == []


async def test_the_previous_summary_is_updated_never_nested(make_state, workspace, server):
    """The fake model quotes every user message, the previous summary message included: the header
    of our summary message appears once however many compactions there were."""
    state = make_state()
    script_forever(server, responder([long_answer(n) for n in range(6)]))
    header = "This session continues a conversation that was compacted"
    for n in range(5):
        await on_submit(state, f"step {n}")
        script_forever(server, responder([long_answer(n + 10)], summary=lambda body: _quoting_summary(body)))
        await compact.run_compact(state)
        assert compaction.last_summary(state).count(header) == 1


def _quoting_summary(body: dict) -> str:
    users = [m["content"] for m in body["messages"] if m["role"] == "user" and isinstance(m["content"], str)]
    quoted = "\n".join(f"- {u}" for u in users[:-1])  # the last one is the compaction prompt
    return f"<summary>5. All user messages:\n{quoted}\n6. ok</summary>"


# "Well under the threshold": at most this share of it (agent.compaction.budgets.REBUILT_SHARE plans for it).
WELL_UNDER = 0.7


@pytest.mark.parametrize("window", [4_096, 8_192, 32_768])
async def test_rebuilt_history_fits_well_under_the_threshold(make_state, workspace, server, window):
    """Long user messages the summary does not quote, large files read, and a summary as long as
    the request allows: whatever the window, the rebuilt history stays well under the threshold."""
    from agent.compaction.watermark import output_reserve

    state = make_state(context_window=window)
    big_files(workspace, 3, lines=window // 80)
    limit = compaction.threshold(state)
    # Long messages, and more of them the larger the window: a fixed budget overflows some window.
    texts = [f"request {i}: " + "please consider this constraint carefully " * 200 for i in range(window // 2000)]
    script_forever(server, responder([long_answer(i, words=window // 100) for i in range(len(texts) + 3)]))
    await chat(state, texts + [f"read big{i}.txt" for i in range(3)])
    summary = "<summary>" + "the work so far " * (output_reserve(window) // 5) + "\n6. ok</summary>"
    script_forever(server, responder([], summary=summary))

    result = await compact.run_compact(state)

    assert result.tier == "summary" and result.tokens_after < result.tokens_before
    # At 4k the fixed prefix (~1.35k tokens by the emulator's count) and a summary as long as the
    # request allows (625) alone are 70% of the threshold: there the rebuilt history only has to fit.
    bound = limit if window < 8_192 else WELL_UNDER * limit
    assert history_tokens(state, state.history) <= bound
    text = compaction.last_summary(state)
    assert "read big2.txt" in text  # the newest user message is carried


def test_budgets_fit_every_window(make_state):
    from agent.compaction import watermark

    state = make_state()
    fixed = fixed_prefix_tokens(state)
    for window in (4_096, 8_192, 32_768, 131_072, 1_000_000):
        state.config.context_window = window
        limit = compaction.threshold(state)
        plan = watermark.budgets(window, limit, fixed)
        worst = fixed + plan.summary + watermark.SUMMARY_OVERHEAD + plan.user_messages + plan.restore + plan.tail
        assert worst <= plan.target <= WELL_UNDER * limit, window
        assert min(plan.summary, plan.user_messages, plan.restore, plan.tail) > 0, window
        if window >= 131_072:
            assert plan.user_messages >= 10_000 and plan.restore >= 10_000


async def test_compact_undo_keeps_the_turns_made_since(make_state, workspace, server):
    state = make_state()
    script_forever(server, responder([long_answer(1), long_answer(2)]))
    await on_submit(state, "one")
    await on_submit(state, "two")
    original = [m.parts for m in state.history]
    await compact.run_compact(state)
    await on_submit(state, "three, after the compaction")
    await on_submit(state, "four, after the compaction")
    later = [m.parts for m in state.history[-4:]]

    compaction.undo_compaction(state)

    assert [m.parts for m in state.history] == original + later
    assert [m.parts for m in session.load(state.session_id, workspace).messages] == original + later
    assert not any(is_summary(m) for m in state.history)
    # The next turn goes on from there; the request carries both the old and the later turns.
    await on_submit(state, "five")
    sent = [m["content"] for m in server.requests[-1]["body"]["messages"] if m["role"] == "user"]
    assert sent[:2] == ["one", "two"] and "four, after the compaction" in sent and sent[-1] == "five"


async def test_compact_undo_knows_the_later_turns_after_a_resume(make_state, workspace, server):
    import controller
    import main
    from agent.state.transcript import undo_note

    state = make_state()
    script_forever(server, responder([long_answer(1), long_answer(2)]))
    await on_submit(state, "one")
    await on_submit(state, "two")
    await compact.run_compact(state)
    await on_submit(state, "three")
    resumed = controller.start_state(main.parse_args(["--continue"]), state.config)
    try:
        plan = compaction.plan_undo(resumed)
        assert plan.later_turns == 1 and [m.parts for m in plan.later] == [m.parts for m in state.history[-2:]]
        # Without the note (an archive from before it existed) nothing is guessed: the handler says so.
        undo_note(plan.archive).unlink()
        assert compaction.plan_undo(resumed).later is None
    finally:
        resumed.transcript.close()
