"""/model, /effort, /thinking mid-session (issue 25, part 5), through the REPL's commands and the
strict emulator (whose prefix cache is per model, as a provider's is)."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from io import StringIO

import pytest
from rich.console import Console

import main
from agent.compaction.watermark import compact_threshold, context_tokens
from agent.provider import prices
from tests.builders import long_answer, responder, script_forever
from tests.deepseek_page import PAGE
from tests.fake_openai import Error
from ui.app import App
from ui.commands import dispatch


def app_for(state) -> tuple[App, StringIO]:
    out = StringIO()
    return App(state, main.submit, console=Console(file=out, width=200)), out


@pytest.fixture(params=["off_peak", "peak"])
def hour(request, server, monkeypatch) -> str:
    """The clock stopped at an hour of that kind, for the agent and for the server's `created` alike: the
    figures are checked at that hour's prices, whichever hour the test runs at."""
    day = datetime(2026, 12, 2, tzinfo=prices.BEIJING)  # a Wednesday, no holiday
    moment = next(
        at
        for at in (day + timedelta(hours=h) for h in range(24))
        if prices.period("deepseek-v4-pro", at) == request.param
    )

    class At(datetime):
        @classmethod
        def now(cls, tz=None):
            return moment.astimezone(tz)

    # billing reads the hour through prices.lookup (its own `datetime` is for isinstance: not replaced).
    monkeypatch.setattr(prices, "datetime", At)
    server.clock = moment.timestamp
    return request.param


async def test_model_switches_mid_session_and_says_what_the_cold_cache_costs(make_state, server, hour):
    state = make_state()
    app, out = app_for(state)
    await main.submit(app, "hello")
    await main.submit(app, "again")
    assert server.requests[-1]["cache_hit_tokens"] > 0
    used = context_tokens(state)
    await dispatch(app, "/model deepseek-v4-pro")
    text = " ".join(out.getvalue().split())
    assert "Switched to deepseek-v4-pro" in text
    # DeepSeek's page's figures for Pro at the hour the clock is stopped at.
    assert f"{used:,} tokens" in text
    # Read as numbers: a cost under $0.0001 is printed with its significant digits ($0.000092), which
    # a fixed 4-decimal format missed at Pro's peak hit price (the test failed at 09:04 Beijing time).
    import re

    missed, cached = (float(x) for x in re.search(r"cost about \$([\d.]+) .*?would cost \$([\d.]+)", text).groups())
    hit, miss, _ = PAGE["deepseek-v4-pro"][hour]
    assert missed == pytest.approx(used * miss / 1e6, rel=0.05, abs=5e-5)
    assert cached == pytest.approx(used * hit / 1e6, rel=0.05, abs=5e-7)
    await main.submit(app, "on the new model")
    after = server.requests[-1]
    assert after["body"]["model"] == "deepseek-v4-pro" and after["cache_hit_tokens"] == 0
    assert abs(after["prompt_tokens"] - used) < 0.1 * used  # the note's figure is the request's size
    await main.submit(app, "and once more")
    assert server.requests[-1]["cache_hit_tokens"] > 0  # cached again on the new model
    assert state.config.model == "deepseek-v4-pro"


async def test_a_switch_to_a_smaller_window_compacts_first(make_state, server):
    state = make_state(model="local-big", context_window=131_072)
    app, out = app_for(state)
    script_forever(server, responder([long_answer(n, words=500) for n in range(3)]))
    for n in range(3):
        await main.submit(app, f"explain part {n}")
    assert context_tokens(state) > compact_threshold(12_000)
    await dispatch(app, "/model local-small 12k")
    assert state.stats.compactions == 1 and state.config.model == "local-small"
    assert state.config.context_window == 12_000 and context_tokens(state) < compact_threshold(12_000)
    text = " ".join(out.getvalue().split())
    assert "compacting first" in text and "Switched to local-small" in text
    summary_request = next(r for r in server.requests if "<analysis>" in str(r["body"]["messages"][-1]))
    assert summary_request["body"]["model"] == "local-big"  # written by the old model, from its cache


async def test_a_failed_compaction_leaves_the_old_model(make_state, server):
    state = make_state(model="local-big", context_window=131_072)
    app, out = app_for(state)
    script_forever(server, responder([long_answer(n, words=500) for n in range(3)]))
    for n in range(3):
        await main.submit(app, f"explain part {n}")
    server.clear_script()
    server.script(Error(500, "overloaded"))
    await dispatch(app, "/model local-small 12k")
    assert (state.config.model, state.config.context_window) == ("local-big", 131_072)
    assert "Still on the old model" in " ".join(out.getvalue().split())
    await dispatch(app, "/model local-small lots")
    assert "'lots' is not a window size" in out.getvalue()


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_effort_and_thinking_change_the_next_request(make_state, server, lang):
    state = make_state(lang=lang)
    app, out = app_for(state)
    await main.submit(app, "hello")
    assert "reasoning_effort" not in server.requests[-1]["body"]
    await dispatch(app, "/effort max")
    await main.submit(app, "think hard")
    assert server.requests[-1]["body"]["reasoning_effort"] == "max"
    await dispatch(app, "/thinking off")
    await main.submit(app, "quick one")
    assert server.requests[-1]["body"]["thinking"] == {"type": "disabled"}
    await dispatch(app, "/thinking sometimes")
    assert re.search("on \\| off \\| default", out.getvalue())


async def test_a_switch_to_a_model_without_images_warns_of_the_images_held(make_state, server, workspace):
    from tests.agent.tools.test_images import png

    (workspace / "shot.png").write_bytes(png(10, 10))
    state = make_state()
    app, out = app_for(state)
    await main.submit(app, "look at @shot.png")
    await dispatch(app, "/model deepseek-v4-pro")
    assert "holds 1 image(s) and deepseek-v4-pro does not take images" in " ".join(out.getvalue().split())


async def test_status_prices_each_models_tokens_at_its_own_prices(make_state, server, hour):
    # Every request is billed at its own model's (and hour's) prices (agent/state/billing.py):
    # the tokens before /model at Flash's, those after at Pro's, as DeepSeek's page gives them.
    state = make_state()
    app, out = app_for(state)
    await main.submit(app, "hello")
    before = [dict(r) for r in server.requests]
    await dispatch(app, "/model deepseek-v4-pro")
    await main.submit(app, "on pro")
    since = server.requests[len(before) :]

    def billed(requests, rates) -> float:
        hit, miss, out = rates
        return (
            sum(
                r["cache_hit_tokens"] * hit
                + (r["prompt_tokens"] - r["cache_hit_tokens"]) * miss
                + r["completion_tokens"] * out
                for r in requests
            )
            / 1e6
        )

    total = state.stats.cost_hit + state.stats.cost_miss + state.stats.cost_output
    expected = billed(before, PAGE["deepseek-flash"][hour]) + billed(since, PAGE["deepseek-v4-pro"][hour])
    assert total == pytest.approx(expected, abs=1e-9)
    assert billed(since, PAGE["deepseek-v4-pro"]["off_peak"]) > billed(since, PAGE["deepseek-flash"]["off_peak"])
