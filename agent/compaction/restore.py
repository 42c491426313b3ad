"""The files a summary brings back: the newest read, read again into the rebuilt history.

At most five within their budget, newest first, as @-mentions are (a read_file call and its answer
per file, by path, ids made of the path and the text: two compactions that restore the same files
send the same bytes). A file that is gone is skipped. One the kept tail already shows (a read there
gives its text now, or it was read whole there and changed since only by the agent's own edits,
which the tail holds too) counts as one of the five and is registered as read, but is not sent again.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from operator import itemgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from agent.compaction.rebuild import is_cleared
from agent.marks import is_error_text
from agent.state.file_state import ReadFileState
from agent.text.i18n_tools import is_reference
from agent.tokens import count as tokens

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

    from agent.state.app import AppState

T = TypeVar("T")
RESTORE_MAX_FILES = 5


def restore_files(state: AppState, new_read: ReadFileState, budget: int, tail: Sequence[ModelMessage]) -> list:
    """The messages that restore the files, each read registered in `new_read`."""
    from agent.tools.answers import ToolError
    from agent.tools.mentions import read_messages
    from agent.tools.reading import read_for_model

    texts, reads = shown_reads(tail)
    old, workspace = state.read_file_state, state.workspace
    whole = {Path(workspace, path).resolve(): is_whole for path, is_whole in reads}

    def readable() -> Any:  # newest first, each read only when it is wanted
        for path in reversed(old.paths()):
            read = ReadFileState()
            try:
                content = read_for_model(str(path), workspace, read)
            except ToolError:
                continue
            shown = (isinstance(content, str) and content in texts) or \
                (whole.get(Path(path).resolve(), False) and old.check_fresh(Path(path)) is None)
            name = str(Path(path).relative_to(workspace)) if Path(path).is_relative_to(workspace) else str(path)
            yield (name, content, read, shown), 0 if shown else tokens.count_text(content)

    picked = choose_restored(readable(), budget)
    for _name, _content, read, _shown in picked:
        new_read.merge(read)
    sent = sorted(((name, content) for name, content, _read, shown in picked if not shown), key=itemgetter(0))
    return [m for name, content in sent for m in read_messages([(name, content)], stable_ids=True)]


def choose_restored(newest_first: Iterable[tuple[T, int]], budget: int, max_files: int = RESTORE_MAX_FILES) -> list[T]:
    """From (file, tokens) pairs newest first: at most `max_files` within `budget`; one that does not
    fit is skipped and older ones may still fit. In their read order. No pair is taken after the
    last file is chosen (each is read as it is taken)."""
    picked: list[T] = []
    used = 0
    pairs = iter(newest_first)
    while len(picked) < max_files and (pair := next(pairs, None)) is not None:
        if used + pair[1] <= budget:
            picked.append(pair[0])
            used += pair[1]
    return picked[::-1]


def shown_reads(tail: Sequence[ModelMessage]) -> tuple[set[str], list[tuple[str, bool]]]:
    """What the kept tail shows of the files: the read_file answers by text, and every read in order
    as (path as the call wrote it, whether it was whole and its answer is still there)."""
    calls = {p.tool_call_id: p for m in tail if m.kind == "response" for p in m.parts
             if p.part_kind == "tool-call" and p.tool_name == "read_file"}
    texts: set[str] = set()
    reads: list[tuple[str, bool]] = []
    for part in (p for m in tail if m.kind == "request" for p in m.parts if p.part_kind == "tool-return"):
        call = calls.get(part.tool_call_id)
        args: dict[str, Any] = call.args_as_dict() if call is not None else {}
        if not isinstance(args.get("path"), str):
            continue
        answer = part.content if isinstance(part.content, str) else None
        there = answer is not None and not is_error_text(answer) and not is_cleared(answer) and \
            not is_reference(answer)
        if there:
            texts.add(answer)
        reads.append((args["path"], there and set(args) == {"path"}))  # whole: the defaults
    return texts, reads
