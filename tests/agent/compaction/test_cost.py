"""The cost model (agent.compaction.policy): prices, money, and which compaction action is cheaper."""

from __future__ import annotations

import dataclasses

import pytest

from agent.compaction import policy
from agent.config import Prices
from agent.provider.prices import format_money, money

# deepseek-flash off-peak, DeepSeek's "Models & Pricing" page as read on 2026-12-01 (tests/agent/provider/test_prices.py
# checks agent.provider.prices against the same figures): cache hit, miss, output per 1M tokens.
FLASH = Prices(hit=0.003, miss=0.15, output=0.60)


def outlook(**changes: object) -> policy.Outlook:
    # A 131k-window session at its threshold: clearing keeps 53.7k and rewrites all but 13.9k of it,
    # a summary leaves 28.9k (the measured figures).
    base = policy.Outlook(
        before=101_000,
        threshold=101_000,
        fixed=3_000,
        growth=1_500,
        clear_after=53_700,
        clear_unchanged=13_900,
        summary_cached=95_000,
        summary_output=4_000,
        summary_after=28_900,
    )
    return dataclasses.replace(base, **changes)


def test_money_uses_each_price():
    assert money(1_000_000, 0, 0, FLASH) == pytest.approx(0.003)
    assert money(0, 1_000_000, 0, FLASH) == pytest.approx(0.15)
    assert money(0, 0, 1_000_000, FLASH) == pytest.approx(0.60)
    assert money(2_000_000, 1_000_000, 1_000_000, FLASH) == pytest.approx(2 * 0.003 + 0.15 + 0.60)


def test_with_a_prefix_cache_the_summary_wins_when_clearing_rewrites_much():
    choice = policy.decide("auto", True, outlook(), FLASH, caches=True)
    assert choice.action == "summary" and choice.reason == "cheaper"
    assert choice.summary_cost < choice.clear_cost


def test_clearing_wins_when_it_leaves_little_and_rewrites_little():
    o = outlook(clear_after=12_000, clear_unchanged=11_000)
    choice = policy.decide("auto", True, o, FLASH, caches=True)
    assert choice.action == "clear" and choice.clear_cost < choice.summary_cost


def test_the_rebilled_tail_is_what_makes_clearing_dear():
    # The same clearing that rewrites nothing of what it keeps is cheaper than one that rewrites it all.
    cheap = policy.clear_cost(outlook(clear_unchanged=53_700), FLASH, caches=True)
    dear = policy.clear_cost(outlook(clear_unchanged=3_000), FLASH, caches=True)
    assert cheap < dear
    # Without a cache nothing is re-billed: where the rewrite starts does not matter.
    assert policy.clear_cost(outlook(clear_unchanged=53_700), FLASH, caches=False) == pytest.approx(
        policy.clear_cost(outlook(clear_unchanged=3_000), FLASH, caches=False)
    )


def test_modes_and_fallbacks():
    assert policy.decide("off", True, outlook(), FLASH, True).action == "summary"
    assert policy.decide("on", True, outlook(), FLASH, True) == policy.Choice("clear", "forced_on")
    assert policy.decide("on", False, outlook(), FLASH, True) == policy.Choice("summary", "clear_not_enough")
    assert policy.decide("auto", False, outlook(), FLASH, True).reason == "clear_not_enough"
    # No prices, no cache seen (a local model): money cannot decide; spare the user the summary call.
    assert policy.decide("auto", True, outlook(), None, caches=False).reason == "no_cache_no_prices"
    # No prices but the server caches: relative units decide, as for known prices.
    relative = policy.decide("auto", True, outlook(), None, caches=True)
    assert relative.reason == "cheaper" and relative.currency == ""
    # Priced at nothing (self-hosted, --prices at 0): as without prices.
    free = Prices(0, 0, 0)
    assert policy.decide("auto", True, outlook(), free, caches=False).reason == "no_cache_no_prices"


def test_peak_hours_change_no_choice():
    peak = Prices(hit=2 * FLASH.hit, miss=2 * FLASH.miss, output=2 * FLASH.output)
    for o in (outlook(), outlook(clear_after=12_000, clear_unchanged=11_000)):
        assert policy.decide("auto", True, o, peak, True).action == policy.decide("auto", True, o, FLASH, True).action


def test_format_money():
    assert format_money(0.0123) == "$0.0123"
    assert format_money(0.0000694) == "$0.000069"
    assert format_money(12.5, "") == "12.5"
