"""A request's JSON body, with the messages it shares with the previous request not encoded again.

A turn's request starts with the last request's message dicts, the same objects (agent.provider.prefix.join).
The SDK encodes the whole body every time: at ~1M tokens that is ~30 ms of each request, the largest
part of the client's time once pydantic-ai only builds the new tail. Here each message is encoded on
its own, with the SDK's settings (`openapi_dumps`), and kept until the next request, whose shared
messages reuse their bytes. A JSON array is its items' encodings joined by commas, so the body is
the same byte for byte (tests/test_request_body.py and tests/test_turn_reuse.py check it).
"""

from __future__ import annotations

from typing import Any

# Stands for the messages array while the rest of the body is encoded; a user's text cannot hold it
# as is: JSON escapes the NUL characters.
_MARK = "\x00messages\x00"
_MARK_JSON = b'"\\u0000messages\\u0000"'


class BodyEncoder:
    """Encodes request bodies; remembers the previous request's message bytes by identity."""

    def __init__(self) -> None:
        self._last: dict[int, tuple[dict[str, Any], bytes]] = {}

    def encode(self, body: dict[str, Any]) -> bytes | None:
        """The body as the SDK would encode it, or None when it has no messages list to share."""
        from openai._utils._json import openapi_dumps

        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            return None
        last, kept = self._last, {}
        parts = []
        for message in messages:
            hit = last.get(id(message))
            if hit is not None and hit[0] is message:
                encoded = hit[1]
            else:
                encoded = openapi_dumps(message)
            kept[id(message)] = (message, encoded)
            parts.append(encoded)
        rest = openapi_dumps({**body, "messages": _MARK})
        if rest.count(_MARK_JSON) != 1:
            return None
        self._last = kept
        return rest.replace(_MARK_JSON, b"[" + b",".join(parts) + b"]")
