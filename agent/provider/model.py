"""Build the pydantic-ai model for DeepSeek or any OpenAI-compatible endpoint."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from agent.config import Config, is_local_url

if TYPE_CHECKING:
    from pydantic_ai.models import Model

# Seconds without a byte from the server. A CPU server sends nothing while it processes a prompt
# (llama.cpp: ~220 tokens/s on 2 cores, so a cold 40k-token prompt takes three minutes): a local
# server gets half an hour before the wait counts as a failure.
TIMEOUT, LOCAL_TIMEOUT = 300.0, 1800.0


def request_timeout(config: Config | None = None) -> float:
    default = LOCAL_TIMEOUT if config is not None and is_local(config) else TIMEOUT
    return float(os.environ.get("CODING_AGENT_TIMEOUT") or default)


# The room kept free for an ordinary answer (agent/compaction/overflow.py keeps every request under
# the window less this), which is also a local model's max_tokens.
MAX_ANSWER_ROOM = 8_192


def answer_room(window: int) -> int:
    """Tokens kept free for an ordinary answer: also the turn's max_tokens on a local server."""
    return min(MAX_ANSWER_ROOM, window // 16)


def is_local(config: Config) -> bool:
    return is_local_url(config.base_url)


def build_model(config: Config) -> Model:
    """The model, its openai client sending pydantic-ai's messages untransformed (agent.provider.sdk_seam).
    The client makes one attempt per request: the agent's Retries capability (agent.provider.retries)
    retries, and says so first."""
    from openai import AsyncOpenAI
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.profiles import merge_profile
    from pydantic_ai.profiles.openai import OpenAIModelProfile
    from pydantic_ai.providers.deepseek import DeepSeekProvider
    from pydantic_ai.providers.openai import OpenAIProvider

    from agent.provider.sdk_seam import send_untransformed

    client = AsyncOpenAI(
        base_url=config.endpoint,
        # Local servers take no key; the client insists on a string.
        api_key=config.api_key or "no-key",
        max_retries=0,
        timeout=request_timeout(config),
    )
    send_untransformed(client)
    # DeepSeek's profile knows its quirks (reasoning_content sent back on tool turns, max_tokens).
    if config.model.startswith("deepseek"):
        provider = DeepSeekProvider(openai_client=client)
        # `thinking=False` (model_settings) then sends DeepSeek's switch in the body, not an effort.
        profile = merge_profile(
            provider.model_profile(config.model),
            OpenAIModelProfile(openai_chat_thinking_false_body={"thinking": {"type": "disabled"}}),
        )
        return OpenAIChatModel(config.model, provider=provider, profile=profile)
    return OpenAIChatModel(config.model, provider=OpenAIProvider(openai_client=client))


def model_settings(config: Config) -> dict[str, Any]:
    """Thinking mode and effort, the same on every request of the session (the compaction's too)."""
    # pydantic-ai announces its frames (an image a tool returned, moved to a user message) in a system
    # message placed before the tool results of the request that holds the first one: between a tool
    # call and its result, which the APIs refuse (tests/agent/tools/test_images.py). The frames explain themselves.
    settings: dict[str, Any] = {"framing_announcement": "never"}
    if not config.model.startswith("deepseek"):
        # Without a limit a local model that loops generates until the server's own end (minutes on
        # a CPU); the room the guard keeps for the answer is also what it may write. A summary
        # request sets its own.
        settings["max_tokens"] = answer_room(config.context_window)
        return settings
    if config.thinking is False:
        settings["thinking"] = False
    elif config.reasoning_effort:
        settings["openai_reasoning_effort"] = config.reasoning_effort
    return settings
