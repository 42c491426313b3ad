"""The recorded sessions of the probe evaluation (bench/probe_sessions/*.toml) as agent histories.

A session file holds the project's files as they were at its start, the steps of the session (a user
message, a tool call with its result, an assistant answer) and the probes asked after it. A read's
result is the file as the session's edits left it at that step, numbered as read_file shows it; an edit
or a write changes the file, so the workspace at the end is what the session made of it.

    user = "..."                                   a user message
    call = "read_file", path = "..."               tool calls; `think` (the reasoning DeepSeek sends
    call = "edit_file", path, old, new                back on a tool turn) and `say` (text before the
    call = "write_file", path, content                call) are optional; `result` overrides the
    call = "run_command", command, result             result the step would get
    call = "grep", pattern, result
    say = "..."                                    an assistant answer

A probe: kind (recall, artifact, continuation, decision), question, facts (what a right answer holds,
each checked as written), answer (where one right answer exists: scored exactly), stale (values the
session replaced: an answer holding one is out of date).
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SESSIONS = Path(__file__).resolve().parent / "probe_sessions"
KINDS = ("recall", "artifact", "continuation", "decision")


@dataclass
class Probe:
    kind: str
    question: str
    facts: list[str]
    answer: str = ""
    stale: list[str] = field(default_factory=list)


@dataclass
class Session:
    name: str
    lang: str
    title: str
    messages: list[Any]  # pydantic-ai ModelMessages
    files: dict[str, str]  # the workspace at the session's end
    reads: list[str]  # paths read, oldest first (what a compaction restores from)
    probes: list[Probe]


def numbered(text: str) -> str:
    return "\n".join(f"{n:6}\t{line}" for n, line in enumerate(text.splitlines(), 1))


def _result(step: dict[str, Any], files: dict[str, str]) -> tuple[dict[str, Any], str]:
    """The call's arguments and its result, the workspace changed as the call changes it."""
    call = step["call"]
    if call == "read_file":
        return {"path": step["path"]}, step.get("result") or numbered(files[step["path"]])
    if call == "edit_file":
        path, old, new = step["path"], step["old"], step["new"]
        if path in files or "result" not in step:  # a file the session does not ship needs its result
            if old not in files[path]:
                raise ValueError(f"edit of {path}: the old text is not in the file")
            files[path] = files[path].replace(old, new, 1)
        return {"path": path, "old_string": old, "new_string": new}, step.get("result") or f"Edited {path}."
    if call == "write_file":
        files[step["path"]] = step["content"]
        lines = len(step["content"].splitlines())
        return {"path": step["path"], "content": step["content"]}, step.get(
            "result"
        ) or f"Wrote {step['path']} ({lines} lines)."
    if call == "run_command":
        return {"command": step["command"]}, step["result"]
    if call == "grep":
        return {"pattern": step["pattern"], "path": step.get("path", ".")}, step["result"]
    raise ValueError(f"unknown call {call!r}")


def messages_of(steps: list[dict[str, Any]], files: dict[str, str], tag: str) -> tuple[list[Any], list[str]]:
    from pydantic_ai.messages import (
        ModelRequest,
        ModelResponse,
        TextPart,
        ThinkingPart,
        ToolCallPart,
        ToolReturnPart,
        UserPromptPart,
    )

    out: list[Any] = []
    reads: list[str] = []
    for i, step in enumerate(steps):
        if "user" in step:
            out.append(ModelRequest(parts=[UserPromptPart(step["user"])]))
        elif "call" in step:
            args, result = _result(step, files)
            call_id = f"call_{tag}_{i:03d}"
            parts: list[Any] = [ThinkingPart(step.get("think") or f"I will use {step['call']}.")]
            if step.get("say"):
                parts.append(TextPart(step["say"]))
            parts.append(ToolCallPart(step["call"], json.dumps(args, ensure_ascii=False), tool_call_id=call_id))
            out.append(ModelResponse(parts=parts, finish_reason="tool_call"))
            out.append(ModelRequest(parts=[ToolReturnPart(step["call"], result, tool_call_id=call_id)]))
            if step["call"] == "read_file":
                reads = [p for p in reads if p != step["path"]] + [step["path"]]
        elif "say" in step:
            out.append(ModelResponse(parts=[TextPart(step["say"])], finish_reason="stop"))
        else:
            raise ValueError(f"step {i}: neither user, call nor say")
    return out, reads


def load(path: Path) -> Session:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    files = dict(data.get("files", {}))
    messages, reads = messages_of(data["steps"], files, path.stem.replace("-", "_"))
    probes = [
        Probe(p["kind"], p["question"], list(p["facts"]), p.get("answer", ""), list(p.get("stale", [])))
        for p in data["probes"]
    ]
    said = session_text(messages).lower()
    for p in probes:
        if p.kind not in KINDS or not p.facts or (p.answer and p.answer not in p.facts):
            raise ValueError(f"{path.name}: probe {p.question!r}: a kind of {KINDS}, facts, and the answer among them")
        if unsaid := [f for f in p.facts + p.stale if f.lower() not in said]:
            raise ValueError(f"{path.name}: probe {p.question!r}: {unsaid} never said in the session")
    return Session(path.stem, data["lang"], data["title"], messages, files, reads, probes)


def session_text(messages: list[Any]) -> str:
    """Everything the session said: messages, tool arguments and results."""
    from pydantic_ai.messages import TextPart, ToolCallPart, ToolReturnPart, UserPromptPart

    texts = []
    for m in messages:
        for part in m.parts:
            if isinstance(part, TextPart | UserPromptPart):
                texts.append(str(part.content))
            elif isinstance(part, ToolCallPart):
                texts.extend(str(v) for v in part.args_as_dict().values())
            elif isinstance(part, ToolReturnPart):
                texts.append(part.model_response_str())
    return "\n".join(texts)


def all_sessions(names: list[str] | None = None) -> list[Session]:
    paths = sorted(SESSIONS.glob("*.toml"))
    if names:
        paths = [p for p in paths if p.stem in names]
    return [load(p) for p in paths]
