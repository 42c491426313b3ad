"""An unchanged re-read answered by reference: when read_file would give exactly the text the latest
earlier read of the same lines gave, and that answer is still in the context the model is sent, the
model gets a short note naming it instead of the text again.

The comparison is of the text itself (what the model would be shown), so a file changed by anyone,
even with its size and time kept, is read out in full; so is one whose earlier answer was cleared or
compacted away (it is no longer in the run's messages). Claude Code, pydantic-ai-harness's
DeduplicateFileReads and Qwen Code answer unchanged re-reads so. What rewrites the history later
(clearing, a compaction, a fit to the window) keeps each note next to its read or gives it back as a
cleared result (agent.compaction.rebuild.anchored).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from agent.marks import read_key
from agent.text.i18n import t
from agent.text.i18n_tools import is_reference

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage


def reference(sources: Sequence[Sequence[ModelMessage]], call_id: str | None, text: str, path: str, lang: str) -> str:
    """`text`, or the note that the latest read of the same lines gave the same text (a note is not a
    read: the text it points to is). The context is the first of `sources` that holds this call: the
    session's history (a run is given only what follows the requests already sent), else the run's
    own messages (a sub-agent's)."""
    for messages in sources:
        calls = {
            p.tool_call_id: p
            for m in messages
            if m.kind == "response"
            for p in m.parts
            if p.part_kind == "tool-call" and p.tool_name == "read_file"
        }
        if call_id and call_id in calls:
            return _reference(messages, calls, call_id, text, path, lang)
    return text


def _reference(
    messages: Sequence[ModelMessage], calls: dict[str, Any], call_id: str, text: str, path: str, lang: str
) -> str:
    this = calls[call_id]
    key, latest = read_key(this.args_as_dict()), None
    for message in messages:
        if message.kind != "request":
            continue
        for part in message.parts:
            if part.part_kind != "tool-return" or part.tool_call_id == call_id:
                continue
            earlier: Any = calls.get(part.tool_call_id)
            if (
                earlier is not None
                and read_key(earlier.args_as_dict()) == key
                and not (isinstance(part.content, str) and is_reference(part.content))
            ):
                latest = part.content
    return t("read_unchanged", lang, path=path) if latest == text else text
