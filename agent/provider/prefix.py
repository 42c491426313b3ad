"""The last request as sent, reused as the start of the compaction request.

A compaction request is the last request, what came after it, and the prompt (agent.compaction.summarizer).
Sent through pydantic-ai as a whole, it costs ~0.5 s of CPU at 10,000 messages before a byte
goes out (bench/compaction_time.py): pydantic-ai prepares and maps every message of the history
on every request. The last request's messages, as the JSON-ready dicts the openai client got,
already exist. We keep them and let pydantic-ai build only what follows them; the model client
(agent.provider.sdk_seam) joins the two. The start of the compaction request is then the previous request's
bytes exactly, which is also what the provider's prefix cache holds.

Ordinary turns do the same (`reuse`): a turn whose history starts with the last request's messages
gives pydantic-ai only what follows them, and every request of the run starts with that request's
bytes, so a request at 10,000 messages costs about what one at 100 does (bench/overhead.py).

When the history no longer starts with the messages that request was built from (/clear, /undo,
the cheap tier, a shortened request), the whole request goes through pydantic-ai as before.

A session resumed near the threshold has sent nothing yet, and its first turn would compact. The
warm-up (agent.turn.warmup, in a worker thread while the user types) has pydantic-ai build the request
its history makes, records it and sends nothing: `RequestContext.priming`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

# The user message of a priming run; only ever built, never sent.
PRIME_PROMPT = "(next message)"


class PrefixMismatch(Exception):
    """The joined request would not match the recorded one (other instructions or tools)."""


class Primed(Exception):
    """A priming run's request was recorded; it is not sent."""


@dataclass
class SentRequest:
    history: list[Any]  # our history (ModelMessages) the request was built from
    messages: list[dict[str, Any]]  # its messages as sent
    tools: Any
    # Set when the history was replaced (a compaction mid-turn): a run that was joining onto this
    # request gets the whole new history from pydantic-ai instead.
    stale: bool = False
    primed: bool = False  # built by the warm-up, never sent (agent.turn.warmup)


class RequestRecorder:
    """Pairs each agent request's history (told by the guard) with the messages the client sends."""

    def __init__(self) -> None:
        self._pending: list[Any] | None = None
        self.last: SentRequest | None = None
        # The request a turn in progress joins onto (`reuse`).
        self.joined: SentRequest | None = None
        # Whether this process has sent a request: until then, the provider's cache holds what the
        # process before it sent (a resumed session).
        self.sent_any = False
        # The history a /compact undo put back: the compaction it undid sent it (its summary request),
        # so the provider caches it, though this process's last request held the compacted history.
        self.restored: list[Any] | None = None

    def expect(self, history: list[Any]) -> None:
        self._pending = history

    def record(self, messages: list[dict[str, Any]], tools: Any, priming: bool = False) -> None:
        """Called by the client with each request; in a priming run, raises `Primed` instead of sending."""
        pending, self._pending = self._pending, None
        if priming:
            if pending is not None and messages and messages[-1] == {"role": "user", "content": PRIME_PROMPT}:
                self.last = SentRequest(pending, messages[:-1], tools, primed=True)
            raise Primed
        self.sent_any = True
        if pending is not None:
            self.last = SentRequest(pending, messages, tools)

    def forget(self) -> None:
        for sent in (self.last, self.joined):
            if sent is not None:
                sent.stale = True
        self._pending = self.last = self.joined = None
        self.restored = None

    def covering(self, history: Sequence[Any]) -> SentRequest | None:
        """The last request, if `history` starts with the very messages it was built from."""
        last = self.last
        if last is None or not starts_with(history, last.history):
            return None
        return last


def starts_with(history: Sequence[Any], prefix: Sequence[Any]) -> bool:
    """Identity, not equality: the same message objects, so nothing was replaced or edited."""
    return len(history) >= len(prefix) and all(a is b for a, b in zip(prefix, history, strict=False))


@dataclass
class RequestContext:
    """What one run's requests tell the client beyond what pydantic-ai sends: the one channel from a
    run to the client.

    It rides in the run's model settings (`settings`: `extra_body` under CONTEXT_KEY), which pydantic-ai
    hands to the openai client's `create` as they are, and the seam (agent.provider.sdk_seam) takes it
    out before the body is sent. One object per run: a background summary and the turn beside it each
    have their own, which a per-process or per-state flag could not give them."""

    # Where the run's requests are recorded (the state's recorder); None for a compaction's requests.
    recorder: RequestRecorder | None = None
    # Put this request's messages in front of what pydantic-ai built (`join`); None sends them as built.
    join: SentRequest | None = None
    # A turn joining onto the last request (`reuse`): instructions that differ fall back to pydantic-ai's
    # messages with a note in the debug log, where a compaction's request raises PrefixMismatch.
    lenient: bool = False
    # Set by the turn's guard before each request: this one goes out as given (a history fitted to the
    # window for this request only), with nothing put in front of it.
    whole: bool = False
    # A priming run (agent.turn.warmup): its request is recorded and never sent (`Primed`).
    priming: bool = False


# The key of `extra_body` that carries the RequestContext to the seam; never sent.
CONTEXT_KEY = "__coding_agent_request_context__"


def settings(context: RequestContext, base: dict[str, Any] | None = None) -> dict[str, Any]:
    """Model settings for a run whose requests carry `context` (merged over `base`, the run's own)."""
    base = dict(base or {})
    base["extra_body"] = {**(base.get("extra_body") or {}), CONTEXT_KEY: context}
    return base


def join(messages: list[dict[str, Any]], tools: Any, context: RequestContext | None) -> list[dict[str, Any]]:
    """`messages` with `context`'s recorded request put in front; else unchanged.

    pydantic-ai was given only the messages after the recorded ones, so it built the system
    message(s) and then those: the system messages must equal the recorded ones, and so must the
    tools, or the result would not be the request pydantic-ai would have built."""
    sent = context.join if context is not None else None
    if sent is None or sent.stale or context.whole:
        return messages
    if tools != sent.tools and not context.lenient:
        # A turn's tools may differ from the last request's (an MCP server came up or went away):
        # the messages do not depend on them. A compaction's request must match whole.
        raise PrefixMismatch("the tools differ from the recorded request")
    lead, old = _lead(messages), _lead(sent.messages)
    # pydantic-ai adds system messages when something in the history needs them (the preamble for a
    # <system> frame of a retry, the note about text that looks like a frame). Built from the whole
    # history they come first; built from the tail they stand inside it. The whole history has one
    # if either part has it: the fuller set goes first, and none inside. Where pydantic-ai puts them
    # is its own choice: tests/agent/provider/test_turn_reuse.py fails loudly if it changes (the joined request must
    # be the bytes pydantic-ai builds from the whole history).
    body = [m for m in messages[lead:] if m.get("role") not in _SYSTEM]
    extras = [m for m in messages[lead:] if m.get("role") in _SYSTEM]
    wanted = extras + messages[:lead]
    merged = _fuller(wanted, sent.messages[:old])
    if merged is None:
        if not context.lenient:
            raise PrefixMismatch("the instructions differ from the recorded request")
        from agent import debuglog

        debuglog.log("turn_join_mismatch", built=len(wanted), recorded=old)
        merged = wanted
    return merged + sent.messages[old:] + body


_SYSTEM = ("system", "developer")


def _lead(messages: list[dict[str, Any]]) -> int:
    lead = 0
    while lead < len(messages) and messages[lead].get("role") in _SYSTEM:
        lead += 1
    return lead


def _fuller(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    """The one of two system leads that contains the other, if one does."""
    if all(m in b for m in a):
        return b
    if all(m in a for m in b):
        return a
    return None


def reuse(recorder: RequestRecorder, history: list[Any]) -> tuple[list[Any], RequestContext]:
    """For an ordinary turn: the messages to give pydantic-ai, and the run's request context.

    When `history` starts with the last request's messages, pydantic-ai gets only what follows them
    and every request of the run starts with that request's bytes (see `join`): at 10,000 messages
    it would otherwise prepare and map the whole history again for each request."""
    context = RequestContext(recorder)
    sent = recorder.covering(history)
    if sent is None or not sent.history or len(history) <= len(sent.history):
        return list(history), context
    recorder.joined = sent
    context.join, context.lenient = sent, True
    return list(history[len(sent.history) :]), context
