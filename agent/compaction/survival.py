"""What a compaction keeps and what it drops, counted on the rebuilt history itself: the check that
the task survived (the newest request, the open items of the task list, the files edited), with a
short fixed section for what the summary left out, and the report of what was dropped.

The newest request counts as held when the summary or the kept tail quotes it: the list of carried
user messages is the record of the past, and a summary whose "current work" is an older task would
have the model resume that one. Pure: values in, values out.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from agent.compaction.rebuild import is_cleared
from agent.compaction.summary import sections, user_messages
from agent.tokens import count as tokens

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

# The newest request is quoted in the task section up to this many characters: the list of carried
# user messages holds it whole, and a long paste quoted twice could leave the result not smaller.
TASK_QUOTE_CHARS = 600


def texts(messages: Sequence[ModelMessage]) -> str:
    """Every text the messages hold, whitespace folded: what "held verbatim" is checked against."""
    found: list[str] = []
    for message in messages:
        for part in message.parts:
            if part.part_kind == "tool-call":
                found += [str(v) for v in part.args_as_dict().values()]
            elif isinstance(content := getattr(part, "content", None), str):
                found.append(content)
    return " ".join(" ".join(found).split())


def _held(text: str, flat: str) -> bool:
    return " ".join(text.split()) in flat


# --- the task --------------------------------------------------------------------------------------


@dataclass
class TaskGaps:
    """What the rebuilt history would not say of the task: the newest request, open items, files."""

    request: str = ""
    todos: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.request or self.todos or self.files)


def task_gaps(history: Sequence[ModelMessage], summary: str, rest: Sequence[ModelMessage],
              open_items: Sequence[str], edited: Collection[str]) -> TaskGaps:
    """What of the task neither the summary nor `rest` (what follows it: the task list, the restored
    files, the kept tail, the list of files changed) holds verbatim."""
    flat_summary, flat_rest = " ".join(summary.split()), texts(rest)
    newest = (user_messages(history) or [""])[-1]
    both = flat_summary + " " + flat_rest
    return TaskGaps(
        newest if newest and not _held(newest, flat_summary) and not _held(newest, flat_rest) else "",
        [item for item in open_items if not _held(item, both)],
        sorted(path for path in edited if path not in both),
    )


def task_section(gaps: TaskGaps, lang: str) -> str:
    """The short fixed section added after a summary that left part of the task out."""
    words = sections(lang)
    lines = [f"## {words['task_title']}"]
    if gaps.request:
        cut = len(gaps.request) - TASK_QUOTE_CHARS
        lines += [words["task_request"], gaps.request[:TASK_QUOTE_CHARS] + (
            " " + words["cut"].format(n=cut) if cut > 0 else "")]
    if gaps.todos:
        lines += [words["task_todos"], *(f"- {item}" for item in gaps.todos)]
    if gaps.files:
        lines += [words["task_files"], *(f"- {path}" for path in gaps.files)]
    return "\n".join(lines)


# --- what was dropped ------------------------------------------------------------------------------


def dropped(history: Sequence[ModelMessage], rebuilt: Sequence[ModelMessage], files_read: Sequence[str],
            files_kept: Collection[str]) -> dict:
    """What `history` held that `rebuilt` does not: tool results gone or cleared (by tool, and their
    tokens), files read that were not restored, the user's messages no longer held verbatim (only the
    archive has them). A plain dict: it goes to the hooks, -p's JSON and the stats as it is."""
    now = {p.tool_call_id: p for m in rebuilt if m.kind == "request" for p in m.parts
           if p.part_kind == "tool-return"}
    by_tool: dict[str, int] = {}
    gone_tokens = 0
    for message in history:
        for part in message.parts if message.kind == "request" else ():
            if part.part_kind != "tool-return" or is_cleared(text := part.model_response_str()):
                continue
            kept = now.get(part.tool_call_id)
            if kept is None or (is_cleared(kept.model_response_str())):
                by_tool[part.tool_name] = by_tool.get(part.tool_name, 0) + 1
                gone_tokens += tokens.count_text(text)
    flat = texts(rebuilt)
    users = [u for u in user_messages(history) if not _held(u, flat)]
    return {"tool_results": dict(sorted(by_tool.items(), key=lambda kv: -kv[1])),
            "tool_result_tokens": gone_tokens,
            "files_not_restored": [f for f in files_read if f not in files_kept],
            "user_messages_archived": len(users)}
