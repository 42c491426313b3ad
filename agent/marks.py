"""How a history marks the agent's own messages and a tool's failures: the rules every part reads.

A compaction's summary, the user messages it carries, a note where messages were left out, an
@-mention's read and a tool's failed answer reach the model as ordinary messages; a metadata key or
a text prefix tells them apart for us (the session's title, the user messages a summary carries,
what a fit to the window keeps together, the files a summary lists as changed).
"""

from __future__ import annotations

import json
from typing import Any

# A summary message: the summary as the model wrote it (its text is the summary message's whole).
SUMMARY_KEY = "compact_summary"
# A request the agent wrote itself: "carried" (the user messages that open a rebuilt history) or
# "left_out" (a note where messages were left out to fit the window).
NOTE_KEY = "agent_note"
CARRIED = "carried"
# An @-mention's read_file call and answer, placed before the user's message.
MENTION_KEY = "mention"
# A hook's text sent to the model as its own message (agent.tools.hooks writes it): never the user's words.
HOOK_KEY = "hook"
# A tool's answer that reports a failure starts so (not pydantic-ai's ToolFailed: the sessions on
# disk hold failures as text, and an OpenAI-compatible model would get them wrapped in JSON).
ERROR_PREFIX = "Error: "


def is_agent_note(metadata: object) -> bool:
    """Whether a request with this metadata (a message's, or its JSON's) is the agent's own."""
    return isinstance(metadata, dict) and (metadata.get(NOTE_KEY) is not None or metadata.get(SUMMARY_KEY) is not None)


def summary_text(message: Any) -> str | None:
    """The summary a summary message carries, as the model wrote it; None for any other message."""
    text = (getattr(message, "metadata", None) or {}).get(SUMMARY_KEY)
    return text if isinstance(text, str) else None


def is_summary(message: Any) -> bool:
    """Whether `message` is a compaction's own text: its summary, or the carried user messages that
    open the rebuilt history; never the user's words."""
    metadata = getattr(message, "metadata", None) or {}
    return isinstance(metadata.get(SUMMARY_KEY), str) or metadata.get(NOTE_KEY) == CARRIED


def is_mention(message: Any) -> bool:
    """Whether `message` is part of an @-mention's read (the call or its answer)."""
    return bool((getattr(message, "metadata", None) or {}).get(MENTION_KEY))


def is_error_text(answer: str) -> bool:
    """Whether a tool's answer reports a failure."""
    return answer.startswith(ERROR_PREFIX)


def is_hook_message(message: Any) -> bool:
    """Whether `message` carries a hook's text (not the user's words)."""
    return bool((getattr(message, "metadata", None) or {}).get(HOOK_KEY))


def read_key(args: dict[str, Any]) -> str:
    """What a read_file call asked for (the path as written, the first line, the line count): two
    calls with the same key read the same lines."""
    return json.dumps([args.get("path"), args.get("offset", 1), args.get("limit")], default=str)
