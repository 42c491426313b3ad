"""Build the pydantic-ai model for DeepSeek or any OpenAI-compatible endpoint."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from agent.config import Config

if TYPE_CHECKING:
    from pydantic_ai.models import Model

# The openai client retries 408/409/429/5xx and connection errors with exponential backoff and
# honours Retry-After; three retries bound the wait to well under a minute.
MAX_RETRIES = 3


def max_retries() -> int:
    return int(os.environ.get("CODING_AGENT_MAX_RETRIES", MAX_RETRIES))


def request_timeout() -> float:
    return float(os.environ.get("CODING_AGENT_TIMEOUT", "300"))


def build_model(config: Config) -> Model:
    from openai import AsyncOpenAI
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.deepseek import DeepSeekProvider
    from pydantic_ai.providers.openai import OpenAIProvider

    client = AsyncOpenAI(
        base_url=config.endpoint,
        # Local servers take no key; the client insists on a string.
        api_key=config.api_key or "no-key",
        max_retries=max_retries(),
        timeout=request_timeout(),
    )
    # DeepSeek's profile knows its quirks (reasoning_content sent back on tool turns, max_tokens).
    if config.model.startswith("deepseek"):
        provider = DeepSeekProvider(openai_client=client)
    else:
        provider = OpenAIProvider(openai_client=client)
    return OpenAIChatModel(config.model, provider=provider)
