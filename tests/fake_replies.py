"""What the fake OpenAI server answers: scripted reply kinds and the smart default.

The smart default drives the agent by hand without a model: `read <path>`, `run <command>`,
`write <path> <text>`, `edit <path> <old> <new>`, `todo a; [>] b; [x] c`, `fetch <url>`, `task <job>`
and `tasks <job> | <job>` become tool calls, a tool result gets a short "Done" line, `slow` streams
slowly, the compaction prompt gets a summary, anything else an echo.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agent.tokens import count as tokens


@dataclass
class Text:
    content: str
    reasoning: str | None = None
    chunks: int | list[str] | None = None  # how many deltas to stream, or the deltas themselves
    finish: str = "stop"  # "length": cut off at max_tokens


@dataclass
class ToolCalls:
    calls: list[tuple[str, dict[str, Any] | str]]  # (name, args dict or raw JSON string)
    content: str = ""
    reasoning: str | None = None


@dataclass
class Error:
    status: int
    message: str
    headers: dict[str, str] = field(default_factory=dict)
    code: str | None = None


@dataclass
class CutStream:
    """Stream `after_chunks` deltas of `content`, then drop the connection without [DONE]."""

    content: str
    after_chunks: int = 2


@dataclass
class Malformed:
    """A body that is not valid JSON, or an SSE event that is not."""


@dataclass
class Slow:
    content: str
    delay_per_chunk: float = 0.1
    chunks: int = 40


@dataclass
class Hang:
    """Answer nothing for `seconds`, or until the test sets `release`, then `then` (the smart
    default if None). Stopping the server ends every hang."""

    seconds: float
    then: Any = None
    release: threading.Event | None = None


@dataclass
class Empty:
    """No content and no tool calls."""


Reply = Text | ToolCalls | Error | CutStream | Malformed | Slow | Hang | Empty
ReplyLike = Reply | Callable[[dict[str, Any]], Any]

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "insufficient_balance",
    404: "not_found_error",
    422: "invalid_request_error",
    429: "rate_limit_error",
}


def split_text(text: str, n: int) -> list[str]:
    """`text` in about `n` pieces, cut at word starts where possible."""
    if n <= 1 or len(text) <= 1:
        return [text]
    words = re.findall(r"\S+\s*|\s+", text)
    if len(words) < n:
        size = max(1, -(-len(text) // n))
        return [text[i : i + size] for i in range(0, len(text), size)]
    per = -(-len(words) // n)
    return ["".join(words[i : i + per]) for i in range(0, len(words), per)]


# ---- The smart default ----


def _text_of(content: Any) -> str:
    return "\n".join(tokens.content_texts(content))


def _tool_names(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    out = {}
    for tool in body.get("tools") or []:
        fn = tool.get("function", tool)
        out[fn.get("name", "")] = fn.get("parameters") or {}
    return out


def _arg_name(schema: dict[str, Any], hints: tuple[str, ...], default: str) -> str:
    """The tool's own parameter name for an argument, so the default works with any tool schema."""
    props = list((schema.get("properties") or {}).keys())
    for hint in hints:
        for prop in props:
            if hint in prop.lower():
                return prop
    return default


_COMMANDS = re.compile(r"\b(read|run|write|edit|todo|fetch|tasks|task)\s+(\S.*)", re.S)
# `todo a; [>] b; [x] c`: a task list, an item's mark giving its status (none: pending).
_TODO_MARKS = {"[>]": "in_progress", "[x]": "completed"}


def _todo_items(rest: str) -> list[dict[str, str]]:
    items = []
    for piece in rest.splitlines()[0].split(";"):
        mark = piece.strip()[:3]
        status = _TODO_MARKS.get(mark, "pending")
        content = piece.strip()[3:] if mark in _TODO_MARKS else piece
        items.append({"content": content.strip(), "status": status})
    return items


def _tool_call_from_text(text: str, tools: dict[str, dict[str, Any]]) -> ToolCalls | None:
    match = _COMMANDS.search(text)
    if not match:
        return None
    verb, rest = match.group(1), match.group(2).strip()
    name = {
        "read": "read_file",
        "run": "run_command",
        "write": "write_file",
        "edit": "edit_file",
        "todo": "todo",
        "fetch": "fetch_url",
        "task": "task",
        "tasks": "task",
    }[verb]
    if name not in tools:
        return None
    if verb in ("task", "tasks"):
        # `task <job>` hands one job to a sub-agent; `tasks <job> | <job>` several at once.
        jobs = [job.strip() for job in rest.split("|")] if verb == "tasks" else [rest]
        return ToolCalls([(name, {"description": job[:30], "prompt": job}) for job in jobs if job])
    if verb == "todo":
        return ToolCalls([(name, {"items": _todo_items(rest)})])
    schema = tools[name]
    path_key = _arg_name(schema, ("path", "file"), "path")
    if verb == "read":
        args = {path_key: rest.split()[0]}
    elif verb == "fetch":
        if not rest.startswith(("http://", "https://")):
            return None  # "fetch the config" is prose: only `fetch <url>` is the cue
        args = {"url": rest.split()[0]}
    elif verb == "run":
        args = {_arg_name(schema, ("command", "cmd"), "command"): rest.splitlines()[0]}
    elif verb == "write":
        path, _, content = rest.partition(" ")
        args = {path_key: path, _arg_name(schema, ("content", "text"), "content"): content}
    else:
        words = rest.split()
        if len(words) < 3:
            return None
        args = {
            path_key: words[0],
            _arg_name(schema, ("old",), "old_string"): words[1],
            _arg_name(schema, ("new",), "new_string"): words[2],
        }
    return ToolCalls([(name, args)])


def _summary(messages: list[dict[str, Any]]) -> Text:
    users = [_text_of(m.get("content")) for m in messages if m.get("role") == "user"]
    users = [u for u in users if not ("<analysis>" in u and "<summary>" in u)]
    files = []
    for m in messages:
        for call in m.get("tool_calls") or []:
            try:
                args = json.loads(call["function"]["arguments"] or "{}")
            except (ValueError, KeyError, TypeError):
                continue
            if isinstance(args, dict) and isinstance(args.get("path"), str) and args["path"] not in files:
                files.append(args["path"])
    first = users[0] if users else "(none)"
    lines = [
        "<analysis>draft</analysis>",
        "<summary>",
        f"1. Primary Request and Intent: {first}",
        "2. Key Technical Concepts: none recorded",
        "3. Files and Code Sections: " + (", ".join(files) if files else "none"),
        "4. Errors and fixes: none",
        "5. All user messages:",
        *[f"   - {u}" for u in users],
        "6. Pending Tasks: none",
        f'7. Current Work: answering "{users[-1] if users else ""}"',
        "8. Optional Next Step: none",
        "</summary>",
    ]
    return Text("\n".join(lines), chunks=4)


def smart_reply(body: dict[str, Any]) -> Reply:
    """What the server says when nothing is scripted: enough to drive the agent by hand."""
    messages = body.get("messages") or []
    last = messages[-1] if messages else {}
    tools = {} if body.get("tool_choice") == "none" else _tool_names(body)
    if last.get("role") == "tool":
        # Name the tool whose call this answers, from the assistant turn before it.
        name = "tool"
        for m in reversed(messages):
            for call in m.get("tool_calls") or []:
                if call.get("id") == last.get("tool_call_id"):
                    name = call["function"]["name"]
            if m.get("role") == "assistant":
                break
        return Text(f"Done: {name} returned {len(_text_of(last.get('content')))} characters.")
    text = _text_of(last.get("content")) if last.get("role") == "user" else ""
    if "<analysis>" in text and "<summary>" in text:
        return _summary(messages)
    if tools and (call := _tool_call_from_text(text, tools)):
        return call
    if "slow" in text:
        story = " ".join(f"Slow answer part {i} of 40." for i in range(1, 41))
        return Slow(story, delay_per_chunk=0.15, chunks=40)
    reasoning = "The user wants an echo; I will echo." if "think" in text else None
    return Text(f"Echo: {text}", reasoning=reasoning, chunks=4)
