"""The last request as sent, reused as the start of the compaction request.

A compaction request is the last request, what came after it, and the prompt (agent.summarizer).
Sent through pydantic-ai as a whole, it costs ~0.5 s of CPU at 10,000 messages before a byte
goes out (bench/compaction_time.py): pydantic-ai prepares and maps every message of the history
on every request. The last request's messages, as the JSON-ready dicts the openai client got,
already exist. We keep them and let pydantic-ai build only what follows them; the model client
(agent.model) joins the two. The start of the compaction request is then the previous request's
bytes exactly, which is also what the provider's prefix cache holds.

When the history no longer starts with the messages that request was built from (a resume, /clear,
/undo, the cheap tier, a shortened request), the whole request goes through pydantic-ai as before.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any


class PrefixMismatch(Exception):
    """The joined request would not match the recorded one (other instructions or tools)."""


@dataclass
class SentRequest:
    history: list[Any]  # our history (ModelMessages) the request was built from
    messages: list[dict[str, Any]]  # its messages as sent
    tools: Any


class RequestRecorder:
    """Pairs each agent request's history (told by the guard) with the messages the client sends."""

    def __init__(self) -> None:
        self._pending: list[Any] | None = None
        self.last: SentRequest | None = None

    def expect(self, history: list[Any]) -> None:
        self._pending = history

    def record(self, messages: list[dict[str, Any]], tools: Any) -> None:
        if self._pending is not None:
            self.last = SentRequest(self._pending, messages, tools)
            self._pending = None

    def forget(self) -> None:
        self._pending = self.last = None

    def covering(self, history: Sequence[Any]) -> SentRequest | None:
        """The last request, if `history` starts with the very messages it was built from."""
        last = self.last
        if last is None or not starts_with(history, last.history):
            return None
        return last


def starts_with(history: Sequence[Any], prefix: Sequence[Any]) -> bool:
    """Identity, not equality: the same message objects, so nothing was replaced or edited."""
    return len(history) >= len(prefix) and all(a is b for a, b in zip(prefix, history, strict=False))


_JOIN: ContextVar[SentRequest | None] = ContextVar("join_onto", default=None)


@contextmanager
def joined_onto(sent: SentRequest) -> Iterator[None]:
    """Requests made inside start with `sent`'s messages (see `join`)."""
    token = _JOIN.set(sent)
    try:
        yield
    finally:
        _JOIN.reset(token)


def join(messages: list[dict[str, Any]], tools: Any) -> list[dict[str, Any]]:
    """`messages` with the recorded request put in front, inside `joined_onto`; else unchanged.

    pydantic-ai was given only the messages after the recorded ones, so it built the system
    message(s) and then those: the system messages must equal the recorded ones, and so must the
    tools, or the result would not be the request pydantic-ai would have built."""
    sent = _JOIN.get()
    if sent is None:
        return messages
    lead = 0
    while lead < len(messages) and messages[lead].get("role") in ("system", "developer"):
        lead += 1
    if messages[:lead] != sent.messages[:lead] or tools != sent.tools:
        raise PrefixMismatch("the instructions or tools differ from the recorded request")
    return sent.messages + messages[lead:]


def joining() -> bool:
    return _JOIN.get() is not None
