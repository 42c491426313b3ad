"""A short real session against DeepSeek's API: `python -m pytest -m live -s` with DEEPSEEK_API_KEY set.

Thinking mode (the API's default) with a tool call, a /compact, and a turn after it; prints the
real prompt_cache_hit_tokens share of the compaction request and what it cost. Never part of the
default run (pyproject deselects the `live` marker): no other test reaches the internet.
"""

from __future__ import annotations

import os

import pytest

# Read at import: the suite's fixtures take the key variables out of every test's environment.
KEY = os.environ.get("DEEPSEEK_API_KEY")

pytestmark = [
    pytest.mark.live,
    pytest.mark.skipif(not KEY, reason="DEEPSEEK_API_KEY is not set: the live check talks to DeepSeek's API"),
]


async def test_a_real_session_with_a_tool_call_and_a_compaction(monkeypatch, workspace, capsys):
    from pydantic_ai import models

    import compact
    from agent.config import Config
    from agent.events import EventLog, ToolCallStarted
    from agent.provider import prices
    from agent.provider.prices import money
    from agent.state.app import AppState
    from agent.state.transcript import Transcript
    from main import on_submit

    monkeypatch.setattr(models, "ALLOW_MODEL_REQUESTS", True)
    monkeypatch.setenv("CODING_AGENT_TIMEOUT", "300")
    monkeypatch.setenv("CODING_AGENT_MAX_RETRIES", "3")
    (workspace / "notes.txt").write_text("The secret word is pineapple.\n")
    config = Config(api_key=KEY, workspace=workspace, lang="en", yes=True, context_window=1_000_000)
    state = AppState(config=config, transcript=Transcript("live-1", workspace), emit=EventLog())
    try:
        await on_submit(state, "Use the read_file tool to read notes.txt, then tell me the secret word.")
        assert state.emit.of(ToolCallStarted), "the model made no tool call"
        before = (state.stats.input_tokens, state.stats.cache_hit_tokens, state.stats.output_tokens)
        result = await compact.run_compact(state)
        assert result.tier == "summary"
        inp, hits, out = (
            a - b
            for a, b in zip(
                (state.stats.input_tokens, state.stats.cache_hit_tokens, state.stats.output_tokens), before, strict=True
            )
        )
        await on_submit(state, "What was the secret word? One word.")
        answer = "".join(getattr(e, "text", "") for e in state.emit.events[-50:])
        assert "pineapple" in answer.lower()
    finally:
        if state.scratch.agent is not None:
            await state.scratch.agent.model.client.close()
    price = prices.lookup(config.model)
    assert price is not None
    cost = money(hits, inp - hits, out, price)
    with capsys.disabled():
        print(
            f"\nlive: compaction request on {config.model} (thinking on): {inp:,} input tokens, "
            f"prompt_cache_hit_tokens {hits:,} ({100 * hits / max(inp, 1):.1f}%), {out:,} output; "
            f"cost ${cost:.6f}"
        )
