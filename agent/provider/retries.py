"""Retrying a failed model request, and saying so before the wait: pydantic-ai's public request hooks.

The openai client's own retries (`max_retries`) wait in silence: the user would see a spinner that
does not move for up to a minute. Here the client makes one attempt (max_retries=0) and pydantic-ai's
`on_model_request_error` hook (agent.tools.capabilities.Retries) decides with what is here: for what
the SDK itself would retry (429, 408, 409, 5xx, a lost connection, a timeout), it tells the UI
(`Retrying`, through the run's deps), waits as the SDK would (the provider's Retry-After, up to 60 s;
else 0.5 s doubling up to 8 s, less up to 25% jitter) and asks pydantic-ai for another attempt
(`RetryModelRequest`).
"""

from __future__ import annotations

import os
import random

# Three retries bound the wait to well under a minute.
MAX_RETRIES = 3
RETRY_AFTER_MAX = 60.0
INITIAL_WAIT, MAX_WAIT = 0.5, 8.0
RETRY_STATUSES = (408, 409, 429)


def max_retries() -> int:
    return int(os.environ.get("CODING_AGENT_MAX_RETRIES", MAX_RETRIES))


def retryable(error: BaseException) -> bool:
    from pydantic_ai.exceptions import ModelAPIError, ModelConnectionError, ModelHTTPError, ModelQuotaExceededError

    if not isinstance(error, ModelAPIError) or error.in_stream or isinstance(error, ModelQuotaExceededError):
        return False  # an answer already streaming is not sent again: its text has been shown
    if isinstance(error, ModelConnectionError):
        return True
    return isinstance(error, ModelHTTPError) and (error.status_code in RETRY_STATUSES or error.status_code >= 500)


def wait_before(retry: int, retry_after: float | None) -> float:
    """Seconds before retry number `retry` (1 = the first)."""
    if retry_after is not None and 0 < retry_after <= RETRY_AFTER_MAX:
        return retry_after
    return min(INITIAL_WAIT * 2 ** (retry - 1), MAX_WAIT) * (1 - 0.25 * random.random())
