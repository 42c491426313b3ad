"""The agent against the strict emulator of DeepSeek's API of today (issue 12)."""

from __future__ import annotations

import pytest

import compact
import main
from agent import errors
from agent.compaction import rebuild
from agent.events import CompactionFinished, Notice
from agent.marks import is_summary
from tests.builders import SUMMARY, big_files, chat, is_compaction, long_answer, note
from tests.fake_openai import Text, ToolCalls
from ui.status import status_lines


async def _fill(state, workspace) -> None:
    big_files(workspace, 2, 50)
    await chat(state, [note(0), note(1), "read big0.txt", "read big1.txt"])


def _compactions(server) -> list[dict]:
    return [r for r in server.requests if is_compaction(r["body"])]


def _turns(server) -> list[dict]:
    return [r for r in server.requests if not is_compaction(r["body"]) and r["body"].get("tools")]


@pytest.mark.parametrize("thinking", [None, False], ids=["thinking", "non-thinking"])
async def test_compaction_request_is_cached_and_sends_the_turns_tool_choice(make_state, workspace, server, thinking):
    state = make_state(context_window=50_000, thinking=thinking)
    await _fill(state, workspace)
    server.script(Text(SUMMARY))
    await compact.run_compact(state)
    turns, (request,) = _turns(server), _compactions(server)
    assert request["body"].get("tool_choice") in {t["body"].get("tool_choice") for t in turns}
    assert request["body"]["tools"] == turns[-1]["body"]["tools"]
    assert request["body"].get("thinking") == turns[-1]["body"].get("thinking")
    assert ("thinking" in request["body"]) is (thinking is False)
    if thinking is False:  # DeepSeek's switch, not an effort pydantic-ai would map `thinking=False` to
        assert request["body"]["thinking"] == {"type": "disabled"} and "reasoning_effort" not in request["body"]
    assert request["cache_hit_tokens"] >= 0.9 * request["prompt_tokens"]
    assert is_summary(state.history[0])
    if thinking is None:  # reasoning came with every answer and went back on the tool-call turns
        assert any(m.get("reasoning_content") for m in request["body"]["messages"] if m.get("tool_calls"))


async def test_a_tool_call_during_compaction_is_answered_and_the_summary_committed(make_state, workspace, server):
    state = make_state(context_window=50_000)
    await _fill(state, workspace)
    server.script(ToolCalls([("write_file", {"path": "evil.txt", "content": "x"})]), Text(SUMMARY))
    await compact.run_compact(state)
    first = _compactions(server)[-1]
    second = server.requests[server.requests.index(first) + 1]
    answer = second["body"]["messages"][-1]
    assert answer["role"] == "tool" and "Tools are off during compaction" in answer["content"]
    # The second request extends the first: its cache holds, and nothing ran.
    assert second["body"]["messages"][: len(first["body"]["messages"])] == first["body"]["messages"]
    assert second["cache_hit_tokens"] >= 0.9 * first["prompt_tokens"]
    assert not (workspace / "evil.txt").exists()
    assert is_summary(state.history[0]) and state.emit.of(CompactionFinished)


async def test_a_model_that_keeps_calling_tools_still_ends_in_a_summary(make_state, workspace, server):
    state = make_state(context_window=50_000)
    await _fill(state, workspace)
    stray = ToolCalls([("read_file", {"path": "big0.txt"})])
    server.script(*[stray] * (compact_rounds() + 1), Text(SUMMARY))
    await compact.run_compact(state)
    last = server.requests[-1]["body"]
    assert not last.get("tools")  # the existing fallback: asked once more without tools
    assert any("kept calling tools" in n.text for n in state.emit.of(Notice))
    assert is_summary(state.history[0])


def compact_rounds() -> int:
    from agent.compaction.request import MAX_TOOL_ROUNDS

    return MAX_TOOL_ROUNDS


async def test_a_summary_cut_short_is_reported_and_not_committed(make_state, workspace, server):
    import session

    state = make_state(context_window=50_000)
    await _fill(state, workspace)
    history = list(state.history)
    cut = Text("<summary>1. The user asked to rea", finish="length")
    server.script(cut, cut)  # asked again once, cut again: reported, nothing committed
    with pytest.raises(errors.CompactError, match="cut short"):
        await compact.run_compact(state)
    assert state.history == history
    assert session.list_archives(state.session_id, workspace) == []


async def test_the_summary_budget_leaves_room_for_reasoning(make_state, workspace, server):
    budgets = {}
    for thinking in (None, False):
        state = make_state(context_window=1_000_000, thinking=thinking)
        server.script(long_answer())  # a turn a summary makes smaller: a compaction that grows is refused
        await chat(state, ["hello"])
        server.script(Text(SUMMARY))
        await compact.run_compact(state)
        budgets[thinking] = _compactions(server)[-1]["body"]["max_tokens"]
    assert budgets[None] > budgets[False] > 0
    assert budgets[None] <= 393_216


async def test_thinking_mode_shows_in_status(make_state):
    state = make_state(thinking=False)
    assert "Thinking: off" in "\n".join(map(str, status_lines(state)))
    state = make_state(reasoning_effort="max")
    assert "Thinking: on, effort max" in "\n".join(map(str, status_lines(state)))


async def test_reasoning_effort_is_sent(make_state, server):
    state = make_state(reasoning_effort="max")
    await chat(state, ["hello"])
    assert server.last_request["body"]["reasoning_effort"] == "max"


def test_default_model_is_flash_and_thinks():
    config = main.build_config(main.parse_args([]))
    assert config.model == "deepseek-flash" and config.thinks
    assert config.context_window == 1_000_000 and config.window_known
    assert not main.build_config(main.parse_args(["--thinking", "off"])).thinks


def test_a_retired_model_is_refused_before_any_request(monkeypatch, capsys, workspace):
    monkeypatch.setenv("DEEPSEEK_API_KEY", "sk-test")
    called = []
    monkeypatch.setattr(main, "start_state", lambda *a: called.append(a))
    assert main.main(["--model", "deepseek-chat", "-p", "hi"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "retired" in err[0] and "--model deepseek-flash" in err[0]
    assert called == []


async def test_a_retired_name_at_the_endpoint_gets_the_same_line(make_state, server):
    state = make_state(model="deepseek-reasoner")
    await chat(state, ["hello"])
    (error,) = [n.text for n in state.emit.of(Notice) if n.level == "error"]
    assert "retired" in error and "deepseek-flash" in error


def test_a_deepseek_key_never_goes_to_another_server(monkeypatch):
    monkeypatch.setenv("DEEPSEEK_API_KEY", "sk-deepseek")
    assert main.api_key(main.parse_args([])) == "sk-deepseek"
    assert main.api_key(main.parse_args(["--base-url", "https://api.deepseek.com/v1"])) == "sk-deepseek"
    assert main.api_key(main.parse_args(["--base-url", "http://127.0.0.1:11434/v1"])) is None
    assert main.api_key(main.parse_args(["--base-url", "https://api.deepseek.com.evil.example/v1"])) is None
    monkeypatch.setenv("OPENAI_API_KEY", "sk-local")
    assert main.api_key(main.parse_args(["--base-url", "http://127.0.0.1:11434/v1"])) == "sk-local"


async def test_a_fresh_estimate_uses_the_servers_own_prefix(make_state, server):
    """Right after a compaction nothing has usage: the estimate is the prefix plus our count of the
    messages. The prefix comes from the server's first usage, which counts the template's tool
    instructions that our count of the instructions and tools cannot see."""
    from pydantic_ai.messages import ModelRequest, UserPromptPart

    from agent.compaction.watermark import context_tokens

    state = make_state()
    await chat(state, ["hello"])
    assert state.scratch.prefix_calibrated
    state.transcript.update(rebuild.without_usage(state.history))  # as a rebuilt history has none
    pending = [ModelRequest(parts=[UserPromptPart("and the next question")])]
    estimate = context_tokens(state, pending)
    await chat(state, ["and the next question"])
    actual = server.requests[-1]["prompt_tokens"]
    assert abs(estimate - actual) <= 0.01 * actual, (estimate, actual)


async def test_a_model_that_only_ever_calls_tools_changes_nothing(make_state, workspace, server):
    import session
    from tests.builders import script_forever

    state = make_state(context_window=50_000)
    await _fill(state, workspace)
    history = list(state.history)
    script_forever(server, lambda body: ToolCalls([("read_file", {"path": "big0.txt"})]), n=20)
    with pytest.raises(Exception):  # noqa: B017 - a CompactError or pydantic-ai's retries running out
        await compact.run_compact(state)
    assert state.history == history
    assert session.list_archives(state.session_id, workspace) == []
