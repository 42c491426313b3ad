"""What a local server says about itself at start: whether its chat template takes tools, and its
context size.

llama-server with a template that has no tool support drops `tools` from every request without a
word (the prompt was 261 tokens: system + user), so the model never sees them. llama.cpp's `/props`
says so (`chat_template_caps.supports_tools`) and gives `n_ctx`; Ollama's `/api/show` lists the
model's `capabilities`. Asked once, at start, where reachable; a server that answers neither is
left alone.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

from agent import debuglog
from agent.config import Config, is_local_url
from agent.text.i18n import t

PROBE_TIMEOUT = 2.0


@dataclass(frozen=True)
class ServerCaps:
    server: str  # "llama.cpp", "Ollama"
    tools: bool | None  # None: it did not say
    n_ctx: int | None = None


def _root(base_url: str) -> str:
    parsed = urlparse(base_url)
    return f"{parsed.scheme}://{parsed.netloc}{parsed.path.rstrip('/').removesuffix('/v1')}"


def _get_json(url: str, body: dict | None = None) -> Any:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=PROBE_TIMEOUT) as response:  # noqa: S310 - the user's URL
            return json.loads(response.read())
    except (OSError, ValueError, urllib.error.URLError):
        return None


def probe(config: Config) -> ServerCaps | None:
    if not is_local_url(config.base_url):
        return None
    root = _root(config.base_url)
    props = _get_json(f"{root}/props")
    if isinstance(props, dict) and isinstance(props.get("chat_template_caps"), dict):
        caps = props["chat_template_caps"]
        settings = props.get("default_generation_settings")
        n_ctx = settings.get("n_ctx") if isinstance(settings, dict) else None
        tools = caps.get("supports_tools")
        return ServerCaps(
            "llama.cpp",
            tools if isinstance(tools, bool) else None,
            n_ctx if isinstance(n_ctx, int) and n_ctx > 0 else None,
        )
    show = _get_json(f"{root}/api/show", {"model": config.model})
    if isinstance(show, dict) and isinstance(show.get("capabilities"), list):
        return ServerCaps("Ollama", "tools" in show["capabilities"])
    return None


def check(config: Config) -> list[str]:
    """The warnings to show at start (one line each); may adopt llama.cpp's n_ctx as the window when
    none was given (the built-in guess, 131,072, would be wrong for any local server)."""
    caps = probe(config)
    debuglog.log("server_caps", caps=repr(caps))
    if caps is None:
        return []
    lang = config.lang
    lines = []
    if caps.tools is False:
        lines.append(t("local_no_tools", lang, server=caps.server, model=config.model))
    if caps.n_ctx is not None and not config.window_known:
        config.context_window, config.window_known = caps.n_ctx, True
        lines.append(t("local_window_adopted", lang, n=caps.n_ctx))
    elif caps.n_ctx is not None and config.context_window > caps.n_ctx:
        # Every request past n_ctx would be refused: say so now, not at the first refusal.
        lines.append(t("local_window_differs", lang, n=caps.n_ctx, ours=config.context_window))
    return lines
