"""A subfolder's own memory file (`AGENTS.md`, or `CLAUDE.md` where it has none), as Claude Code loads
it: not at start, but when the model reads a file below that folder. Its text (and what it imports)
comes with that read's answer, framed as the folder's instructions; the answer's metadata names the
files it carries, so the history itself says which are loaded.

The instructions (system prompt) stay byte-identical: a file loaded mid-session as part of a tool's
answer costs its own tokens only, where a changed system prompt would make the provider read the whole
history again uncached. A compaction keeps them (`kept`, called once where the compaction builds the
new history): a cleared answer gets its memory back, and one that was summarised comes back as a read
of the file after the summary. A history fitted to the window may lose one; the next read there brings
it back.

A project's memory file is someone else's text: read confined to the workspace, regular files only,
cut at the memory files' limit, and it only ever becomes text the model reads.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.events import Notice
from agent.text.i18n import t

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

    from agent.state.app import AppState

NESTED_KEY = "memory_files"  # in a tool answer's metadata: the workspace-relative memory files it carries
_OPEN = '<memory-file path="{path}">'
_CLOSE = "</memory-file>"


def folders_between(workspace: Path, target: Path) -> list[Path]:
    """The folders from just below `workspace` down to `target`'s own, top first: their memory files
    are not in the instructions (those come from the workspace and above)."""
    try:
        parts = target.parent.relative_to(workspace).parts
    except ValueError:
        return []
    return [workspace.joinpath(*parts[: n + 1]) for n in range(len(parts))]


def block(path: str, text: str, lang: str) -> str:
    """The framed text a memory file adds to an answer; `path` relative to the workspace."""
    from agent.text.prompts import load_prompt

    folder = str(Path(path).parent)
    intro = load_prompt("nested_memory", lang).format(path=path, folder=folder)
    return f"{_OPEN.format(path=path)}\n{intro}\n\n{text}\n{_CLOSE}"


def _memory_parts(history: Sequence[ModelMessage]) -> list[Any]:
    from pydantic_ai.messages import ModelRequest, ToolReturnPart

    return [
        part
        for message in history
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, ToolReturnPart) and isinstance((part.metadata or {}).get(NESTED_KEY), list)
    ]


def _carried(part: Any) -> list[str]:
    return [p for p in part.metadata[NESTED_KEY] if isinstance(p, str)]


def present(history: Sequence[ModelMessage]) -> set[str]:
    """The memory files whose text the history still holds (a cleared answer holds none)."""
    found = set()
    for part in _memory_parts(history):
        content = part.content if isinstance(part.content, str) else repr(part.content)
        found.update(p for p in _carried(part) if _OPEN.format(path=p) in content)
    return found


def loaded(history: Sequence[ModelMessage]) -> list[str]:
    """Every memory file the history has carried, in the order they came."""
    return list(dict.fromkeys(p for part in _memory_parts(history) for p in _carried(part)))


def _read(workspace: Path, folder: Path) -> list[tuple[str, str]]:
    """(relative path, text) of `folder`'s memory file and what it imports, confined to the workspace."""
    from agent.tools import memory_files
    from agent.tools.memory_imports import Importer

    memory = memory_files.folder_file(folder, workspace)
    if memory is None:
        return []
    found = [(memory.path, memory.text)]
    importer = Importer(workspace, memory_files.MEMORY_LIMIT, {memory.path.resolve()})
    found += [(each.path, each.text) for each in importer.expand(memory.path, memory.text, True)]
    return [(str(path.relative_to(workspace)), text) for path, text in found if path.is_relative_to(workspace)]


def for_read(state: AppState, target: Path, step: str) -> list[tuple[str, str]]:
    """The memory files a read of `target` brings that the history does not hold yet; `step` names the
    model's request whose calls are running (two reads side by side load a file once)."""
    workspace = state.workspace.resolve()
    folders = folders_between(workspace, target)
    if not folders:
        return []
    found = [pair for folder in folders for pair in _read(workspace, folder)]
    if not found:
        return []
    key, pending = state.scratch.nested_pending
    if key != step:
        pending = set()
        state.scratch.nested_pending = (step, pending)
    have = present(state.history) | pending
    new = [(path, text) for path, text in found if path not in have]
    pending.update(path for path, _ in new)
    return new


def attach(state: AppState, target: Path, answer: Any, step: str) -> Any:
    """read_file's `answer` with the memory files a read of `target` brings, or `answer` as it was."""
    from pydantic_ai import ToolReturn

    new = for_read(state, target, step)
    if not new:
        return answer
    for path, _text in new:
        state.emit(Notice(t("nested_memory_loaded", state.lang, path=path), "dim"))
    blocks = "\n\n".join(block(path, text, state.lang) for path, text in new)
    value = f"{answer}\n\n{blocks}" if isinstance(answer, str) else [*answer, blocks]
    return ToolReturn(return_value=value, metadata={NESTED_KEY: [path for path, _ in new]})


# --- after a compaction ----------------------------------------------------------------------


def kept(
    old: Sequence[ModelMessage], new: list[ModelMessage], workspace: Path, lang: str, at: int
) -> list[ModelMessage]:
    """`new` (a compaction's history of `old`) with every memory file `old` carried: re-read now and
    put back on its cleared answer, or, summarised away, as a read of the file at index `at` (after
    the summary; 0: there is no summary, and the next read there brings it back)."""
    from agent.tools.memory_files import MEMORY_LIMIT, read_confined

    workspace = workspace.resolve()
    missing = [p for p in loaded(old) if p not in present(new)]
    if not missing:
        return new
    # Each as it is now (an imported file is listed on its own); one deleted since is not put back.
    texts = {
        path: text.strip()
        for path in missing
        if (text := read_confined(workspace / path, workspace, MEMORY_LIMIT)) and text.strip()
    }
    new, placed = _refill(new, texts, lang)
    rest = [path for path in missing if path in texts and path not in placed]
    if not rest or at <= 0:
        return new
    return [*new[:at], *_read_messages(rest, texts, lang), *new[at:]]


def _refill(history: list[ModelMessage], texts: dict[str, str], lang: str) -> tuple[list[ModelMessage], set[str]]:
    """The cleared answers that carried a memory file, with its text after their placeholder."""
    import dataclasses

    from pydantic_ai.messages import ModelRequest, ToolReturnPart

    placed: set[str] = set()
    result = list(history)
    for index, message in enumerate(result):
        if not isinstance(message, ModelRequest):
            continue
        parts = list(message.parts)
        for n, part in enumerate(parts):
            if not isinstance(part, ToolReturnPart) or not isinstance((part.metadata or {}).get(NESTED_KEY), list):
                continue
            back = [p for p in _carried(part) if p in texts and p not in placed]
            if back and isinstance(part.content, str):
                blocks = "\n\n".join(block(p, texts[p], lang) for p in back)
                parts[n] = dataclasses.replace(part, content=f"{part.content}\n\n{blocks}")
                placed.update(back)
        if parts != list(message.parts):
            result[index] = dataclasses.replace(message, parts=parts)
    return result, placed


def _read_messages(paths: list[str], texts: dict[str, str], lang: str) -> list[ModelMessage]:
    """A read_file call of the memory files and its answer, with an id made of their text (two
    compactions that restore the same files send the same bytes)."""
    from pydantic_ai.messages import ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart

    from agent.tools.mentions import stable_id

    content = "\n\n".join(block(path, texts[path], lang) for path in paths)
    call_id = stable_id(paths[0], content)  # also how /context tells a restored read from the model's
    return [
        ModelResponse(parts=[ToolCallPart("read_file", {"path": paths[0]}, tool_call_id=call_id)]),
        ModelRequest(parts=[ToolReturnPart("read_file", content, tool_call_id=call_id, metadata={NESTED_KEY: paths})]),
    ]
