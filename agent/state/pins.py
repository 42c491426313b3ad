"""Pins: what the user keeps verbatim through every compaction (/pin text, /pin @path, /pin #N).

The pins live in the history itself: each change appends one message holding the whole list (its
text for the model, the list in metadata), so the session file keeps them and --continue finds them,
and the provider's cache is only appended to. A compaction puts one such message back after the
summary, a pinned file read again from disk. Only a slash command makes one: no tool can, so the
model cannot pin.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from agent.marks import NOTE_KEY
from agent.text.prompts import load_prompt

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage, ModelRequest

PINS = "pins"  # the message's NOTE_KEY (the agent's own note, never the user's words) and its list's key


@dataclass(frozen=True)
class Pin:
    kind: str  # "text", "file" (`text` is the path as the user wrote it) or "message" (a user message)
    text: str


def is_pins(message: Any) -> bool:
    return (getattr(message, "metadata", None) or {}).get(NOTE_KEY) == PINS


def pins_of(history: Sequence[ModelMessage]) -> list[Pin]:
    """The pins now: the newest pins message's list (none before the first)."""
    for message in reversed(history):
        if is_pins(message):
            items = (message.metadata or {}).get(PINS) or []
            return [Pin(str(i.get("kind")), str(i.get("text"))) for i in items if isinstance(i, dict)]
    return []


def pins_message(pins: Sequence[Pin], files: Mapping[str, str], lang: str) -> ModelRequest:
    """The message that carries `pins` to the model; `files`: each pinned file's text as read now
    (a file missing from it is named as unreadable)."""
    from pydantic_ai.messages import ModelRequest, UserPromptPart

    lines = [load_prompt("pins", lang)]
    words = dict(line.split(": ", 1) for line in load_prompt("pins_words", lang).splitlines())
    for n, pin in enumerate(pins, start=1):
        if pin.kind == "file":
            body = files.get(pin.text)
            lines.append(
                f"{n}. "
                + (
                    words["file"].format(path=pin.text) + f"\n{body}"
                    if body is not None
                    else words["file_gone"].format(path=pin.text)
                )
            )
        else:
            lines.append(f"{n}. {pin.text}")
    if not pins:
        lines = [words["none"]]
    return ModelRequest(
        parts=[UserPromptPart(content="\n\n".join(lines))], metadata={NOTE_KEY: PINS, PINS: [asdict(p) for p in pins]}
    )
