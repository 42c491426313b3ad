"""Run-time configuration: flags, environment, the known models."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

DEEPSEEK_BASE_URL = "https://api.deepseek.com"


@dataclass(frozen=True)
class ModelInfo:
    window: int
    max_output: int
    # US dollars per million tokens: input served from the prefix cache, input not, output.
    price_hit: float
    price_miss: float
    price_out: float


# DeepSeek's models as of mid-2026 (api-docs.deepseek.com, models & pricing).
MODELS: dict[str, ModelInfo] = {
    "deepseek-v4-flash": ModelInfo(1_000_000, 393_216, 0.0028, 0.14, 0.28),
    "deepseek-v4-pro": ModelInfo(1_000_000, 393_216, 0.003625, 0.435, 0.87),
}
DEFAULT_MODEL = "deepseek-v4-flash"
# Names DeepSeek retired on 2026-07-24: a request naming one gets HTTP 400.
RETIRED_MODELS = {"deepseek-chat": "deepseek-v4-flash", "deepseek-reasoner": "deepseek-v4-flash"}
DEFAULT_WINDOW = 131_072
THINKING_CHOICES = ("on", "off")
REASONING_EFFORTS = ("high", "max")


def known_context_window(model: str) -> int | None:
    info = MODELS.get(model)
    if info is not None:
        return info.window
    if model.startswith("deepseek-v4-"):
        return 1_000_000
    return None


def model_info(model: str) -> ModelInfo | None:
    return MODELS.get(model)


def is_deepseek_url(url: str | None) -> bool:
    """DeepSeek's own API (no --base-url, or one on api.deepseek.com): where a DeepSeek key may go."""
    if not url:
        return True
    host = (urlparse(url).hostname or "").lower()
    return host == "api.deepseek.com" or host.endswith(".deepseek.com")


def is_local_url(url: str | None) -> bool:
    """A server someone runs a model on: any endpoint but DeepSeek's API and OpenAI's."""
    host = (urlparse(url or "").hostname or "").lower()
    return bool(url) and not is_deepseek_url(url) and host != "api.openai.com"


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
    # Model requests one turn may make; None: no limit (a coding turn may need hundreds).
    max_requests: int | None = None
    # None: as the API does by default (DeepSeek's V4 models think).
    thinking: bool | None = None
    reasoning_effort: str | None = None

    @property
    def endpoint(self) -> str:
        return self.base_url or DEEPSEEK_BASE_URL

    @property
    def thinks(self) -> bool:
        """Whether requests run in thinking mode: DeepSeek's V4 models do unless turned off."""
        if self.thinking is not None:
            return self.thinking
        return self.model.startswith("deepseek-v4-") or self.model == "deepseek-reasoner"
