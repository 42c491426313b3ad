"""Text that can be encoded, whatever the model or the file system handed us.

A model may stream a lone surrogate ("\\udcff" is valid JSON), and a file name that is not UTF-8
reaches us as one (surrogateescape). Python strings hold it, but nothing can encode it: saving the
session, counting tokens and sending the next request all failed, on that turn and on every turn
after, since the message stayed in the history. So every message is cleaned in place when the
agent first sees it (before each request, before it is saved, when a session file is loaded),
each lone surrogate becoming U+FFFD, the replacement character; what was saved or loaded is
clean, so only the messages after it are looked at again (a whole history of 8,000 was 100 ms
a turn: bench/overhead.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")
REPLACEMENT = "\ufffd"


def clean(text: str) -> str:
    """`text` with each lone surrogate replaced, or `text` itself when there is none (the common case)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub(REPLACEMENT, text)
    return text


def clean_value(value: Any) -> Any:
    """`value` (a string, or lists and dicts of them, as tool arguments and results are) cleaned."""
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, list):
        return [clean_value(v) for v in value]
    if isinstance(value, dict):
        return {clean_value(k): clean_value(v) for k, v in value.items()}
    return value


def clean_messages(messages: Iterable[Any]) -> None:
    """Clean the text fields of every part of `messages`, in place (pydantic-ai's run holds the
    same part objects, so its next request is built from the cleaned ones)."""
    for message in messages:
        for part in getattr(message, "parts", ()):
            for name in ("content", "args"):
                value = getattr(part, name, None)
                if isinstance(value, str | list | dict) and (cleaned := clean_value(value)) != value:
                    setattr(part, name, cleaned)  # pydantic-ai's parts are mutable dataclasses
