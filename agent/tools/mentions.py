"""@path mentions in the user's input become a read_file call and its answer in the history.

The model then sees the file exactly as if it had read it itself, and may edit it straight
away. Compaction uses the same messages to give back the files the model was working on.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
import uuid
from collections.abc import Collection, Sequence
from pathlib import Path

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart

from agent.marks import MENTION_KEY
from agent.state.app import AppState
from agent.state.file_state import ReadFileState
from agent.text.i18n import t
from agent.tokens.count import count_text
from agent.tools import images
from agent.tools.answers import ToolError
from agent.tools.read_cap import read_token_cap
from agent.tools.reading import continues_at, read_for_model, readable_roots
from agent.tools.workspace import PathError, resolve_path

# "@" at the start or after whitespace, so "a@b.com" is not a mention.
_MENTION = re.compile(r"(?:^|(?<=\s))@(\S+)")
# Punctuation that ends a sentence rather than a path: "look at @main.py, then ...".
_TRAILING = ".,;:!?)]}'\""


def find_mentions(text: str, servers: Collection[str] = ()) -> list[str]:
    """The paths mentioned as @path in `text`, in order, without duplicates; `@server:uri` of one of
    `servers` is an MCP resource (agent.tools.mcp_offers), not a path."""
    paths = (m.group(1).rstrip(_TRAILING) for m in _MENTION.finditer(text))
    return list(dict.fromkeys(p for p in paths if p and p.partition(":")[0] not in servers))


def build_mention_messages(
    paths: Sequence[str],
    state: AppState,
    read_file_state: ReadFileState | None = None,
    pasted: Sequence[str] = (),
    named: Sequence[str] = (),
    room: int = 0,
) -> tuple[list[ModelMessage], list[str]]:
    """A read_file call and its answer for every readable file (an image as an image), and a notice
    for each one skipped; then the images whose paths were pasted (agent.tools.images.pasted_paths),
    and those a project file named (a command's body: confined to the workspace like the model's reads).
    The files are attached whole while they fit `room` tokens together (the user asked for them: the
    compaction of what came before makes the room), the rest in parts, as read_file's cap cuts them.

    The files are recorded in `read_file_state` (default: the session's).
    """
    if read_file_state is None:  # not `or`: an empty ReadFileState is falsy
        read_file_state = state.read_file_state
    reads: list[tuple[str, str | list]] = []
    notices: list[str] = []
    for path in paths:
        try:
            image = images.read_image(path, state.workspace, state.config, readable_roots(state.workspace))
            text = None if image is not None else _whole_or_part(path, state, read_file_state, room)
            room -= 0 if text is None else count_text(text)
            reads.append((path, image if image is not None else text))
        except images.ImageError as exc:
            notices.append(t("image_not_attached", state.lang, why=exc))
        except ToolError as exc:
            where = Path(path).expanduser()
            folder = (where if where.is_absolute() else state.workspace / where).is_dir()
            why = "mention_dir" if folder else "mention_skipped"
            notices.append(t(why, state.lang, path=path.rstrip("/"), why=exc))
    for path in pasted:
        # Typed or dropped by the user (a screenshot in /tmp): theirs to send, inside the workspace or not.
        try:
            reads.append((path, images.load(Path(path).expanduser(), path, state.config)))
        except (images.ImageError, OSError) as exc:
            notices.append(t("image_not_attached", state.lang, why=exc))
    for path in named:
        try:
            target = resolve_path(
                str(Path(path).expanduser()), state.workspace, readable_roots=readable_roots(state.workspace)
            )
            if images.is_image_file(target):
                reads.append((path, images.load(target, path, state.config)))
        except (PathError, images.ImageError, OSError) as exc:
            notices.append(t("image_not_attached", state.lang, why=exc))
    return [
        dataclasses.replace(m, metadata={**(m.metadata or {}), MENTION_KEY: True}) for m in read_messages(reads)
    ], notices


async def attachments(
    state: AppState,
    text: str,
    reads: ReadFileState,
    pasted: Sequence[str] = (),
    named: Sequence[str] = (),
    room: int = 0,
) -> tuple[list[ModelMessage], list[str]]:
    """What the user's message attaches: the files it mentions, the images pasted or named (as
    build_mention_messages reads them, whole within `room` tokens), then its `@server:uri` MCP resources
    (agent.tools.mcp_offers)."""
    from agent.tools import mcp_offers

    messages, notices = build_mention_messages(
        find_mentions(text, state.mcp.servers), state, read_file_state=reads, pasted=pasted, named=named, room=room
    )
    resources, unread = await mcp_offers.mention_messages(state, text)
    return messages + resources, notices + unread


def _whole_or_part(path: str, state: AppState, read_file_state: ReadFileState, room: int) -> str:
    """The file whole when it fits `room`, else its first part and where to go on (read_file's cap)."""
    cap = read_token_cap(state.config.context_window)
    if room > cap:
        whole = ReadFileState()
        text = read_for_model(path, state.workspace, whole, max_tokens=room)
        if continues_at(text) is None:
            read_file_state.merge(whole)
            return text
    return read_for_model(path, state.workspace, read_file_state, max_tokens=cap)


def pinned_files(state: AppState, paths: Sequence[str]) -> dict[str, str]:
    """Each pinned file's text as read now, confined as read_file's reads are; one that cannot be read
    is left out (the pins message names it as unreadable)."""
    found = {}
    for path in paths:
        try:
            found[path] = read_for_model(
                path, state.workspace, ReadFileState(), max_tokens=read_token_cap(state.config.context_window)
            )
        except ToolError:
            continue
    return found


def attached_labels(prelude: Sequence[ModelMessage], lang: str) -> list[str]:
    """ "@path" for each attachment, and the lines sent of one attached in parts: the user sees that
    the model got its first part (it reads on with offset), not the whole file."""
    parts = {
        p.tool_call_id: continues_at(p.content)
        for m in prelude
        if isinstance(m, ModelRequest)
        for p in m.parts
        if isinstance(p, ToolReturnPart) and isinstance(p.content, str)
    }
    labels = []
    for m in prelude:
        for p in m.parts if isinstance(m, ModelResponse) else ():
            if isinstance(p, ToolCallPart):
                args = p.args_as_dict()  # a file's read, or an MCP resource's (agent.tools.mcp_offers)
                path = f"@{args['path']}" if "path" in args else f"@{args.get('server')}:{args.get('uri')}"
                upto = parts.get(p.tool_call_id)
                labels.append(path if upto is None else t("attached_part", lang, path=path, last=upto - 1))
    return labels


def read_messages(reads: Sequence[tuple[str, str | list]], stable_ids: bool = False) -> list[ModelMessage]:
    """One response calling read_file for each (path, content), and one request with the answers.
    `stable_ids`: each call's id made of its path and text, not random (a compaction's restored
    files: the same read renders the same bytes in the next rebuilt history)."""
    if not reads:
        return []
    calls: list[ToolCallPart] = []
    returns: list[ToolReturnPart] = []
    for path, content in reads:
        call_id = stable_id(path, content) if stable_ids else f"call_{uuid.uuid4().hex[:24]}"
        calls.append(ToolCallPart("read_file", {"path": path}, tool_call_id=call_id))
        returns.append(ToolReturnPart("read_file", content, tool_call_id=call_id))
    return [ModelResponse(parts=calls), ModelRequest(parts=returns)]


def stable_id(path: str, content: str | list) -> str:
    """The id of a restored read of `path` giving `content`: what also tells a restored read from one
    the model made (ui.context_view)."""
    text = content if isinstance(content, str) else repr(content)
    return "call_" + hashlib.sha256(f"{path}\0{text}".encode("utf-8", "surrogatepass")).hexdigest()[:24]
