"""The safety margin between our token estimate and the server's count, learned in the session.

Our count (agent.tokens.count) is DeepSeek's tokenizer over our rendering of the request; another server
renders and counts its own way (its template, its tokenizer, a tool schema it expands), so an
estimate can be a few percent low, and a request we think fits is refused. A fixed slack is either
too small for such a server or wasteful for an exact one. Instead the margin is what the server
itself reported: after every answered request, the ratio of its prompt count to our estimate of
that request; and after a refused one, the figures in the error. The highest ratio seen so far in
the session is the margin (`Stats.count_ratio`, saved with the stats, so `--continue` keeps it).

Every size check before a request goes through `fits` or `room`; `safe` is the one conversion
(estimate in, safe estimate out), so a probe that asks the server to count (a /tokenize endpoint)
can replace or refine it.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING

from agent import debuglog

if TYPE_CHECKING:
    from agent.state.app import AppState

# Ratios of small requests are mostly the fixed prefix's rounding: not worth learning from.
MIN_SAMPLE = 512
# A refusal's own figures are exact for that request; a little more keeps the retry from landing
# right on the edge again. Without figures, the margin grows by this much each refusal.
REFUSAL_PAD = 1.02
REFUSAL_GROW = 1.10
# Never beyond this: a ratio of 2 means the server does not count like us at all.
MAX_RATIO = 2.0


def ratio(state: AppState) -> float:
    return max(1.0, state.stats.count_ratio)


def safe(state: AppState, estimate: int) -> int:
    """Our estimate of a request, raised by how far the server has counted above us so far."""
    return math.ceil(estimate * ratio(state))


def fits(state: AppState, estimate: int, limit: int) -> bool:
    """Whether a request we estimate at `estimate` tokens fits under `limit` by the server's count."""
    return safe(state, estimate) <= limit


def room(state: AppState, limit: int) -> int:
    """The largest estimate that fits under `limit` (for fitting messages by our own count)."""
    return int(limit / ratio(state))


def observe(state: AppState, estimate: int, server: int) -> None:
    """Learn from an answered request: the server counted `server` where we estimated `estimate`."""
    if estimate < MIN_SAMPLE or server <= 0:
        return
    _raise_to(state, server / estimate, "observed", estimate, server)


def refused(state: AppState, estimate: int, exc: BaseException) -> int | None:
    """Learn from a request refused as too long (`too_long`): from the server's own figures when the
    error has them, else by a fixed step. Returns the server's count of the request, if it said."""
    state.stats.refused_requests += 1
    counted = server_count(exc)
    if counted is not None and estimate > 0:
        _raise_to(state, counted / estimate * REFUSAL_PAD, "refused", estimate, counted)
    else:
        _raise_to(state, ratio(state) * REFUSAL_GROW, "refused", estimate, 0)
    return counted


def _raise_to(state: AppState, value: float, why: str, estimate: int, server: int) -> None:
    value = min(MAX_RATIO, value)
    if value > state.stats.count_ratio:
        debuglog.log("margin", why=why, estimate=estimate, server=server, ratio=round(value, 4))
        state.stats.count_ratio = value


def too_long(exc: BaseException) -> bool:
    """A request the server refused for its length: agent/provider/server_errors.py owns the wordings
    (OpenAI, DeepSeek, vLLM, llama.cpp, Ollama, LM Studio)."""
    from agent.provider.server_errors import is_too_long

    return is_too_long(exc)
# "you requested 19170 tokens (19170 in the messages, 0 in the completion)" (OpenAI, DeepSeek,
# vLLM), "your messages resulted in 19170 tokens" (OpenAI), "n_prompt_tokens": 19170 (llama.cpp).
_COUNTS = (
    re.compile(r"\((\d+) in the messages"),
    re.compile(r"messages resulted in (\d+) tokens"),
    re.compile(r"requested (\d+) tokens"),
    re.compile(r"n_prompt_tokens\W+(\d+)"),
    re.compile(r"prompt (?:is|has|contains) (\d+) tokens"),
)


def server_count(exc: BaseException) -> int | None:
    """The server's count of the refused request's prompt, from its error, if it gave one."""
    text = _error_text(exc)
    for pattern in _COUNTS:
        match = pattern.search(text)
        if match:
            return int(match.group(1))
    return None


def _error_text(exc: BaseException) -> str:
    body = getattr(exc, "body", None)
    return f"{body or ''} {getattr(exc, 'message', '') or ''} {exc}"
