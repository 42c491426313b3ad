"""/model, /effort and /thinking: a new model or new settings for the rest of the session, without
a restart.

A switch rebuilds the agent (its model and settings are fixed at build, agent.turn.loop.get_agent) and
forgets the recorded request: the new model's provider has none of this conversation in its prefix
cache, so its first request bills the whole context at the miss price; the switch says what that
costs at the current size. The window and prices follow the model (agent.provider.prices); a switch
to a window the context no longer fits under compacts first (the caller runs it, with the old model,
whose cache the summary request still hits)."""

from __future__ import annotations

from dataclasses import dataclass

from agent.compaction import CompactAtOutOfRange, compact_threshold, context_tokens
from agent.config import RETIRED_MODELS, is_deepseek_url
from agent.provider.prices import format_money, known_context_window, money, now
from agent.state.app import AppState
from agent.text.i18n import t


@dataclass(frozen=True)
class Switch:
    model: str
    window: int
    window_known: bool
    used: int  # the context now, tokens
    threshold: int  # the new model's threshold

    @property
    def compact_first(self) -> bool:
        return self.used > self.threshold


def parse_window(text: str) -> int:
    """ "32768", "32k" or "1m" tokens; ValueError otherwise."""
    text = text.strip().lower()
    scale = {"k": 1_000, "m": 1_000_000}.get(text[-1:], 1)
    number = int(float(text[:-1] if scale > 1 else text) * scale)
    if number <= 0:
        raise ValueError(text)
    return number


def plan(state: AppState, model: str, window: int | None = None) -> Switch:
    """What switching to `model` means (with `window`, the model's window as the user gives it; else
    as known, else the current one); raises ValueError with the reason it cannot be done."""
    config = state.config
    if model in RETIRED_MODELS and is_deepseek_url(config.base_url):
        raise ValueError(t("model_retired", state.lang, model=model, new=RETIRED_MODELS[model]))
    known = window or known_context_window(model)
    window = known or config.context_window
    try:
        limit = compact_threshold(window, config.compact_at)
    except CompactAtOutOfRange as exc:
        raise ValueError(t("model_compact_at", state.lang, value=exc.value, model=model, window=window)) from exc
    return Switch(model, window, known is not None or config.window_known, context_tokens(state), limit)


def cache_note(state: AppState, old_model: str, used: int) -> str:
    """What the first request after a switch costs, for it is served from no cache."""
    prices = now(state.config)
    if prices is None:
        return t("model_cache_tokens", state.lang, old=old_model, tokens=used)
    cold = format_money(money(0, used, 0, prices), prices.currency)
    warm = format_money(money(used, 0, 0, prices), prices.currency)
    return t("model_cache_cost", state.lang, old=old_model, tokens=used, cold=cold, warm=warm)


def apply(state: AppState, **changes: object) -> object | None:
    """Put `changes` into the configuration and drop what was built for the old one. Returns the old
    agent, whose HTTP client the caller closes (it may be mid-way through nothing: turns are over)."""
    for name, value in changes.items():  # in place: whoever holds the config sees the new one
        setattr(state.config, name, value)
    old, state.scratch.agent = state.scratch.agent, None
    state.scratch.recorder.forget()  # the old model's request: no prefix of the new one
    state.scratch.fixed_prefix_tokens, state.scratch.prefix_calibrated = None, False
    return old


def switch_model(state: AppState, switch: Switch) -> object | None:
    return apply(state, model=switch.model, context_window=switch.window, window_known=switch.window_known)


async def close_agent(agent: object | None) -> None:
    """An old agent's HTTP client, closed now rather than at garbage collection."""
    client = getattr(getattr(agent, "model", None), "client", None)
    if client is not None:
        await client.close()
