"""The one place that stands between pydantic-ai and the openai client: how a chat request's body is made.

pydantic-ai calls the client's `chat.completions.create`, which walks every message dict against its
type annotations and then encodes the whole body, on every request. pydantic-ai already builds plain
JSON-ready dicts, and a turn's request starts with the previous request's very dicts
(agent.provider.prefix.join), so this module takes the call over on the client pydantic-ai is given:
the body is encoded here (`BodyEncoder`: each message once, its bytes kept for the next request) and
sent with the client's public `post`, as the SDK's own create would send it (same path, stream class,
auth). `python bench/overhead.py` prints what it saves (`sdk_transform_*` against `sdk_untransformed_*`,
and the client side of a real request, `request_client_side_*`). No public hook of pydantic-ai or the
SDK does it, so nothing else in the project touches the client.

The wrap is also where a run's RequestContext (agent.provider.prefix) reaches the request: the
recorded request put in front (`join`), the request recorded for the compaction, a priming run
stopped before it is sent.

If a dependency upgrade moves the call (pydantic-ai building its own client, or calling another
method), the context left in `extra_body` cannot be encoded and every request fails at once, and
tests/agent/provider/test_sdk_seam.py fails: never a silent fall-back to the slow path.
"""

from __future__ import annotations

import inspect
import json
from typing import TYPE_CHECKING, Any

from agent.provider.prefix import CONTEXT_KEY, RequestContext, join

if TYPE_CHECKING:
    from openai import AsyncOpenAI

# The arguments of create that are the request's options, not its body (as the SDK splits them).
_OPTIONS = ("extra_headers", "extra_query", "extra_body", "timeout")


class SeamBroken(RuntimeError):
    """The openai client no longer has the call this module takes over, as it takes it over."""


def send_untransformed(client: AsyncOpenAI) -> None:
    """Make `client`'s chat.completions.create send pydantic-ai's request as built, encoded once per message."""
    completions = client.chat.completions
    params = inspect.signature(completions.create).parameters
    if not {"messages", "extra_body", "tools", "stream"} <= params.keys() or not hasattr(client, "post"):
        raise SeamBroken(
            f"openai's chat.completions.create takes {sorted(params)}: agent/provider/sdk_seam.py "
            "sends its messages, tools, stream and extra_body through the client's post"
        )
    encoder = BodyEncoder()

    async def create_untransformed(**kwargs: Any) -> Any:
        from openai import AsyncStream, NotGiven, Omit
        from openai.types.chat import ChatCompletion, ChatCompletionChunk

        given = {k: v for k, v in kwargs.items() if not isinstance(v, Omit | NotGiven)}
        extra = dict(given.get("extra_body") or {})
        context: RequestContext | None = extra.pop(CONTEXT_KEY, None)
        body = {k: v for k, v in given.items() if k not in _OPTIONS}
        body.update(extra)  # as the SDK merges extra_body over the body
        body["messages"] = join(list(body.get("messages") or []), body.get("tools"), context)
        if context is not None and context.recorder is not None:
            context.recorder.record(body["messages"], body.get("tools"), priming=context.priming)
        # The options create would give the request (bearer auth: the SDK's own create asks for it).
        options: dict[str, Any] = {"headers": given.get("extra_headers") or {}, "security": {"bearer_auth": True}}
        if given.get("extra_query"):
            options["params"] = given["extra_query"]
        if "timeout" in given:
            options["timeout"] = given["timeout"]
        stream = bool(body.get("stream"))
        return await client.post(
            "/chat/completions",
            cast_to=ChatCompletion,
            content=encoder.encode(body),
            options=options,
            stream=stream,
            stream_cls=AsyncStream[ChatCompletionChunk],
        )

    completions.create = create_untransformed  # type: ignore[method-assign]


def dumps(obj: Any) -> bytes:
    """JSON as the SDK encodes a body (httpx's defaults: no ASCII escaping, no spaces, no NaN)."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


# Stands for the messages array while the rest of the body is encoded; a user's text cannot hold it
# as is: JSON escapes the NUL characters.
_MARK = "\x00messages\x00"
_MARK_JSON = b'"\\u0000messages\\u0000"'


class BodyEncoder:
    """Encodes request bodies; remembers the previous request's message bytes by identity. A JSON
    array is its items' encodings joined by commas, so the body is the same bytes as encoded whole."""

    def __init__(self) -> None:
        self._last: dict[int, tuple[dict[str, Any], bytes]] = {}

    def encode(self, body: dict[str, Any]) -> bytes:
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            return dumps(body)
        last, kept = self._last, {}
        parts = []
        for message in messages:
            hit = last.get(id(message))
            encoded = hit[1] if hit is not None and hit[0] is message else dumps(message)
            kept[id(message)] = (message, encoded)
            parts.append(encoded)
        rest = dumps({**body, "messages": _MARK})
        if rest.count(_MARK_JSON) != 1:  # the mark elsewhere in the body: encode it whole
            return dumps(body)
        self._last = kept
        return rest.replace(_MARK_JSON, b"[" + b",".join(parts) + b"]")
