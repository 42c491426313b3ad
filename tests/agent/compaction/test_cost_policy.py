"""The cheap tier's policy in a session: --cheap-tier auto|on|off, and /status saying why."""

from __future__ import annotations

from datetime import UTC, datetime

import compact
from agent import compaction
from agent.events import CompactionFinished
from main import build_config, parse_args
from tests.builders import LATER_TOOLS, big_files, chat, is_compaction, note, responder, script_forever
from ui.status import status_lines


async def _reads_then_chatter(state, workspace, size: int = 120) -> None:
    """Old file reads (clearable) under a lot of conversation (not clearable) written after them."""
    big_files(workspace, 8, lines=size)
    await chat(state, [f"read big{i}.txt" for i in range(8)] + [note(i, size) for i in range(10)])
    assert compaction.context_tokens(state) >= compaction.threshold(state)


def _status(state) -> str:
    return "\n".join(str(line) for line in status_lines(state))


async def test_auto_summarizes_where_clearing_would_rebill_the_history(make_state, workspace, server):
    # Twice the session of the test below: since output costs 4× a miss (Flash, 2026-09), the summary's
    # output weighs more, and at 32k clearing this session is about as cheap as a summary.
    state = make_state(context_window=64_000, model="deepseek-flash", disallowed_tools=LATER_TOOLS)
    await _reads_then_chatter(state, workspace, size=240)
    script_forever(server, responder([]))
    await compact.auto_compact_if_needed(state)
    assert [f.tier for f in state.emit.of(CompactionFinished)] == ["summary"]
    assert state.stats.tier_choice == "summary" and state.stats.tier_reason == "cheaper"
    assert state.stats.tier_summary_cost < state.stats.tier_clear_cost
    text = _status(state)
    assert "--cheap-tier auto" in text and "chose a summary" in text and "after clearing vs" in text


async def test_on_clears_the_same_session(make_state, workspace, server):
    state = make_state(context_window=32_000, model="deepseek-flash", cheap_tier="on", disallowed_tools=LATER_TOOLS)
    await _reads_then_chatter(state, workspace)
    requests = len(server.requests)
    await compact.auto_compact_if_needed(state)
    assert [f.tier for f in state.emit.of(CompactionFinished)] == ["cheap"]
    assert not any(is_compaction(r["body"]) for r in server.requests[requests:])
    assert "chose clearing old tool results — --cheap-tier on" in _status(state)


async def test_off_never_clears(make_state, workspace, server):
    # Reads only: clearing would be enough, and auto would clear (see test_pressure).
    state = make_state(context_window=16_000, cheap_tier="off", lang="zh")
    big_files(workspace, 5, lines=120)
    await chat(state, [f"read big{i}.txt" for i in range(5)])
    script_forever(server, responder([]))
    result = await compact.run_compact(state, trigger="auto")
    assert result.tier == "summary"
    assert "--cheap-tier off" in _status(state) and "写摘要" in _status(state)


async def test_status_shows_money_and_the_last_cache_share(make_state, workspace, server):
    state = make_state(model="deepseek-flash")
    # A Sunday at 10:00 Beijing: off-peak (DeepSeek's page: weekends are off-peak all day).
    server.clock = lambda: datetime(2026, 11, 29, 2, 0, tzinfo=UTC).timestamp()
    await chat(state, ["hello", "and again"])
    stats = state.stats
    miss = stats.input_tokens - stats.cache_hit_tokens
    # deepseek-flash off-peak on DeepSeek's page of 2026-12-01: $0.003 hit, $0.15 miss, $0.60 output per 1M.
    total = (stats.cache_hit_tokens * 0.003 + miss * 0.15 + stats.output_tokens * 0.60) / 1e6
    text = _status(state)
    assert f"Cost so far: ${total:.6f}" in text
    share = 100 * server.last_request["cache_hit_tokens"] / server.last_request["prompt_tokens"]
    assert share > 0 and f"{share:.0f}% served from the prefix cache" in text
    assert "not needed yet" in text


async def test_status_for_a_model_without_prices(make_state):
    state = make_state(model="some-local-model", lang="zh")
    assert "不知道 some-local-model 的价格" in _status(state)


def test_flag_and_environment(monkeypatch):
    assert build_config(parse_args([])).cheap_tier == "auto"
    assert build_config(parse_args(["--cheap-tier", "off"])).cheap_tier == "off"
    monkeypatch.setenv("CODING_AGENT_CHEAP_TIER", "on")
    assert build_config(parse_args([])).cheap_tier == "on"
