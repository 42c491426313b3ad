"""Prices from genai-prices, corrected against DeepSeek's page, the user's own prices, per-request billing.

The oracle is DeepSeek's "Models & Pricing" page (English and Chinese versions, autumn 2026, as read
on 2026-12-01), typed here from the page, not from our code or genai-prices' data:
  deepseek-flash (V4.1 Flash): cache hit $0.003 / miss $0.15 / output $0.60 per 1M tokens off-peak,
  $0.006 / $0.30 / $1.20 at peak; deepseek-v4-pro: $0.022 / $0.66 / $1.98, peak $0.044 / $1.32 / $3.96.
  Peak: Monday–Friday 09:00–12:00 and 14:00–18:00 Beijing time, except Chinese public holidays.
  The legacy deepseek-v4-flash and deepseek-v4-flash-vision-exp bill at Flash prices. Window 1M.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from genai_prices import Usage, calc_price

import main
from agent.config import Config, Prices
from agent.events import Notice
from agent.provider import prices
from agent.provider.prices import money
from agent.state import billing
from tests.builders import chat
from tests.deepseek_page import PAGE
from ui.status import status_lines

# A fixed usage: 600k prompt tokens from the cache, 400k not, 50k output.
HIT, MISS, OUT = 600_000, 400_000, 50_000
# Its price by hand from the page's figures: 0.6 × hit + 0.4 × miss + 0.05 × output.
FLASH_OFF_PEAK, FLASH_PEAK = 0.0918, 0.1836  # 0.0018 + 0.06 + 0.03; twice that
PRO_OFF_PEAK = 0.3762  # 0.0132 + 0.264 + 0.099

TUESDAY_0830 = datetime(2026, 12, 1, 0, 30, tzinfo=UTC)  # 08:30 Beijing: off-peak
TUESDAY_1000 = datetime(2026, 12, 1, 2, 0, tzinfo=UTC)  # 10:00 Beijing: peak
TUESDAY_1230 = datetime(2026, 12, 1, 4, 30, tzinfo=UTC)  # 12:30 Beijing: off-peak (lunch)
TUESDAY_1759 = datetime(2026, 12, 1, 9, 59, tzinfo=UTC)  # 17:59 Beijing: peak
TUESDAY_1800 = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)  # 18:00 Beijing: off-peak
SATURDAY_1000 = datetime(2026, 12, 5, 2, 0, tzinfo=UTC)  # a weekend's peak hour: off-peak
NATIONAL_DAY_1000 = datetime(2026, 10, 1, 2, 0, tzinfo=UTC)  # a Thursday, a public holiday: off-peak


def _price(model: str, when: datetime) -> float:
    found = prices.lookup(model, when)
    assert found is not None and found.currency == "USD"
    return money(HIT, MISS, OUT, found)


@pytest.mark.parametrize("model", ["deepseek-flash", "deepseek-v4-flash", "deepseek-v4-flash-vision-exp"])
def test_flash_and_its_legacy_names_cost_the_pages_figures(model):
    assert _price(model, TUESDAY_0830) == pytest.approx(FLASH_OFF_PEAK)
    assert _price(model, TUESDAY_1000) == pytest.approx(FLASH_PEAK)
    assert _price(model, TUESDAY_1230) == pytest.approx(FLASH_OFF_PEAK)
    assert _price(model, TUESDAY_1759) == pytest.approx(FLASH_PEAK)
    assert _price(model, TUESDAY_1800) == pytest.approx(FLASH_OFF_PEAK)


def test_each_figure_of_the_page():
    for model, rates in PAGE.items():
        for period, when in (("off_peak", TUESDAY_0830), ("peak", TUESDAY_1000)):
            found = prices.lookup(model, when)
            assert found is not None and (found.hit, found.miss, found.output) == pytest.approx(rates[period])
            assert prices.period(model, when) == period
    assert _price("deepseek-v4-pro", TUESDAY_0830) == pytest.approx(PRO_OFF_PEAK)
    assert _price("deepseek-v4-pro", TUESDAY_1000) == pytest.approx(2 * PRO_OFF_PEAK)
    assert prices.context_window("deepseek-flash") == prices.context_window("deepseek-v4-pro") == 1_000_000


@pytest.mark.parametrize("when", [SATURDAY_1000, NATIONAL_DAY_1000])
def test_a_weekend_or_holiday_peak_hour_is_off_peak(when):
    for model in ("deepseek-flash", "deepseek-v4-pro"):
        assert _price(model, when) > 0 and prices.period(model, when) == "off_peak"
    assert _price("deepseek-flash", when) == pytest.approx(FLASH_OFF_PEAK)
    assert _price("deepseek-v4-pro", when) == pytest.approx(PRO_OFF_PEAK)


def test_genai_prices_still_bills_weekend_peak_hours_at_peak():
    """Why agent.provider.prices corrects it. When this fails, genai-prices has learned the page's weekday
    rule (github.com/pydantic/genai-prices/issues/582): the correction can go."""
    usage = Usage(input_tokens=HIT + MISS, cache_read_tokens=HIT, output_tokens=OUT)
    raw = calc_price(usage, "deepseek-flash", provider_id="deepseek", genai_request_timestamp=SATURDAY_1000)
    assert float(raw.total_price) == pytest.approx(FLASH_PEAK)


def test_an_unknown_model_has_no_price_and_says_so(make_state):
    assert prices.lookup("some-local-model") is None and prices.period("some-local-model") is None
    state = make_state(model="some-local-model")
    text = "\n".join(map(str, status_lines(state)))
    assert "no prices known for some-local-model" in text and "Prices now" not in text


# ---- the user's own prices ----------------------------------------------------------------------


def test_override_from_json_text_and_from_a_file(tmp_path):
    text = '{"deepseek-flash": {"hit": 0.001, "miss": 0.1, "output": 0.5}, "my-llm": {"miss": 0, "output": 0}}'
    mine = prices.parse_overrides(text)
    assert prices.lookup("deepseek-flash", TUESDAY_1000, mine) == Prices(0.001, 0.1, 0.5)
    assert prices.period("deepseek-flash", TUESDAY_1000, mine) is None  # flat: no peak hours
    local = prices.lookup("my-llm", overrides=mine)
    assert local is not None and local.hit == 0 and not local.caches_prefixes  # no hit price: no cache
    assert prices.lookup("deepseek-v4-pro", TUESDAY_0830, mine) == Prices(0.022, 0.66, 1.98)  # others as before
    path = tmp_path / "prices.json"
    path.write_text(json.dumps({"deepseek-flash": {"hit": 0.02, "miss": 1, "output": 4, "currency": "CNY"}}))
    assert prices.parse_overrides(str(path))["deepseek-flash"] == Prices(0.02, 1.0, 4.0, currency="CNY")
    assert prices.parse_overrides({"m": {"hit": 1, "miss": 2, "output": 3}}) == {"m": Prices(1.0, 2.0, 3.0)}


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("{not json", "not valid JSON"),
        ("/no/such/prices.json", "cannot read /no/such/prices.json"),
        ('{"m": {"miss": -1, "output": 1}}', "m: miss must be a price"),
        ('{"m": {"miss": 1, "output": 1, "input": 2}}', "unknown field(s) input"),
        ('["m"]', "a JSON object"),
    ],
)
def test_a_bad_override_is_refused_with_one_line(text, says, monkeypatch, capsys):
    with pytest.raises(prices.BadPrices, match=None) as info:
        prices.parse_overrides(text)
    assert says in str(info.value)
    monkeypatch.setenv("CODING_AGENT_PRICES", text)
    assert main.main(["-p", "hi"]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("coding-agent: --prices / `CODING_AGENT_PRICES`: ") and says in line


def test_override_reaches_the_config_and_status(monkeypatch, make_state):
    monkeypatch.setenv("CODING_AGENT_PRICES", '{"deepseek-flash": {"hit": 0.5, "miss": 1, "output": 2}}')
    config = main.build_config(main.parse_args([]))
    assert config.prices == {"deepseek-flash": Prices(0.5, 1.0, 2.0)}
    config = main.build_config(main.parse_args(["--prices", '{"x": {"hit": 1, "miss": 1, "output": 1}}']))
    assert list(config.prices) == ["x"]
    state = make_state(model="deepseek-flash", prices={"deepseek-flash": Prices(0.5, 1.0, 2.0)})
    line = billing.prices_now_line(state.config, "en")
    assert line == (
        "Prices now: $0.5000/$1.0000/$2.0000 per 1M tokens (cache hit/miss/output), your own prices (--prices)"
    )


# ---- billing, request by request ----------------------------------------------------------------


def _page_cost(record: dict, period: str) -> float:
    hit, miss, out = PAGE["deepseek-flash"][period]
    h = record["cache_hit_tokens"]
    return (h * hit + (record["prompt_tokens"] - h) * miss + record["completion_tokens"] * out) / 1e6


async def test_a_session_across_09_00_beijing_is_billed_in_two_parts(make_state, server):
    state = make_state(model="deepseek-flash")
    server.clock = lambda: datetime(2026, 11, 30, 0, 59, 30, tzinfo=UTC).timestamp()  # Monday 08:59:30
    await chat(state, ["hello"])
    server.clock = lambda: datetime(2026, 11, 30, 1, 0, 30, tzinfo=UTC).timestamp()  # 09:00:30: peak
    await chat(state, ["and again"])
    first, second = server.requests
    expected = _page_cost(first, "off_peak") + _page_cost(second, "peak")
    stats = state.stats
    billed = stats.cost_hit + stats.cost_miss + stats.cost_output
    assert billed == pytest.approx(expected) and stats.priced_requests == 2
    # Neither one price for the whole session:
    assert billed != pytest.approx(_page_cost(first, "off_peak") + _page_cost(second, "off_peak"))
    assert billed != pytest.approx(_page_cost(first, "peak") + _page_cost(second, "peak"))
    assert f"Cost so far: ${billed:.6f}" in "\n".join(map(str, status_lines(state)))


async def test_status_shows_the_served_model_and_the_hour(make_state, server):
    state = make_state(model="deepseek-v4-flash")
    await chat(state, ["hello"])
    assert server.requests[-1]["body"]["model"] == "deepseek-v4-flash"
    text = "\n".join(map(str, status_lines(state)))
    assert "Model: deepseek-v4-flash" in text and "(the API answers as deepseek-flash)" in text
    period = "peak hours" if prices.period("deepseek-flash") == "peak" else "off-peak hours"
    assert "Prices now: $0.00" in text and f"(cache hit/miss/output), {period}" in text
    same = make_state(model="deepseek-flash")
    await chat(same, ["hello"])
    assert "answers as" not in "\n".join(map(str, status_lines(same)))


def test_the_legacy_name_gets_one_line_at_start(workspace):
    args = main.parse_args(["--model", "deepseek-v4-flash"])
    state = main.start_state(args, main.build_config(args))
    lines = [n.text for n in state.emit.events if isinstance(n, Notice)]
    assert len(lines) == 1 and lines[0].startswith(
        "deepseek-v4-flash is a legacy name: DeepSeek serves it with deepseek-flash and bills it at "
        "deepseek-flash's prices (now $0.00"
    )
    state.transcript.close()
    args = main.parse_args([])
    plain = main.start_state(args, main.build_config(args))
    assert not [n for n in plain.emit.events if isinstance(n, Notice)]
    plain.transcript.close()
    # Elsewhere than DeepSeek's API the name is whatever that server means by it.
    assert billing.legacy_line(Config(model="deepseek-v4-flash", base_url="http://127.0.0.1:9/v1"), "en") is None


def test_old_stats_files_are_billed_once_at_todays_prices():
    from agent.state.app import Stats

    saved = {"requests": 3, "input_tokens": 1_000_000, "cache_hit_tokens": 600_000, "output_tokens": 50_000}
    stats = Stats.from_dict(saved)
    billing.carry_old_totals(stats, saved, Config(model="deepseek-flash"))
    now = prices.lookup("deepseek-flash")
    assert now is not None and stats.priced_requests == 3
    assert stats.cost_hit + stats.cost_miss + stats.cost_output == pytest.approx(money(HIT, MISS, OUT, now))
    again = Stats.from_dict(stats.to_dict())
    billing.carry_old_totals(again, stats.to_dict(), Config(model="deepseek-flash"))
    assert again == stats  # a file written since is not billed twice


def test_the_window_is_remembered_so_start_up_never_loads_the_price_data(home):
    """genai-prices' data takes 0.1-0.4 s to load: a start after the first reads the window from the
    data folder. A changed copy of the data (another stamp) is looked up again."""
    import os
    import subprocess
    import sys

    probe = (
        "import sys, main; c = main.build_config(main.parse_args([])); "
        "print(c.context_window, 'genai_prices.data' in sys.modules)"
    )
    home.mkdir()

    def start() -> str:
        return subprocess.run(
            [sys.executable, "-c", probe],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "CODING_AGENT_HOME": str(home)},
        ).stdout.split()

    assert start() == ["1000000", "True"]  # looked up, and remembered
    assert start() == ["1000000", "False"]
    saved = json.loads((home / prices.WINDOWS_FILE).read_text())
    (home / prices.WINDOWS_FILE).write_text(json.dumps({**saved, "source": "another copy"}))
    assert start() == ["1000000", "True"]


def test_the_readme_price_table_is_what_the_agent_bills_by():
    """The README's table is a copy for the reader: the agent's own source (genai-prices, corrected
    here) owns the figures, and this fails when the two part (a new price, a changed window)."""
    import re
    from datetime import date
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[3] / "README.md").read_text()
    row = r"^\| `([\w.-]+)`[^|]*\| ([\d,]+) \|[^|]*\| \$([\d.]+) \| \$([\d.]+) \| \$([\d.]+) \|$"
    rows = re.findall(row, readme, re.M)
    assert {r[0] for r in rows} >= {"deepseek-flash", "deepseek-v4-pro"}
    for model, window, hit, miss, output in rows:
        billed = prices.off_peak(model, date(2026, 12, 1))
        assert billed is not None, model
        shown = (float(hit), float(miss), float(output))
        assert (billed.hit, billed.miss, billed.output) == pytest.approx(shown), model
        assert prices.known_context_window(model) == int(window.replace(",", "")), model


def test_a_measured_figure_is_priced_off_peak_whatever_the_hour(monkeypatch):
    """bench/ and the fuzzer price their figures by prices.for_reports: run in peak hours, the fuzzer's
    $ per 100 turns came out doubled (2026-12-02, 10:30 Beijing)."""
    from datetime import datetime, timedelta

    day = datetime(2026, 12, 2, tzinfo=prices.BEIJING)  # a Wednesday, no holiday
    hours = [day + timedelta(hours=h) for h in range(24)]
    peak = [h for h in hours if prices.period("deepseek-flash", h) == "peak"]
    assert peak, "deepseek-flash has no peak hour on a weekday any more: this test needs another model"

    class At(datetime):
        @classmethod
        def now(cls, tz=None):
            return peak[0].astimezone(tz)

    monkeypatch.setattr(prices, "datetime", At)
    reported = prices.for_reports("deepseek-flash")
    assert reported is not None and reported.miss < prices.lookup("deepseek-flash", peak[0]).miss
    assert reported == prices.off_peak("deepseek-flash", day.date())
