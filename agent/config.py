"""Run-time configuration: flags, environment, the model's context window."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_MODEL = "deepseek-chat"
DEEPSEEK_BASE_URL = "https://api.deepseek.com"

# The design's window for deepseek-chat/-reasoner; V4 models have 1M.
_KNOWN_WINDOWS = {"deepseek-chat": 131_072, "deepseek-reasoner": 131_072}
DEFAULT_WINDOW = 131_072


def known_context_window(model: str) -> int | None:
    if model in _KNOWN_WINDOWS:
        return _KNOWN_WINDOWS[model]
    if model.startswith("deepseek-v4-"):
        return 1_000_000
    return None


def data_home() -> Path:
    return Path(os.environ.get("CODING_AGENT_HOME") or Path.home() / ".coding-agent")


@dataclass
class Config:
    model: str = DEFAULT_MODEL
    base_url: str | None = None
    # Held in memory only; never written to disk.
    api_key: str | None = field(default=None, repr=False)
    context_window: int = DEFAULT_WINDOW
    window_known: bool = True
    compact_at: str | None = None  # "N" tokens or "P%" of the window
    auto_compact: bool = True
    cheap_tier: str = "auto"  # clear old tool results before summarizing: "auto" (by cost), "on", "off"
    yes: bool = False
    lang: str = "en"
    workspace: Path = field(default_factory=Path.cwd)
    debug: bool = False

    @property
    def endpoint(self) -> str:
        return self.base_url or DEEPSEEK_BASE_URL
