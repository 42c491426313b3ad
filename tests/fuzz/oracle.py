"""The invariants, checked on every request the emulator received (an observer of tests.fake_openai),
from the request's body and the emulator's own count only.

  over_window           the emulator's (skewed) count of the prompt is over the window
  tool_pairing          a tool call without its result, or a result without its call
  user_messages         a message the user typed (in a turn that ran to its end) is missing from a
                        later turn request, neither whole nor cut with an explicit marker, nor
                        verbatim in a transcript the request points to (counted once per message:
                        the first request that lacks it)
  interrupted_messages  the same for a message whose turn was interrupted (Ctrl-C)
  attachments           an @-mentioned file is in none of its turn's requests, and the user was not told
  summary_without_conversation  a summary request holds none of the user's messages
  reference_without_read  a read_file answer that says the text is above (an unchanged re-read),
                        where the latest earlier answer to the same call shows no text
  crash                 an input raised out of the turn path (the REPL would print an error)
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from typing import Any

from tests.fake_rules import _tool_pairing
from tests.fuzz.requests import Archives, conversation, is_summary_request, normal, presence, text_of, texts

INVARIANTS = [
    "over_window",
    "tool_pairing",
    "user_messages",
    "interrupted_messages",
    "attachments",
    "summary_without_conversation",
    "reference_without_read",
    "crash",
]
EXAMPLES = 3  # kept per invariant, to reproduce from


@dataclass
class Typed:
    text: str  # normalised
    step: int
    interrupted: bool = False
    lost: bool = False


@dataclass
class Oracle:
    window: int
    typed: list[Typed] = field(default_factory=list)
    step: int = -1  # the input being played
    violations: dict[str, int] = field(default_factory=lambda: dict.fromkeys(INVARIANTS, 0))
    examples: dict[str, list[str]] = field(default_factory=dict)
    kinds: list[str] = field(default_factory=list)  # "turn" | "summary", per request in order
    # Per file @-mentioned in this input: its first line, and whether a request of the turn held it.
    _attached: dict[str, tuple[str, bool]] = field(default_factory=dict)
    _turn_requests: int = 0  # of this input
    # After a Ctrl-C, a request the cancelled turn had sent may reach the server after the next
    # input began: until a request holds the new message, one without it is taken for such a one.
    _after_cancel: bool = False
    _current_seen: bool = False
    declined: int = 0  # messages never sent, the user told why (refused up front)
    # Messages no longer in the requests, whole or cut, but verbatim in a transcript a request points
    # to: not lost (the model can read them back), reported apart (the small windows' figure).
    archived: set[int] = field(default_factory=set)
    _archives: Archives = field(default_factory=Archives)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    # -- what the player tells it --

    def begin(self, step: int, text: str | None, first_lines: dict[str, str]) -> None:
        """Input `step` starts; `text` is a message to the model (None for a command); `first_lines`
        the first line of each file it @-mentions."""
        with self._lock:
            self._after_cancel = any(t.interrupted and t.step == self.step for t in self.typed[-1:])
            self._current_seen = False
            self.step = step
            if text is not None:
                self.typed.append(Typed(normal(text), step))
            self._attached = {path: (normal(line), False) for path, line in first_lines.items()}
            self._turn_requests = 0

    def interrupted(self) -> None:
        with self._lock:
            if self.typed and self.typed[-1].step == self.step:
                self.typed[-1].interrupted = True

    def not_sent(self) -> None:
        """The agent declined the message up front and the user agreed (it was never sent)."""
        with self._lock:
            if self.typed and self.typed[-1].step == self.step:
                self.typed.pop()

    def end(self, told: str) -> None:
        """Input ends; `told` is what the user was warned of (warnings and errors)."""
        with self._lock:
            if self._ran_through() and self._turn_requests == 0:
                # Refused up front (too large, say): not a message of the conversation if the user
                # was told; a message that silently went nowhere is lost.
                if told:
                    self.typed.pop()
                    self.declined += 1
                else:
                    self.typed[-1].lost = True
                    self.flag("user_messages", f"step {self.step}: never sent, and the user was not told")
            for path, (_, seen) in self._attached.items():
                if not seen and path not in told and self._ran_through():
                    self.flag("attachments", f"step {self.step}: @{path} in no request of its turn")
            self._attached = {}

    def _ran_through(self) -> bool:
        """The current input is a message that was sent and not interrupted."""
        return bool(self.typed) and self.typed[-1].step == self.step and not self.typed[-1].interrupted

    def crashed(self, detail: str) -> None:
        with self._lock:
            self.flag("crash", detail)

    def flag(self, invariant: str, detail: str) -> None:
        self.violations[invariant] += 1
        shown = self.examples.setdefault(invariant, [])
        if len(shown) < EXAMPLES:
            shown.append(detail)

    # -- the observer --

    def see(self, record: dict[str, Any], body: dict[str, Any]) -> None:
        with self._lock:
            self._check(record, body)

    def _check(self, record: dict[str, Any], body: dict[str, Any]) -> None:
        summary = is_summary_request(body)
        n = len(self.kinds)
        self.kinds.append("summary" if summary else "turn")
        record["kind"] = self.kinds[-1]
        where = f"step {self.step}, request {n}"
        if record.get("counted", 0) > self.window:
            self.flag("over_window", f"{where}: {record['counted']} > {self.window} ({record['kind']})")
        if _tool_pairing(body.get("messages") or []) is not None:
            self.flag("tool_pairing", f"{where}")
        if (dangling := _reference_without_read(body.get("messages") or [])) is not None:
            self.flag("reference_without_read", f"{where}: {dangling}")
        blob = conversation(body)
        if summary:
            if self.typed and not any(presence(t.text, blob) for t in self.typed):
                self.flag("summary_without_conversation", f"{where}: none of {len(self.typed)} user messages")
            return
        self._turn_requests += 1
        for t in self.typed:
            if t.step == self.step and not self._current_seen:
                self._current_seen = presence(t.text, blob) is not None
                if self._after_cancel and not self._current_seen:
                    continue
            if not t.lost and presence(t.text, blob) is None:
                if t.step != self.step and self._archives.holds(t.text, blob):
                    self.archived.add(t.step)
                    continue
                t.lost = True  # counted once: a message lost stays lost in every later request
                kind = "interrupted_messages" if t.interrupted else "user_messages"
                self.flag(kind, f"{where}: message of step {t.step} missing: {t.text[:50]!r}")
        if self._attached and self.typed and self.typed[-1].step == self.step:
            tools = _turn_tool_results(body, self.typed[-1].text)
            for path, (line, seen) in self._attached.items():
                self._attached[path] = (line, seen or line in tools)


def _turn_tool_results(body: dict[str, Any], message: str) -> str:
    """The tool results of the turn of `message`: the ones right before it (where @-mentions go)
    and the ones after it; not an older read of the same file."""
    messages = body.get("messages") or []
    at = next(
        (
            i
            for i in range(len(messages) - 1, -1, -1)
            if messages[i].get("role") == "user" and message[:200] in normal(text_of(messages[i].get("content")))
        ),
        None,
    )
    if at is None:
        return ""
    start = at
    while (
        start > 0
        and messages[start - 1].get("role") in ("tool", "assistant")
        and (messages[start - 1].get("role") == "tool" or messages[start - 1].get("tool_calls"))
    ):
        start -= 1
    return texts({"messages": messages[start:]}, ("tool",))


def _reference_without_read(messages: list[dict[str, Any]]) -> str | None:
    """The call of the first re-read note whose same call's latest earlier answer shows no text (a
    note, a cleared placeholder, an error), or None. Read from the body as the model gets it."""
    notes = ("[Unchanged: ", "[未改动：")  # the note's start, in English and Chinese
    calls = {
        c.get("id"): c.get("function") or {}
        for m in messages
        if m.get("role") == "assistant"
        for c in m.get("tool_calls") or []
    }
    shown: dict[str, bool] = {}
    for m in messages:
        call = calls.get(m.get("tool_call_id")) if m.get("role") == "tool" else None
        if not call or call.get("name") != "read_file":
            continue
        try:
            args = json.loads(call.get("arguments") or "{}")
        except ValueError:
            continue
        key = f"{args.get('path')!r} offset={args.get('offset', 1)} limit={args.get('limit')}"
        text = m.get("content")
        text = text if isinstance(text, str) else ""
        if text.startswith(notes):
            if not shown.get(key):
                return key
        else:
            shown[key] = bool(text) and not text.startswith(("[Old tool result cleared", "[Superseded", "Error"))
    return None
