"""Run-time configuration: flags, environment, the known models."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

DEEPSEEK_BASE_URL = "https://api.deepseek.com"


# DeepSeek's "Models & Pricing" page (autumn 2026, checked 2026-12-01). Prices and windows come
# from genai-prices (agent.provider.prices); the output ceiling (384K) is on the page only.
DEFAULT_MODEL = "deepseek-flash"  # DeepSeek-V4.1-Flash-1017
DEEPSEEK_MODELS = ("deepseek-flash", "deepseek-v4-pro")
DEEPSEEK_MAX_OUTPUT = 393_216
# Names still accepted, whose models are retired: DeepSeek serves (and bills) them as the model named.
LEGACY_MODELS = {"deepseek-v4-flash": "deepseek-flash", "deepseek-v4-flash-vision-exp": "deepseek-flash"}
# The models that take image input (agent.tools.images): the page says Flash understands images and Pro
# does not; the legacy names are served by Flash. genai-prices does not say which models see images.
IMAGE_MODELS = frozenset({"deepseek-flash", *LEGACY_MODELS})
# Names DeepSeek retired on 2026-07-24: a request naming one gets HTTP 400.
RETIRED_MODELS = {"deepseek-chat": DEFAULT_MODEL, "deepseek-reasoner": DEFAULT_MODEL}
DEFAULT_WINDOW = 131_072
THINKING_CHOICES = ("on", "off")
REASONING_EFFORTS = ("high", "max")
# Codex CLI's names, strictest first (agent/tools/sandbox/ says what each lets a command do).
SANDBOX_MODES = ("read-only", "workspace-write", "danger-full-access")
DEFAULT_SANDBOX_MODE = "workspace-write"


def env_name(name: str) -> str:
    """The environment variable of a flag's setting: --compact-at is CODING_AGENT_COMPACT_AT."""
    return f"CODING_AGENT_{name.upper()}"


@dataclass(frozen=True)
class Prices:
    """Per million tokens: a prompt token served from the prefix cache, one not, an output token
    (agent/compaction/cost.py computes with them, agent/provider/prices.py finds them)."""

    hit: float
    miss: float
    output: float
    caches_prefixes: bool = True
    currency: str = "USD"


def is_deepseek_model(model: str) -> bool:
    """A name DeepSeek's API serves today: the V4 family thinks by default and writes up to 384K."""
    return model in DEEPSEEK_MODELS or model in LEGACY_MODELS or model.startswith("deepseek-v4-")


def max_output(model: str) -> int | None:
    return DEEPSEEK_MAX_OUTPUT if is_deepseek_model(model) else None


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


@dataclass(frozen=True)
class Endpoint:
    """A project's `baseUrl`, used only once the project is approved, and the key that would go with it:
    its variable's name (the question names it) and its value (held here, since keys leave the
    environment at start-up)."""

    url: str
    key_name: str | None = None
    key: str | None = field(default=None, repr=False)


@dataclass(frozen=True)
class SandboxPolicy:
    """What a command may do (agent/tools/sandbox/policy.py builds it from the flag, the environment
    and the settings files): the mode, the network, the folders it may write besides the workspace,
    how many processes it may add, and where the mode came from ("flag", "env", a settings layer or
    "default")."""

    mode: str = DEFAULT_SANDBOX_MODE
    network: bool = False
    writable_roots: tuple[Path, ...] = ()
    max_processes: int = 1024
    origin: str = "default"


def claude_home() -> Path:
    """Claude Code's user folder (`~/.claude`, or CLAUDE_CONFIG_DIR as Claude Code reads it): a user
    who switches keeps their own commands and sub-agents there."""
    return Path(os.environ.get("CLAUDE_CONFIG_DIR") or Path.home() / ".claude")


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
    # -p: one turn, no REPL, so no slash command is advice the user can follow.
    one_shot: bool = False
    # Model requests one turn may make; None: no limit (a coding turn may need hundreds).
    max_requests: int | None = None
    # None: as the API does by default (DeepSeek's V4 models think).
    thinking: bool | None = None
    reasoning_effort: str | None = None
    # The user's own prices per model (--prices, CODING_AGENT_PRICES; agent.provider.prices.parse_overrides).
    prices: dict[str, Prices] = field(default_factory=dict)
    # --permission-mode (agent.tools.permissions.MODES); None: the files' defaultMode, else the start mode.
    permission_mode: str | None = None
    # The settings files as read (agent.provider.settings.Settings), None when none were looked at (tests).
    settings: Any = field(default=None, repr=False, compare=False)
    # --allowed-tools: run without asking; --disallowed-tools: not given to the model (agent.tools.toolset).
    allowed_tools: frozenset[str] = frozenset()
    disallowed_tools: frozenset[str] = frozenset()
    # --images on|off: the model takes images; None: as the model table says (agent.tools.images.takes_images).
    images: bool | None = None
    # Networks fetch_url may reach although not public (agent.tools.fetch_url): none, the model's URLs are untrusted.
    fetch_allow_networks: tuple[str, ...] = ()
    # --trust-project: the project's grants apply without the question (agent.provider.trust).
    trust_project: bool = False
    # The project's baseUrl, waiting for the project's approval (agent.provider.trust); base_url and
    # api_key are the user's until then.
    project_endpoint: Endpoint | None = field(default=None, repr=False)
    # The commands' OS sandbox; None: commands run as they always did (a Config built by hand: tests,
    # library use). main.py always sets one (agent.tools.sandbox.policy.load).
    sandbox: SandboxPolicy | None = None

    @property
    def endpoint(self) -> str:
        return self.base_url or DEEPSEEK_BASE_URL

    @property
    def thinks(self) -> bool:
        """Whether requests run in thinking mode: DeepSeek's V4 models do unless turned off."""
        if self.thinking is not None:
            return self.thinking
        return is_deepseek_model(self.model) or self.model == "deepseek-reasoner"
