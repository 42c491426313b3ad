"""The one place that reaches into the openai client: pydantic-ai's messages go out as `extra_body`.

The SDK's `chat.completions.create` walks every message dict against its type annotations before
sending: 1.16 s at 1,000 messages and 7.9 s at 8,000, on every request (the figure
`request_client_side_*_without_the_seam` of bench/overhead.py). pydantic-ai already builds plain
JSON-ready dicts, so the same messages passed as `extra_body` (which the SDK merges into the JSON
body as is) make the same body without that walk. No public hook of pydantic-ai or the SDK does it,
so this module wraps `create` on the client pydantic-ai is given, and nothing else does.

The wrap is also where a run's RequestContext (agent.provider.prefix) reaches the request: the
recorded request put in front (`join`), the request recorded for the compaction, a priming run
stopped before it is sent.

If a dependency upgrade moves the call (pydantic-ai building its own client, or calling another
method), the context left in `extra_body` cannot be encoded and every request fails at once, and
tests/test_sdk_seam.py fails: never a silent fall-back to the slow path.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any

from agent.provider.prefix import CONTEXT_KEY, RequestContext, join

if TYPE_CHECKING:
    from openai import AsyncOpenAI


class SeamBroken(RuntimeError):
    """The openai client no longer has the call this module wraps, as it wraps it."""


def send_untransformed(client: AsyncOpenAI) -> None:
    """Make `client` send pydantic-ai's messages untransformed, and honour each run's RequestContext."""
    completions = client.chat.completions
    create = completions.create
    params = inspect.signature(create).parameters
    if not {"messages", "extra_body", "tools"} <= params.keys():
        raise SeamBroken(f"openai's chat.completions.create takes {sorted(params)}: agent/provider/sdk_seam.py "
                         "wraps its messages, tools and extra_body")

    async def create_untransformed(*, messages: Any, extra_body: dict[str, Any] | None = None, **kwargs: Any) -> Any:
        body = dict(extra_body or {})
        context: RequestContext | None = body.pop(CONTEXT_KEY, None)
        body["messages"] = join(list(messages), kwargs.get("tools"), context)
        if context is not None and context.recorder is not None:
            context.recorder.record(body["messages"], kwargs.get("tools"), priming=context.priming)
        return await create(messages=[], extra_body=body, **kwargs)

    completions.create = create_untransformed  # type: ignore[method-assign]
