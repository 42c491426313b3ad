"""Build the pydantic-ai model for DeepSeek or any OpenAI-compatible endpoint."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agent.config import Config
from agent.events import Retrying
from agent.provider.prefix import RequestRecorder, join, summarizing

if TYPE_CHECKING:
    from openai import AsyncOpenAI
    from pydantic_ai.models import Model

# The openai client retries 408/409/429/5xx and connection errors with exponential backoff and
# honours Retry-After; three retries bound the wait to well under a minute.
MAX_RETRIES = 3


def max_retries() -> int:
    return int(os.environ.get("CODING_AGENT_MAX_RETRIES", MAX_RETRIES))


def request_timeout() -> float:
    return float(os.environ.get("CODING_AGENT_TIMEOUT", "300"))


def build_model(
    config: Config,
    recorder: RequestRecorder | None = None,
    on_retry: Callable[[Retrying], None] | None = None,
) -> Model:
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.profiles import merge_profile
    from pydantic_ai.profiles.openai import OpenAIModelProfile
    from pydantic_ai.providers.deepseek import DeepSeekProvider
    from pydantic_ai.providers.openai import OpenAIProvider

    client = _client_class()(
        base_url=config.endpoint,
        # Local servers take no key; the client insists on a string.
        api_key=config.api_key or "no-key",
        max_retries=max_retries(),
        timeout=request_timeout(),
    )
    client.on_retry = on_retry
    _send_messages_untransformed(client, recorder)
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
    settings: dict[str, Any] = {}
    if not config.model.startswith("deepseek"):
        return settings
    if config.thinking is False:
        settings["thinking"] = False
    elif config.reasoning_effort:
        settings["openai_reasoning_effort"] = config.reasoning_effort
    return settings


_CLIENT: type | None = None


def _client_class() -> type[AsyncOpenAI]:
    """AsyncOpenAI that says when it is about to wait and retry, so the user sees why nothing comes."""
    global _CLIENT
    if _CLIENT is not None:
        return _CLIENT
    import asyncio

    from openai import AsyncOpenAI
    from openai._base_client import _merge_mappings

    from agent.provider.request_body import BodyEncoder

    class Client(AsyncOpenAI):
        on_retry: Callable[[Retrying], None] | None = None
        body_encoder: BodyEncoder | None = None

        # The body is encoded by agent.provider.request_body, which does not encode again the messages the
        # previous request had (the SDK would): the same bytes, without ~30 ms a request at 1M tokens.
        def _build_request(self, options: Any, *, retries_taken: int = 0) -> Any:
            if self.body_encoder is None:
                self.body_encoder = BodyEncoder()
            extra = options.extra_json
            if options.content is None and isinstance(extra, dict) and isinstance(options.json_data, dict):
                encoded = self.body_encoder.encode(_merge_mappings(options.json_data, extra))
                if encoded is not None:
                    options = options.model_copy(update={"json_data": None, "extra_json": None, "content": encoded})
            return super()._build_request(options, retries_taken=retries_taken)

        # The SDK's own retry wait (openai._base_client), with the wait told before it starts:
        # the SDK computes it with jitter, so it is computed once here and used for both.
        async def _sleep_for_retry(self, *, retries_taken: int, max_retries: int, options: Any,
                                   response: Any) -> None:
            wait = self._calculate_retry_timeout(max_retries - retries_taken, options,
                                                 response.headers if response is not None else None)
            if self.on_retry is not None:
                status = response.status_code if response is not None else None
                self.on_retry(Retrying(retries_taken + 2, max_retries + 1, wait, status))
            await asyncio.sleep(wait)

    _CLIENT = Client
    return Client


def _send_messages_untransformed(client: AsyncOpenAI, recorder: RequestRecorder | None = None) -> None:
    """Pass the messages to the SDK as `extra_body`, which it merges into the JSON body as is.

    The SDK otherwise walks every message dict against its type annotations before sending: at
    10,000 messages that took 2.4 s of every request and 3.1 s of a compaction (bench/compaction_time.py),
    against 0.1 s this way. pydantic-ai already builds plain JSON-ready dicts, so the body is the
    same byte for byte (tests/test_model.py checks it against the local server).

    Here too the recorder keeps each agent request's messages, and a compaction request gets the
    recorded ones put in front (agent.provider.prefix).
    """
    completions = client.chat.completions
    create = completions.create

    async def create_fast(*, messages: Any, extra_body: dict[str, Any] | None = None, **kwargs: Any) -> Any:
        body = dict(extra_body or {})
        body["messages"] = join(list(messages), kwargs.get("tools"))
        if recorder is not None and not summarizing():
            recorder.record(body["messages"], kwargs.get("tools"))
        return await create(messages=[], extra_body=body, **kwargs)

    completions.create = create_fast  # type: ignore[method-assign]
