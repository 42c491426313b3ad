"""Reading a chat-completions body as the server saw it: which kind of request, the texts of each
role, and whether a user's message is in it (whole, or cut with an explicit marker).

Nothing here comes from the agent: the oracle must not agree with it by construction.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

# A cut marker: a short bracketed note with a number that says text was cut or left out, in any of
# the agent's languages ("[... 1,204 characters cut ...]", "[……截去 1204 个字符……]").
_MARKER = re.compile(r"\s*\[[^\[\]\n]{0,60}?\d[^\[\]\n]{0,60}?\]")
_MARKER_WORDS = re.compile(r"cut|truncat|omit|left out|截|省略|删")
# A cut message must keep this much of its start to be recognisable as that message (the fuzzer's
# messages start with their number, "[#17] ...").
MIN_HEAD = 10


def text_of(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in content)
    return str(content)


def normal(text: str) -> str:
    return " ".join(text.split())


def is_summary_request(body: dict[str, Any]) -> bool:
    """A compaction's request: its last message is the compaction prompt (it asks for <analysis>
    and <summary>)."""
    messages = body.get("messages") or []
    last = messages[-1] if messages else {}
    text = text_of(last.get("content")) if last.get("role") == "user" else ""
    return "<analysis>" in text and "<summary>" in text


def texts(body: dict[str, Any], roles: tuple[str, ...]) -> str:
    """The normalised text of the messages of `roles`, one after the other."""
    return "\n".join(normal(text_of(m.get("content"))) for m in body.get("messages") or [] if m.get("role") in roles)


def conversation(body: dict[str, Any]) -> str:
    """Where the user's words may be: the user and system messages (not tool results, not the
    model's answers). A summary request's last message (the prompt) is left out."""
    messages = list(body.get("messages") or [])
    if is_summary_request(body):
        messages = messages[:-1]
    return texts({"messages": messages}, ("user", "system", "developer"))


def presence(message: str, blob: str) -> str | None:
    """ "whole" if the normalised `message` is in `blob`, "cut" if a start of it (MIN_HEAD characters
    or more) is, followed by a cut marker; None if neither."""
    if message in blob:
        return "whole"
    head = message[:MIN_HEAD]
    start = blob.find(head)
    while start >= 0:
        shared = len(os.path.commonprefix([blob[start : start + len(message)], message]))
        marker = _MARKER.match(blob, start + shared)
        if marker and _MARKER_WORDS.search(marker.group(0)):
            return "cut"
        start = blob.find(head, start + 1)
    return None


# A transcript the request points the model to (read_file on it is allowed): an absolute path to a
# .jsonl file. The oracle reads it as the model would, and follows the paths in it.
_ARCHIVE = re.compile(r"(/[^\s\"'\]\)]+?\.jsonl)")


class Archives:
    """The transcripts a request points to, and those they point to in turn: where a user message no
    request can hold any more must still be verbatim (the model can read it back)."""

    def __init__(self) -> None:
        self._texts: dict[str, str] = {}

    def _text(self, path: str) -> str:
        if path not in self._texts:
            try:
                lines = Path(path).read_text(encoding="utf-8").splitlines()
            except OSError:
                lines = []
            found: list[str] = []
            for line in lines:
                try:
                    _strings(json.loads(line), found)
                except ValueError:
                    continue
            self._texts[path] = "\n".join(normal(x) for x in found)
        return self._texts[path]

    def holds(self, message: str, blob: str) -> bool:
        """Whether `message` is verbatim in a transcript reachable from `blob`."""
        todo, seen = list(dict.fromkeys(_ARCHIVE.findall(blob))), set()
        while todo:
            path = todo.pop()
            if path in seen:
                continue
            seen.add(path)
            text = self._text(path)
            if message in text:
                return True
            todo.extend(p for p in dict.fromkeys(_ARCHIVE.findall(text)) if p not in seen)
        return False


def _strings(value: Any, out: list[str]) -> None:
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        for v in value.values():
            _strings(v, out)
    elif isinstance(value, list):
        for v in value:
            _strings(v, out)
