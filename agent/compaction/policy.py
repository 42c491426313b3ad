"""Clear old tool results or write a summary: which costs least over the next requests.

Pure: the session's figures (agent.compaction.watermark.Figures) and histories in, a Choice out.

Why a model and not a rule: with a prefix cache the price of a request is mostly its new tail.
Clearing old tool results rewrites the history from the first cleared result on, so the next
request bills everything after it at the miss price; and it leaves more behind than a summary, so
the next compaction comes sooner. A summary costs one request (mostly cached) plus its output, and
the rebuilt history once at the miss price. Which is cheaper depends on the prices, on whether the
server caches at all, and on how much each action leaves behind.

Keeping going without compacting is not a choice: past the threshold a request carries the whole
context at least at the hit price, and a summary pays for itself within a few requests; it would
win only in a session's last few requests, which cannot be known. Peak hours scale every price
alike, which changes no choice: only the ratios between the prices do.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent.compaction.summary import head_end, previous_summary, user_messages
from agent.config import Prices
from agent.marks import is_summary, summary_text
from agent.provider.prices import MILLION, money
from agent.tokens import count as tokens

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

    from agent.compaction.watermark import Figures

MODES = ("auto", "on", "off")
# For a model whose prices we do not know but whose server reports cache hits: relative units (a
# miss costs 1), enough to compare two actions, never shown as money.
RELATIVE = Prices(hit=0.1, miss=1.0, output=2.0, currency="")
# A summary's length when there is no earlier one to go by; the rebuilt history's wrapper text.
DEFAULT_SUMMARY_TOKENS, WRAPPER_TOKENS = 3_000, 600
MIN_GROWTH = 200


@dataclass(frozen=True)
class Outlook:
    """One compaction point, in tokens (estimates where marked)."""

    before: int  # the context now
    threshold: int  # where the next compaction starts
    fixed: int  # instructions and tool definitions: cached whatever we do
    growth: float  # tokens the history grows by per request (estimate)
    clear_after: int  # the context after clearing
    clear_unchanged: int  # tokens before the first cleared result (still cached)
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


def choose(
    figs: Figures,
    history: Sequence[ModelMessage],
    cleared: Sequence[ModelMessage],
    before: int,
    clear_after: int,
    clear_enough: bool,
    keep: Sequence[ModelMessage] = (),
) -> Choice:
    """Clear or summarize, for the session's figures and the history cleared or not."""
    seen = outlook(figs, history, cleared, before, clear_after, keep) if clear_enough else None
    return decide(figs.mode, clear_enough, seen, figs.prices, figs.caches)


def decide(mode: str, clear_enough: bool, o: Outlook | None, prices: Prices | None, caches: bool) -> Choice:
    """`mode` is --cheap-tier: "on" clears whenever clearing is enough, "off" never clears, "auto" picks
    the cheaper action. Without prices or a cache, money cannot tell them apart: clearing then spares
    the user the wait for a summary."""
    if mode == "off":
        return Choice("summary", "forced_off")
    if not clear_enough or o is None:
        return Choice("summary", "clear_not_enough")
    if mode == "on":
        return Choice("clear", "forced_on")
    if prices is not None and not (prices.hit or prices.miss or prices.output):
        prices = None  # free (self-hosted, priced at 0)
    if prices is None:
        if not caches:
            return Choice("clear", "no_cache_no_prices", currency="")
        prices = RELATIVE
    cleared, summarized = clear_cost(o, prices, caches), summary_cost(o, prices, caches)
    return Choice("clear" if cleared < summarized else "summary", "cheaper", cleared, summarized, prices.currency)


def clear_cost(o: Outlook, p: Prices, caches: bool) -> float:
    return per_request(0.0, max(0, o.clear_after - o.clear_unchanged), o.clear_after, o, p, caches)


def summary_cost(o: Outlook, p: Prices, caches: bool) -> float:
    cached = min(o.summary_cached, o.before) if caches else 0
    event = money(cached, o.before - cached + o.prompt, o.summary_output, p)
    return per_request(event, max(0, o.summary_after - o.fixed), o.summary_after, o, p, caches)


def per_request(event: float, rebuild_miss: int, after: int, o: Outlook, p: Prices, caches: bool) -> float:
    """The action's own cost spread over the requests until the next compaction, plus what those
    requests pay to carry the context it leaves (it grows from `after` to the threshold). What every
    request adds (its new tail, its output) is the same whatever we choose and is left out.
    `rebuild_miss`: tokens the first request after the action bills at the miss price instead of the
    hit price (the rewritten part of the history)."""
    hit = p.hit if caches else p.miss
    n = max(1.0, (o.threshold - after) / max(o.growth, 1.0))
    extra = rebuild_miss * (p.miss - hit) / MILLION
    carried = hit * (after + o.growth * (n - 1) / 2) / MILLION
    return (event + extra) / n + carried


def outlook(
    figs: Figures,
    history: Sequence[ModelMessage],
    cleared: Sequence[ModelMessage],
    before: int,
    clear_after: int,
    keep: Sequence[ModelMessage] = (),
) -> Outlook:
    """What each action leaves and what the next requests would carry after it."""
    fixed, plan = figs.fixed, figs.budgets
    first = next((i for i, (a, b) in enumerate(zip(history, cleared, strict=False)) if a is not b), len(cleared))
    earlier = previous_summary(history)
    text = summary_text(earlier)
    summary_out = min(tokens.count_text(text) if text else DEFAULT_SUMMARY_TOKENS, figs.reserve)
    # The summary carries the user messages too, within their budget.
    carried = (earlier.metadata or {}).get("user_messages") or [] if earlier is not None else []
    users = [u for u in carried if isinstance(u, str)] + user_messages(history)
    after = (
        fixed
        + WRAPPER_TOKENS
        + summary_out
        + min(plan.restore, figs.restored)
        + min(plan.user_messages, sum(tokens.count_text(u) for u in users))
        + tokens.count_messages(keep)
    )
    responses = sum(1 for m in history if m.kind == "response")
    head = tokens.count_messages([m for m in history[: head_end(history)] if is_summary(m)])
    return Outlook(
        before=before,
        threshold=figs.threshold,
        fixed=fixed,
        growth=max(MIN_GROWTH, (before - fixed - head) / max(1, responses)),
        clear_after=clear_after,
        clear_unchanged=fixed + tokens.count_messages(history[:first]),
        summary_cached=next(
            (m.usage.input_tokens for m in reversed(history) if m.kind == "response" and m.usage.input_tokens), 0
        ),
        summary_output=summary_out,
        summary_after=after,
    )
