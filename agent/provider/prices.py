"""The price of a model's tokens at a given moment, and its window, from genai-prices.

Three layers, the first that knows a model wins:
1. the user's own prices (`--prices` / CODING_AGENT_PRICES: negotiated or self-hosted), flat;
2. genai-prices' data (dated price changes and time-of-day prices, refreshed by its releases);
3. our corrections where that data is wrong against the provider's own page (`_corrected`).
A model none of them knows has no price: the caller says so and compares actions in relative units.
"""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, time, timedelta, timezone
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Any

from agent.config import Config, Prices

BEIJING = timezone(timedelta(hours=8), "Beijing")
# DeepSeek's "Models & Pricing" page (English and Chinese, as of 2026-12-01): peak hours are
# Monday–Friday 09:00–12:00 and 14:00–18:00 Beijing time, except Chinese public holidays; weekends
# and holidays are off-peak all day. genai-prices 0.2.3 has the daily windows but no day-of-week or
# holiday condition, so it bills those days' peak hours at peak prices (its own price_comments call
# them "an upper bound"). 20:00 Beijing is off-peak on every day of the page's rule.
OFF_PEAK_HOUR = 20
DEEPSEEK_PROVIDER = "deepseek"


MILLION = 1_000_000


def money(hit: int, miss: int, output: int, price: Prices) -> float:
    """The price of `hit` cached prompt tokens, `miss` uncached ones and `output` output tokens."""
    return (hit * price.hit + miss * price.miss + output * price.output) / MILLION


def format_money(amount: float, currency: str = "USD") -> str:
    """Dollars to the precision small amounts need; relative units (no currency) as plain numbers."""
    if not currency:
        return f"{amount:.3g}"
    symbol = "$" if currency == "USD" else ""
    digits = 6 if abs(amount) < 0.001 else 4
    text = f"{amount:,.{digits}f}"
    return f"{symbol}{text}" if symbol else f"{text} {currency}"


class BadPrices(ValueError):
    """The user's price override could not be read: `text(lang)` says what is wrong."""

    def __init__(self, key: str, **fields: object) -> None:
        self.key, self.fields = key, fields
        super().__init__(self.text("en"))

    def text(self, lang: str) -> str:
        from agent.text.i18n import t

        return t(self.key, lang, **self.fields)


def lookup(model: str, when: datetime | None = None, overrides: dict[str, Prices] | None = None) -> Prices | None:
    """The prices of `model` for a request made at `when` (now if None); None when nobody knows them."""
    if overrides and model in overrides:
        return overrides[model]
    when = when or datetime.now(UTC)
    found = _from_source(model, when)
    if found is None:
        return None
    provider, prices = found
    return _corrected(model, provider, when) or prices


def now(config: Config) -> Prices | None:
    """The configured model's prices for a request made now (the user's own first)."""
    return lookup(config.model, overrides=config.prices)


def period(model: str, when: datetime | None = None, overrides: dict[str, Prices] | None = None) -> str | None:
    """ "peak" or "off_peak" for a model whose price depends on the hour; None for flat prices."""
    if overrides and model in overrides:
        return None
    when = when or datetime.now(UTC)
    day = when.astimezone(BEIJING).date()
    calm, now = off_peak(model, day), lookup(model, when)
    if calm is None or now is None or not _has_dearer_hours(model, day, calm):
        return None
    return "peak" if now.miss > calm.miss else "off_peak"


def off_peak(model: str, day: date) -> Prices | None:
    """The model's off-peak prices on `day` (Beijing date): for reports that must not depend on the hour."""
    found = _from_source(model, _off_peak_moment(day))
    return found[1] if found else None


def for_reports(model: str) -> Prices | None:
    """What a measured figure is priced at (bench/, the fuzzer): today's off-peak prices, so that it
    does not depend on the hour it was run at (peak hours scale every price alike and change no
    comparison)."""
    return off_peak(model, datetime.now(BEIJING).date())


def context_window(model: str, home: Path | None = None) -> int | None:
    """The model's window as genai-prices has it; None when it does not know the model.

    Remembered in the data folder per copy of genai-prices' data: loading that data costs as much as
    the rest of start-up (`bench/startup.py`, docs/measured.md), and start-up needs the window before
    the first paint, so only the first start after an install or upgrade pays it. `home`: the
    data folder (None: not remembered)."""
    stamp = _data_stamp() if home is not None else ""
    remembered = _remembered(home, stamp) if home is not None and stamp else {}
    if model in remembered:
        return remembered[model]
    found = _model_info(model)
    window = found.context_window if found is not None else None
    if home is not None and stamp:
        _remember(home, stamp, {**remembered, model: window})
    return window


def preload(model: str) -> None:
    """Load genai-prices' data (off the start-up path: the warm-up), so the first bill costs nothing."""
    _model_info(model)


WINDOWS_FILE = "model-windows.json"


def _data_stamp() -> str:
    """Which copy of genai-prices' data is installed, without importing it (that is the slow part)."""
    from importlib.util import find_spec

    spec = find_spec("genai_prices")
    if spec is None or spec.origin is None:
        return ""
    data = Path(spec.origin).with_name("data.py")
    try:
        info = data.stat()
    except OSError:
        return ""
    return f"{data}:{info.st_size}:{info.st_mtime_ns}"


def _remembered(home: Path, stamp: str) -> dict[str, int | None]:
    try:
        saved = json.loads((home / WINDOWS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    windows = saved.get("windows") if isinstance(saved, dict) and saved.get("source") == stamp else None
    if not isinstance(windows, dict):
        return {}
    return {str(k): v for k, v in windows.items() if v is None or (isinstance(v, int) and not isinstance(v, bool))}


def _remember(home: Path, stamp: str, windows: dict[str, int | None]) -> None:
    from agent.store.atomic import write_via_temp

    if not home.is_dir():
        return  # the folder is made private by the session code (agent.store.project_dirs), not here
    text = json.dumps({"source": stamp, "windows": windows}, indent=1).encode()
    try:
        write_via_temp(home / WINDOWS_FILE, lambda f: f.write(text), mode=0o600)
    except OSError:
        pass  # a read-only data folder: looked up again next time


def _corrected(model: str, provider: str, when: datetime) -> Prices | None:
    """DeepSeek's page over genai-prices: a weekend or a Chinese public holiday (Beijing date) bills
    off-peak all day."""
    if provider != DEEPSEEK_PROVIDER:
        return None
    day = when.astimezone(BEIJING).date()
    if day.weekday() < 5 and not _chinese_holiday(day):
        return None
    found = _from_source(model, _off_peak_moment(day))
    return found[1] if found else None


def _off_peak_moment(day: date) -> datetime:
    return datetime.combine(day, time(OFF_PEAK_HOUR), tzinfo=BEIJING)


def _has_dearer_hours(model: str, day: date, calm: Prices) -> bool:
    """Whether the source prices any hour of `day` above its off-peak hours (before our corrections:
    a weekend is off-peak all day, but still a day of a model with peak hours)."""
    for hour in range(24):
        found = _from_source(model, datetime.combine(day, time(hour), tzinfo=BEIJING))
        if found is not None and found[1].miss > calm.miss:
            return True
    return False


def _chinese_holiday(day: date) -> bool:
    import holidays  # ~50 ms, only when a weekday's price is asked for

    return day in holidays.country_holidays("CN", years=day.year)


@cache
def _model_info(model: str) -> Any:
    from genai_prices import Usage, calc_price

    try:
        return calc_price(Usage(), model).model
    except LookupError:
        return None


def _from_source(model: str, when: datetime) -> tuple[str, Prices] | None:
    """(provider id, prices) from genai-prices at `when`, or None for a model it does not know or
    prices it has in a form we do not bill (tiers by prompt length, no output price)."""
    from genai_prices import Usage, calc_price

    try:
        found = calc_price(Usage(), model, genai_request_timestamp=when)
    except LookupError:
        return None
    price = found.model_price
    miss, hit, out = price.input_mtok, price.cache_read_mtok, price.output_mtok
    if not all(isinstance(v, Decimal) for v in (miss, out)) or not isinstance(hit, (Decimal, type(None))):
        return None
    cached = hit is not None
    return found.provider.id, Prices(
        hit=float(hit if cached else miss), miss=float(miss), output=float(out), caches_prefixes=cached
    )


# ---- the user's own prices ----------------------------------------------------------------------


def merged_overrides(settings: Any, flag: str | None) -> dict[str, Prices]:
    """The settings files' `prices`, then --prices / CODING_AGENT_PRICES over them (a model both name
    takes the flag's): one schema."""
    return {**parse_overrides(settings.prices if settings is not None else None), **parse_overrides(flag)}


def parse_overrides(text: str | dict[str, Any] | None) -> dict[str, Prices]:
    """`{"model": {"hit": ..., "miss": ..., "output": ..., "currency": "USD"}}` per million tokens:
    JSON text, the path of a JSON file, or (from a settings file) the mapping itself."""
    if not text:
        return {}
    data = text if isinstance(text, dict) else _read_json(text)
    if not isinstance(data, dict):
        raise BadPrices("prices_not_object")
    return {str(model): _one(str(model), entry) for model, entry in data.items()}


def _read_json(text: str) -> Any:
    source = text.strip()
    if not source.startswith(("{", "[")):
        path = Path(source).expanduser()
        try:
            source = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise BadPrices("prices_unreadable", path=path, error=exc.strerror or exc) from exc
    try:
        return json.loads(source)
    except json.JSONDecodeError as exc:
        raise BadPrices("prices_not_json", error=exc) from exc


def _one(model: str, entry: Any) -> Prices:
    if not isinstance(entry, dict):
        raise BadPrices("prices_entry", model=model)
    unknown = set(entry) - {"hit", "miss", "output", "currency"}
    if unknown:
        raise BadPrices("prices_unknown_field", model=model, fields=", ".join(sorted(unknown)))
    figures = {name: _figure(model, name, entry.get(name)) for name in ("miss", "output")}
    # Without a hit price the server is taken not to cache: every prompt token at the miss price.
    figures["hit"] = _figure(model, "hit", entry["hit"]) if "hit" in entry else figures["miss"]
    currency = entry.get("currency", "USD")
    if not isinstance(currency, str) or not currency:
        raise BadPrices("prices_currency", model=model)
    return Prices(
        hit=figures["hit"],
        miss=figures["miss"],
        output=figures["output"],
        caches_prefixes="hit" in entry,
        currency=currency,
    )


def _figure(model: str, name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise BadPrices("prices_figure", model=model, name=name, value=repr(value))
    return float(value)


def known_context_window(model: str) -> int | None:
    """The model's window as genai-prices knows it; None for a retired name (refused before any
    request) or a model it does not know."""
    from agent.config import RETIRED_MODELS, data_home

    if model in RETIRED_MODELS:
        return None
    return context_window(model, data_home())
