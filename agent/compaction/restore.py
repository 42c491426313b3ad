"""The rebuilt history, put together from the plan and the summary with what lives outside the
messages: the files read again, the user's pins, the task list, the images; and the report of what
it dropped, by the names the user wrote.

The files a summary brings back are the newest read, read again into the rebuilt history: at most
five within their budget, newest first, as @-mentions are (a read_file call and its answer
per file, by path, ids made of the path and the text: two compactions that restore the same files
send the same bytes). A file that is gone is skipped. One the kept tail already shows (a read there
gives its text now, or it was read whole there and changed since only by the agent's own edits,
which the tail holds too) counts as one of the five and is registered as read, but is not sent again.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Iterable, Sequence
from operator import itemgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from agent.compaction.rebuild import compacted_history, is_cleared, task_gaps, task_section
from agent.compaction.rebuild import dropped as dropped_report
from agent.compaction.summary import files_touched, head_end, summary_messages, summary_parts
from agent.compaction.watermark import RESTORE_MAX_FILES, Figures
from agent.errors import CompactCancelled, CompactError
from agent.marks import is_error_text
from agent.state.file_state import ReadFileState
from agent.state.pins import is_pins, pins_message, pins_of
from agent.text.i18n import t
from agent.text.i18n_tools import is_reference
from agent.tokens import count as tokens

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

    from agent.compaction.summary import SummaryReply
    from agent.state.app import AppState

T = TypeVar("T")


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
            shown = (isinstance(content, str) and content in texts) or (
                whole.get(Path(path).resolve(), False) and old.check_fresh(Path(path)) is None
            )
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
    calls = {
        p.tool_call_id: p
        for m in tail
        if m.kind == "response"
        for p in m.parts
        if p.part_kind == "tool-call" and p.tool_name == "read_file"
    }
    texts: set[str] = set()
    reads: list[tuple[str, bool]] = []
    for part in (p for m in tail if m.kind == "request" for p in m.parts if p.part_kind == "tool-return"):
        call = calls.get(part.tool_call_id)
        args: dict[str, Any] = call.args_as_dict() if call is not None else {}
        if not isinstance(args.get("path"), str):
            continue
        answer = part.content if isinstance(part.content, str) else None
        there = answer is not None and not is_error_text(answer) and not is_cleared(answer) and not is_reference(answer)
        if there:
            texts.add(answer)
        reads.append((args["path"], there and set(args) == {"path"}))  # whole: the defaults
    return texts, reads


# --- the rebuilt history, from the plan and the summary --------------------------------------------


def rebuilt(
    state: AppState,
    history: list[ModelMessage],
    kept: list[ModelMessage],
    figs: Figures,
    reply: SummaryReply,
    archive: str,
) -> tuple[list[ModelMessage], ReadFileState]:
    """The new history in place of `history` and its read state (nothing of `state` changes): the
    summary's messages (what of the task it left out added after it), the task list, the files
    restored, then `kept`, the tail kept verbatim."""
    from agent.tools.images import compaction_note
    from agent.tools.todo import current as todo_items
    from agent.tools.todo import restore_messages as restore_todo

    lang = state.lang
    parts = summary_parts(history, kept, reply.summary, reply.left_out, figs.budgets.user_messages, lang)
    if parts is None:
        raise CompactError(t("compact_empty", lang))
    parts.archives.append(archive)
    if note := compaction_note(history, kept, lang):  # images are not restored
        parts.summary += "\n\n" + note
    gone = {path for path in parts.files if not (state.workspace / path).exists()}
    todo = restore_todo(history, kept)  # the task list comes back whole
    # The task must survive whatever the summary says: what it left out is added after it.
    edited = [path for path in files_touched(history) if path not in parts.files]
    open_items = [item for item, status in todo_items(history) if status != "completed"]
    if gaps := task_gaps(history, parts.summary, [*todo, *kept], open_items, edited):
        parts.summary += "\n\n" + task_section(gaps, lang)
    carried, head = summary_messages(parts, lang, gone)
    # The user's pins come back whole (a file read again now), with the restored files.
    pinned, tail = _pinned(state, history), [m for m in kept if not is_pins(m)]
    used, new_read = figs.fixed + tokens.count_messages([*carried, head, *todo, *pinned, *tail]), ReadFileState()
    files = restore_files(state, new_read, max(0, min(figs.budgets.restore, figs.budgets.target - used)), tail)
    new = compacted_history(carried, [*pinned, *files], head, tail, plan=todo)
    if (files or todo) and figs.count(new) > figs.threshold:
        # Over the target: the files go first (they can be read again), never the user's words.
        return compacted_history(carried, pinned, head, tail), ReadFileState()
    return new, new_read


def new_history(
    state: AppState,
    history: list[ModelMessage],
    cleared: list[ModelMessage],
    kept: list[ModelMessage],
    figs: Figures,
    reply: SummaryReply | None,
    archive: str,
) -> tuple[list[ModelMessage], ReadFileState]:
    """What replaces `history`: the cheap tier's `cleared` copy without a `reply`, else the history
    `rebuilt` with it; with a subfolder's AGENTS.md / CLAUDE.md the model loaded still loaded."""
    from agent.tools.nested_memory import kept as keep_nested_memory

    new, read = (
        (cleared, state.read_file_state) if reply is None else rebuilt(state, history, kept, figs, reply, archive)
    )
    return keep_nested_memory(history, new, state.workspace, state.lang, at=head_end(new)), read


async def reviewed(
    state: AppState,
    history: list[ModelMessage],
    kept: list[ModelMessage],
    figs: Figures,
    reply: SummaryReply,
    review: Callable[[str, dict], Awaitable[str | None]],
) -> SummaryReply:
    """/compact preview: `review` is shown the summary and what the rebuilt history would drop; it
    gives back the summary to commit (edited or not), or None to cancel (CompactCancelled)."""
    would_drop = dropped(state, history, *rebuilt(state, history, kept, figs, reply, ""))
    if (text := await review(reply.summary, would_drop)) is None:
        raise CompactCancelled(t("compact_preview_cancelled", state.lang))
    return dataclasses.replace(reply, summary=text)


def _pinned(state: AppState, history: Sequence[ModelMessage]) -> list[ModelMessage]:
    from agent.tools.mentions import pinned_files

    if not (pins := pins_of(history)):
        return []
    return [pins_message(pins, pinned_files(state, [p.text for p in pins if p.kind == "file"]), state.lang)]


def dropped(state: AppState, before: list[ModelMessage], history: list[ModelMessage], new_read: ReadFileState) -> dict:
    """What the compaction drops (agent.compaction.rebuild.dropped), file names as the user wrote them."""
    return dropped_report(
        before, history, _names(state, state.read_file_state.paths()), _names(state, new_read.paths())
    )


def _names(state: AppState, paths: Sequence[Path]) -> list[str]:
    return [str(p.relative_to(state.workspace)) if p.is_relative_to(state.workspace) else str(p) for p in paths]
