"""A refusal for length, in the words of the servers people run models on, and the context size it
names.

DeepSeek and OpenAI answer `context_length_exceeded` (pydantic-ai's ModelContextWindowExceededError);
the local servers each have their own words:
- llama.cpp: 400 `{"type": "exceed_context_size_error", "n_prompt_tokens": 4650, "n_ctx": 4096}`;
- vLLM: "This model's maximum context length is 4096 tokens. However, you requested ..." or "... is
  longer than the maximum model length of 4096";
- Ollama (when it does not silently cut): "the input length exceeds the context length";
- LM Studio: "... the model is loaded with context length of only 4096 tokens ..." or "... greater
  than the context length (n_keep: 13055>= n_ctx: 4096)".
"""

from __future__ import annotations

import re

_WORDS = re.compile(
    r"exceed_context_size|exceeds? the available context size|maximum context length|maximum model length"
    r"|exceeds? the context length|input exceeds context length|context length of only|context the overflows"
    r"|greater than the context length|exceeds context length|context_length_exceeded|too long",
    re.I,
)
# The server's context size, in the order of how sure each wording is.
_N_CTX = (
    re.compile(r"\bn_ctx\W{1,4}(\d+)"),
    re.compile(r"maximum context length is (\d+)", re.I),
    re.compile(r"maximum model length of (\d+)", re.I),
    re.compile(r"context length of only (\d+)", re.I),
    re.compile(r"exceeds context length (\d+)", re.I),
)
# The refused prompt's size: "you requested 19170 tokens (19170 in the messages, 0 in the completion)"
# (OpenAI, DeepSeek, vLLM), "your messages resulted in 19170 tokens" (OpenAI), "n_prompt_tokens": 19170
# (llama.cpp).
_PROMPT = (
    re.compile(r"\((\d+) in the messages"),
    re.compile(r"messages resulted in (\d+) tokens"),
    re.compile(r"requested (\d+) tokens"),
    re.compile(r"n_prompt_tokens\W+(\d+)"),
    re.compile(r"prompt (?:is|has|contains) (\d+) tokens"),
)


def error_text(exc: BaseException) -> str:
    body = getattr(exc, "body", None)
    return f"{body or ''} {getattr(exc, 'message', '') or ''}"


def is_too_long(exc: BaseException) -> bool:
    """Whether `exc` is an endpoint's refusal of a request longer than its context."""
    from pydantic_ai.exceptions import ModelContextWindowExceededError, ModelHTTPError

    if isinstance(exc, ModelContextWindowExceededError):
        return True
    return (
        isinstance(exc, ModelHTTPError) and exc.status_code in (400, 413, 500) and bool(_WORDS.search(error_text(exc)))
    )


def server_window(exc: BaseException) -> int | None:
    """The context size the refusal names (llama.cpp's n_ctx, vLLM's maximum length), if any."""
    text = error_text(exc)
    for pattern in _N_CTX:
        match = pattern.search(text)
        if match and int(match.group(1)) > 0:
            return int(match.group(1))
    return None


def prompt_count(exc: BaseException) -> int | None:
    """The server's count of the refused request's prompt, if its error gives one."""
    text = f"{error_text(exc)} {exc}"
    for pattern in _PROMPT:
        if match := pattern.search(text):
            return int(match.group(1))
    return None
