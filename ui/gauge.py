"""The context gauge: one figure for how full the context is, shown alike in the toolbar and /status.

The figure is `context.context_tokens` (the newest usage plus what came after it, or a full count
with the fixed prefix). Until the fixed prefix is measured (pydantic-ai loads in the background at
start-up) there is no figure: the gauge says so rather than showing 0%.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent.state.app import AppState


@dataclass(frozen=True)
class Gauge:
    used: int | None  # None: not measured yet
    threshold: int
    window: int

    @property
    def percent(self) -> float | None:
        return None if self.used is None or not self.window else 100 * self.used / self.window


def read_gauge(state: AppState, measure: bool = True) -> Gauge:
    """`measure=False` (the toolbar, redrawn on every key) never measures the prefix: importing the
    tools (pydantic-ai) and the tokenizer for it would block the prompt for a second."""
    from agent.compaction import context_tokens, threshold

    used = None
    if measure or state.scratch.fixed_prefix_tokens is not None:
        used = context_tokens(state)
    return Gauge(used, threshold(state), state.config.context_window)


def gauge_text(gauge: Gauge) -> str:
    """ "1,165 / 8,000 (15%)": the same words wherever the gauge is shown."""
    if gauge.used is None:
        return f"… / {gauge.window:,}"
    return f"{gauge.used:,} / {gauge.window:,} ({gauge.percent:.0f}%)"
