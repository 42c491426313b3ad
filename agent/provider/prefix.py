"""The last request as sent, reused as the start of the compaction request.

A compaction request is the last request, what came after it, and the prompt (agent.compaction.summarizer).
Sent through pydantic-ai as a whole, it costs ~0.5 s of CPU at 10,000 messages before a byte
goes out (bench/compaction_time.py): pydantic-ai prepares and maps every message of the history
on every request. The last request's messages, as the JSON-ready dicts the openai client got,
already exist. We keep them and let pydantic-ai build only what follows them; the model client
(agent.provider.model) joins the two. The start of the compaction request is then the previous request's
bytes exactly, which is also what the provider's prefix cache holds.

Ordinary turns do the same (`reuse`): a turn whose history starts with the last request's messages
gives pydantic-ai only what follows them, and every request of the run starts with that request's
bytes, so a request at 10,000 messages costs about what one at 100 does (bench/overhead.py).

When the history no longer starts with the messages that request was built from (/clear, /undo,
the cheap tier, a shortened request), the whole request goes through pydantic-ai as before.

A session resumed near the threshold has sent nothing yet, and its first turn would compact. The
warm-up (agent.turn.warmup, in a worker thread while the user types) has pydantic-ai build the request
its history makes, records it and sends nothing: `priming_run`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar, Token
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


class RequestRecorder:
    """Pairs each agent request's history (told by the guard) with the messages the client sends."""

    def __init__(self) -> None:
        self._pending: list[Any] | None = None
        self.last: SentRequest | None = None
        # The request a turn in progress joins onto (`reuse`).
        self.joined: SentRequest | None = None

    def expect(self, history: list[Any]) -> None:
        self._pending = history

    def record(self, messages: list[dict[str, Any]], tools: Any) -> None:
        """Called by the client with each request; in a priming run, raises `Primed` instead of sending."""
        pending, self._pending = self._pending, None
        if _PRIMING.get():
            if pending is not None and messages and messages[-1] == {"role": "user", "content": PRIME_PROMPT}:
                self.last = SentRequest(pending, messages[:-1], tools)
            raise Primed
        if pending is not None:
            self.last = SentRequest(pending, messages, tools)

    def forget(self) -> None:
        for sent in (self.last, self.joined):
            if sent is not None:
                sent.stale = True
        self._pending = self.last = self.joined = None

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
_PRIMING: ContextVar[bool] = ContextVar("priming", default=False)
# Set while a compaction's summary requests run: the guard, the recorder and the tools look at it.
_SUMMARIZING: ContextVar[bool] = ContextVar("summarizing", default=False)


@contextmanager
def summary_requests() -> Iterator[None]:
    """Requests made inside are a compaction's: not recorded, not guarded, their tool calls not run."""
    token = _SUMMARIZING.set(True)
    try:
        yield
    finally:
        _SUMMARIZING.reset(token)


def summarizing() -> bool:
    return _SUMMARIZING.get()
# True inside a turn that joins onto the last request (`reuse`); a compaction request sets it False.
_LENIENT: ContextVar[bool] = ContextVar("lenient_join", default=False)
# Set for one request of a joining turn that must go out as given (a history fitted to the window
# for this request only, agent.turn.guard): the recorded messages must not be put in front of it.
_WHOLE: ContextVar[bool] = ContextVar("request_given_whole", default=False)


def send_whole(whole: bool) -> None:
    """Whether the next request of this run goes out as pydantic-ai built it (see `join`). Set before
    every turn request: pydantic-ai carries a hook's context changes on to the rest of the run."""
    _WHOLE.set(whole)


@contextmanager
def joined_onto(sent: SentRequest | None) -> Iterator[None]:
    """Requests made inside start with `sent`'s messages (see `join`); with None, pydantic-ai's
    messages go as they are, even inside a turn that joins onto an earlier request (`reuse`)."""
    token, lenient, whole = _JOIN.set(sent), _LENIENT.set(False), _WHOLE.set(False)
    try:
        yield
    finally:
        _WHOLE.reset(whole)
        _LENIENT.reset(lenient)
        _JOIN.reset(token)


def join(messages: list[dict[str, Any]], tools: Any) -> list[dict[str, Any]]:
    """`messages` with the recorded request put in front, inside `joined_onto`; else unchanged.

    pydantic-ai was given only the messages after the recorded ones, so it built the system
    message(s) and then those: the system messages must equal the recorded ones, and so must the
    tools, or the result would not be the request pydantic-ai would have built."""
    sent = _JOIN.get()
    if sent is None or sent.stale or _WHOLE.get():
        return messages
    if tools != sent.tools:
        raise PrefixMismatch("the tools differ from the recorded request")
    lead, old = _lead(messages), _lead(sent.messages)
    # pydantic-ai adds system messages when something in the history needs them (the preamble for a
    # <system> frame of a retry, the note about text that looks like a frame). Built from the whole
    # history they come first; built from the tail they stand inside it. The whole history has one
    # if either part has it: the fuller set goes first, and none inside.
    body = [m for m in messages[lead:] if m.get("role") not in _SYSTEM]
    extras = [m for m in messages[lead:] if m.get("role") in _SYSTEM]
    wanted = extras + messages[:lead]
    merged = _fuller(wanted, sent.messages[:old])
    if merged is None:
        if not _LENIENT.get():
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


def reuse(recorder: RequestRecorder, history: list[Any]) -> tuple[list[Any], tuple[Token, Token] | None]:
    """For an ordinary turn: the messages to give pydantic-ai, and the join to end with `end_reuse`.

    When `history` starts with the last request's messages, pydantic-ai gets only what follows them
    and every request of the run starts with that request's bytes (see `join`): at 10,000 messages
    it would otherwise prepare and map the whole history again for each request."""
    sent = recorder.covering(history)
    if sent is None or not sent.history or len(history) <= len(sent.history):
        return list(history), None
    recorder.joined = sent
    _WHOLE.set(False)  # what an earlier run's last request set (agent.turn.guard) is not this turn's
    return list(history[len(sent.history) :]), (_JOIN.set(sent), _LENIENT.set(True))


def end_reuse(tokens: tuple[Token, Token] | None) -> None:
    if tokens is not None:
        _LENIENT.reset(tokens[1])
        _JOIN.reset(tokens[0])


def priming() -> bool:
    return _PRIMING.get()


@contextmanager
def priming_run() -> Iterator[None]:
    """Requests made inside are recorded and never sent: the client raises `Primed` (agent.turn.warmup)."""
    token = _PRIMING.set(True)
    try:
        yield
    finally:
        _PRIMING.reset(token)
