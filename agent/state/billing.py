"""The session's bill: each request priced at the moment the provider answered it.

Prices change by the hour (DeepSeek's peak hours cost twice as much), so a session is billed request
by request, never as its token totals times one price: one that crosses 09:00 Beijing time is billed
in two parts. Also the lines that tell the user what a model costs (agent.provider.prices says it).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

from agent.config import LEGACY_MODELS, Config, Prices, is_deepseek_url
from agent.provider import prices
from agent.provider.prices import format_money, money
from agent.text.i18n import t

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelResponse

    from agent.state.app import Stats


def answered_at(response: ModelResponse) -> datetime:
    """The provider's own time for the response (the `created` field) if it sent one, else ours."""
    stamp = (response.provider_details or {}).get("timestamp")
    return stamp if isinstance(stamp, datetime) else response.timestamp


def bill(stats: Stats, config: Config, response: ModelResponse, hits: int) -> None:
    """Adds one response's price, at its time, to the session's costs; notes the model that answered."""
    if response.model_name:
        stats.served_model = response.model_name
    usage = response.usage
    add(
        stats,
        prices.lookup(config.model, answered_at(response), config.prices),
        hits,
        max(0, usage.input_tokens - hits),
        usage.output_tokens,
    )


def add(stats: Stats, price: Prices | None, hit: int, miss: int, output: int) -> None:
    if price is None:
        return  # unknown model: /status shows the tokens and says it knows no price
    if stats.cost_currency and stats.cost_currency != price.currency:
        return  # a resumed session now priced in another currency: money of two kinds is not added
    stats.cost_currency = price.currency
    stats.cost_hit += money(hit, 0, 0, price)
    stats.cost_miss += money(0, miss, 0, price)
    stats.cost_output += money(0, 0, output, price)
    stats.priced_requests += 1


def carry_old_totals(stats: Stats, saved: dict, config: Config) -> None:
    """A stats file from before per-request billing has token totals only: they are billed once,
    at the prices of now (the best that can be done), so a resumed session keeps showing a cost."""
    if "priced_requests" in saved or not stats.requests:
        return
    hit = stats.cache_hit_tokens
    add(stats, prices.now(config), hit, max(0, stats.input_tokens - hit), stats.output_tokens)
    if stats.priced_requests:
        stats.priced_requests = stats.requests


# ---- what the user is told -------------------------------------------------------------------------


def per_million(price: Prices) -> str:
    return "/".join(format_money(p, price.currency) for p in (price.hit, price.miss, price.output))


def prices_now_line(config: Config, lang: str, when: datetime | None = None) -> str | None:
    """What a request costs now, and whether this is a peak hour; None for a model without prices."""
    when = when or datetime.now(UTC)
    price = prices.lookup(config.model, when, config.prices)
    if price is None:
        return None
    period = prices.period(config.model, when, config.prices)
    if config.model in config.prices:
        where = t("prices_yours", lang)
    else:
        where = t(f"prices_{period}", lang) if period else t("prices_flat", lang)
    return t("prices_now", lang, prices=per_million(price), where=where)


def legacy_line(config: Config, lang: str) -> str | None:
    """One line for a legacy DeepSeek name: which model serves it, and at what price."""
    served = LEGACY_MODELS.get(config.model)
    if served is None or not is_deepseek_url(config.base_url):
        return None
    price = prices.lookup(served, overrides=config.prices)
    price_text = per_million(price) if price else t("prices_none", lang)
    return t("legacy_model", lang, model=config.model, served=served, prices=price_text)
