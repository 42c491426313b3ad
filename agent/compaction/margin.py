"""The safety margin between our token estimate and the server's count, learned in the session.

Our count (agent.tokens.count) is DeepSeek's tokenizer over our rendering of the request; another
server renders and counts its own way (its template, its tokenizer, a tool schema it expands), so
an estimate can be a few percent low and a request we think fits is refused. A fixed slack is too
small for such a server or wasteful for an exact one; instead the margin is what the server itself
reported: after every answered request, the ratio of its prompt count to our estimate; after a
refused one, the figures in the error. The highest ratio so far is the margin (`Stats.count_ratio`,
saved with the stats, so `--continue` keeps it). Every size check before a request goes through
`fits` or `room`; `safe_estimate` is the one conversion, so a server that counts for us (a
/tokenize endpoint) could replace it.
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
# A refusal's own figures are exact for that request; a little more keeps the retry off the edge.
# Without figures the margin grows by REFUSAL_GROW each refusal. A ratio of 2 means the server does
# not count like us at all: never beyond it.
REFUSAL_PAD, REFUSAL_GROW, MAX_RATIO = 1.02, 1.10, 2.0
# "you requested 19170 tokens (19170 in the messages, 0 in the completion)" (OpenAI, DeepSeek,
# vLLM), "your messages resulted in 19170 tokens" (OpenAI), "n_prompt_tokens": 19170 (llama.cpp).
_COUNTS = (
    re.compile(r"\((\d+) in the messages"),
    re.compile(r"messages resulted in (\d+) tokens"),
    re.compile(r"requested (\d+) tokens"),
    re.compile(r"n_prompt_tokens\W+(\d+)"),
    re.compile(r"prompt (?:is|has|contains) (\d+) tokens"),
)


def ratio(state: AppState) -> float:
    return max(1.0, state.stats.count_ratio)


def safe_estimate(estimate: int, ratio: float) -> int:
    """Our estimate of a request, raised by how far the server has counted above us so far."""
    return math.ceil(estimate * ratio)


def safe(state: AppState, estimate: int) -> int:
    return safe_estimate(estimate, ratio(state))


def fits(state: AppState, estimate: int, limit: int) -> bool:
    """Whether a request we estimate at `estimate` tokens fits under `limit` by the server's count."""
    return safe(state, estimate) <= limit


def room(state: AppState, limit: int) -> int:
    """The largest estimate that fits under `limit` (for fitting messages by our own count)."""
    return int(limit / ratio(state))


def observe(state: AppState, estimate: int, server: int) -> None:
    """Learn from an answered request: the server counted `server` where we estimated `estimate`."""
    if estimate >= MIN_SAMPLE and server > 0:
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
    """A request the server refused for its length (agent/provider/server_errors.py has the wordings)."""
    from agent.provider.server_errors import is_too_long

    return is_too_long(exc)


def server_count(exc: BaseException) -> int | None:
    """The server's count of the refused request's prompt, from its error, if it gave one."""
    text = f"{getattr(exc, 'body', None) or ''} {getattr(exc, 'message', '') or ''} {exc}"
    for pattern in _COUNTS:
        if match := pattern.search(text):
            return int(match.group(1))
    return None
