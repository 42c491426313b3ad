"""What read_file answers, shared with @-mentions and compaction's restored files.

The file's lines numbered like `cat -n`, confined to the workspace (and the transcript archive), in
parts when long; each part says where the next one starts.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import BinaryIO

import session
from agent.state.file_state import NotRegularFile, ReadFileState, file_lines, looks_binary, open_regular
from agent.tools.answers import ToolError
from agent.tools.workspace import PathError, resolve_path

READ_LIMIT = 2000  # lines read_file returns by default
LINE_CAP = 2000  # characters kept of one line
READ_CAP = 100_000  # characters of one read_file answer
# The end of a part: "[...; the file has T lines; continue with offset=N]"; written by numbered (through
# _continue), read by continues_at and read_span.
_CONTINUE = "continue with offset={n}]"
_CONTINUES_AT = re.compile(r"continue with offset=(\d+)\]\Z")
_TOTAL = re.compile(r"the file has (\d+) lines; continue with offset=\d+\]\Z")
_NUMBERED = re.compile(r" *(\d+)\t")
# Bytes read past a part's end to count the file's lines; a larger rest is not counted.
COUNT_CAP = 64 << 20


def readable_roots(workspace: Path) -> list[Path]:
    from agent.store.project_dirs import tool_results_dir

    return [session.archive_dir(workspace), tool_results_dir(workspace)]


def numbered(f: BinaryIO, offset: int, limit: int, max_tokens: int | None = None) -> str:
    from agent.tokens import count as tokens

    out: list[str] = []
    size = used = 0
    n = 0
    for n, line in enumerate(file_lines(f, LINE_CAP), start=1):
        if n < offset:
            continue
        if n >= offset + limit:
            out.append(f"[more lines follow; {_continue(n, _lines_after(f, n))}")
            break
        entry = f"{n:6}\t{line}"
        if out and size + len(entry) > READ_CAP:
            out.append(f"[output capped at {READ_CAP} characters; {_continue(n, _lines_after(f, n))}")
            break
        if max_tokens is not None:
            cost = tokens.count_text(entry) + 1
            if out and used + cost > max_tokens:
                out.append(
                    f"[output capped at {max_tokens} tokens (a share of the context window); "
                    f"{_continue(n, _lines_after(f, n))}"
                )
                break
            used += cost
        out.append(entry)
        size += len(entry) + 1
    if n == 0:
        return "[the file is empty]"
    if n < offset:
        raise ToolError(f"offset={offset} is past the end of the file ({n} lines)")
    return "\n".join(out)


def read_for_model(
    path: str,
    workspace: Path,
    read_file_state: ReadFileState,
    offset: int = 1,
    limit: int = READ_LIMIT,
    max_tokens: int | None = None,
) -> str:
    """What read_file answers for `path` (shared with @mentions), at most `max_tokens` tokens;
    raises ToolError instead."""
    if offset < 1 or limit < 1:
        raise ToolError("offset and limit must be 1 or more")
    try:
        target = resolve_path(path, workspace, readable_roots=readable_roots(workspace))
        if target.is_dir():
            raise ToolError(f"{path} is a directory; use list_files")
        with open_regular(target) as f:
            if looks_binary(f):
                raise ToolError(f"{path} looks binary (NUL bytes); read_file only reads text")
            text = numbered(f, offset, limit, max_tokens)
        read_file_state.record(target)
    except PathError as exc:
        raise ToolError(str(exc)) from exc
    except FileNotFoundError as exc:
        raise ToolError(f"no such file: {path}") from exc
    except NotRegularFile as exc:
        raise ToolError(f"{path} is not a regular file (a FIFO, device or socket); read_file only reads files") from exc
    except OSError as exc:
        raise ToolError(f"cannot read {path}: {exc.strerror or exc}") from exc
    return text


def _lines_after(f: BinaryIO, n: int) -> int | None:
    """The file's lines, `n` read so far: the rest of `f` counted, None when it is over COUNT_CAP bytes."""
    count = size = 0
    last = b"\n"
    while chunk := f.read(1 << 20):
        count += chunk.count(b"\n")
        size += len(chunk)
        last = chunk[-1:]
        if size > COUNT_CAP:
            return None
    return n + count + (last != b"\n")


def _continue(n: int, total: int | None) -> str:
    return (f"the file has {total} lines; " if total is not None else "") + _CONTINUE.format(n=n)


def read_span(answer: str) -> tuple[int, int, int] | None:
    """(first line, last line, the file's lines) of a read that is a part of its file; None for a whole
    file, an error, or a part whose file was too large to count."""
    lines = answer.split("\n")
    first = _NUMBERED.match(lines[0])
    if first is None:
        return None
    if (next_at := continues_at(lines[-1])) is not None:
        total = _TOTAL.search(lines[-1])
        return (int(first.group(1)), next_at - 1, int(total.group(1))) if total else None
    last = _NUMBERED.match(lines[-1])
    if int(first.group(1)) == 1 or last is None:
        return None
    return int(first.group(1)), int(last.group(1)), int(last.group(1))


def continues_at(answer: str) -> int | None:
    """The line the next part of a read starts at, if `answer` is a part (None: the whole rest)."""
    found = _CONTINUES_AT.search(answer)
    return int(found.group(1)) if found else None


def shorten(answer: str, max_tokens: int) -> str:
    """A numbered read cut to its first whole lines within `max_tokens`, ending with where to go on
    (an attachment cut further to fit the window: the model reads the rest as it would any part)."""
    from agent.tokens import count as tokens

    lines = answer.split("\n")
    marker = lines.pop() if lines and continues_at(lines[-1]) is not None else None
    span = read_span(answer)
    last = _NUMBERED.match(lines[-1]) if lines else None
    total = span[2] if span else int(last.group(1)) if last and marker is None else None
    kept: list[str] = []
    used = 0
    for line in lines:
        number = line.split("\t", 1)[0].strip()
        cost = tokens.count_text(line) + 1
        if kept and used + cost > max_tokens and number.isdigit():
            kept.append(f"[output capped at {max_tokens} tokens to fit the window; {_continue(int(number), total)}")
            return "\n".join(kept)
        used += cost
        kept.append(line)
    return "\n".join(kept + ([marker] if marker else []))
