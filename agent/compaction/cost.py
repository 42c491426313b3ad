"""What a session costs, and which compaction action costs least over the next requests.

Pure functions: no state, no I/O. `agent.compaction.policy` feeds them figures from the session.

Why a model and not a rule: with a prefix cache the price of a request is mostly its new tail.
Clearing old tool results rewrites the history from the first cleared result on, so the next
request bills everything after it at the miss price; and it leaves more behind than a summary, so
the next compaction comes sooner. A summary costs one request (mostly cached) plus its output, and
the rebuilt history once at the miss price. Which is cheaper depends on the prices, on whether the
server caches at all, and on how much each action leaves behind.

Keeping going without compacting is not one of the choices: past the threshold a request carries
the whole context at least at the hit price, and a summary pays for itself within a few requests
(at Flash's off-peak prices of 2026-12, 771k tokens carried cost $0.0023 a request, a summary about
$0.009 once); it would only win in a session's last few requests, which cannot be known. Peak hours
double every price alike, which changes no choice: only the ratios between the prices do.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent.config import Prices
from agent.provider.prices import MILLION, money

# Prices come from agent.provider.prices (genai-prices, corrected, or the user's own).
# For a model whose prices we do not know but whose server reports cache hits: relative units
# (a miss costs 1), enough to compare two actions, never shown as money.
RELATIVE = Prices(hit=0.1, miss=1.0, output=2.0, currency="")


@dataclass(frozen=True)
class Outlook:
    """Figures of one compaction point, in tokens (estimates where marked)."""

    before: int  # the context now
    threshold: int  # where the next compaction starts
    fixed: int  # instructions + tool definitions: cached whatever we do
    growth: float  # tokens the history grows by per request (estimate)
    # Clearing old tool results:
    clear_after: int  # the context after clearing
    clear_unchanged: int  # tokens before the first cleared result (still cached)
    # Writing a summary:
    summary_cached: int  # of the summary request, tokens the last request already sent (cached)
    summary_output: int  # the summary's length (estimate)
    summary_after: int  # the context after the rebuild (estimate)
    prompt: int = 1_000  # the compaction prompt


@dataclass(frozen=True)
class Choice:
    action: str  # "clear" | "summary"
    reason: str  # "cheaper" | "no_cache_no_prices" | "forced_on" | "forced_off" | "clear_not_enough"
    clear_cost: float | None = None  # per request, over the requests until the next compaction
    summary_cost: float | None = None
    currency: str = "USD"


def requests_until_next(after: int, threshold: int, growth: float) -> float:
    return max(1.0, (threshold - after) / max(growth, 1.0))


def per_request(event: float, rebuild_miss: int, after: int, o: Outlook, p: Prices, caches: bool) -> float:
    """The action's own cost spread over the requests until the next compaction, plus what those
    requests pay to carry the context it leaves (it grows from `after` to the threshold).

    What every request adds (its new tail, its output) is the same whatever we choose and is left
    out. `rebuild_miss`: tokens the first request after the action bills at the miss price instead
    of the hit price (the rewritten part of the history)."""
    hit = p.hit if caches else p.miss
    n = requests_until_next(after, o.threshold, o.growth)
    extra = rebuild_miss * (p.miss - hit) / MILLION
    carried = hit * (after + o.growth * (n - 1) / 2) / MILLION
    return (event + extra) / n + carried


def clear_cost(o: Outlook, p: Prices, caches: bool) -> float:
    return per_request(0.0, max(0, o.clear_after - o.clear_unchanged), o.clear_after, o, p, caches)


def summary_cost(o: Outlook, p: Prices, caches: bool) -> float:
    hit_tokens = min(o.summary_cached, o.before) if caches else 0
    miss_tokens = o.before - hit_tokens + o.prompt
    event = money(hit_tokens, miss_tokens, o.summary_output, p)
    return per_request(event, max(0, o.summary_after - o.fixed), o.summary_after, o, p, caches)


def choose(mode: str, clear_enough: bool, o: Outlook | None, prices: Prices | None, caches: bool) -> Choice:
    """`mode` is --cheap-tier: "on" clears whenever clearing is enough, "off" never clears, "auto"
    picks the cheaper action. Without prices or a cache, money cannot tell them apart: clearing then
    spares the user the wait for a summary call."""
    if mode == "off":
        return Choice("summary", "forced_off")
    if not clear_enough or o is None:
        return Choice("summary", "clear_not_enough")
    if mode == "on":
        return Choice("clear", "forced_on")
    if prices is not None and not (prices.hit or prices.miss or prices.output):
        prices = None  # free (self-hosted, priced at 0): money cannot tell the actions apart
    if prices is None:
        if not caches:
            return Choice("clear", "no_cache_no_prices", currency="")
        prices = RELATIVE
    cleared, summarized = clear_cost(o, prices, caches), summary_cost(o, prices, caches)
    action = "clear" if cleared < summarized else "summary"
    return Choice(action, "cheaper", cleared, summarized, prices.currency)
