"""Cut the largest texts of a history so that it fits a budget: the last resort of a request that
leaving out old messages cannot make small enough (one answer or one tool result larger than the
window). The user's own words are never cut here; the full text stays in the session file and,
after a compaction, in its archive. Pure: values in, values out.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING

from agent.tokens import count as tokens

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

CUT_NOTE = "\n[… {n} tokens cut here to fit the context window; the full text is in the session's archive.]"
# The note itself and the rounding of a cut by characters.
NOTE_TOKENS = 40
MAX_ROUNDS = 12
# A text cut to fit keeps at least its start: the model still sees what it was (an attachment's
# first lines, the fuzzer's 4k seed 8 saw one cut to nothing but the note), and reads on in the archive.
HEAD_FLOOR = 100


def _cuttable(part: object) -> str | None:
    from pydantic_ai.messages import TextPart, ThinkingPart, ToolReturnPart

    if isinstance(part, (TextPart, ThinkingPart)) and part.content:
        return part.content
    if isinstance(part, ToolReturnPart) and isinstance(part.content, str) and part.content:
        return part.content
    return None


def _cut_text(text: str, size: int, keep: int) -> str:
    chars = len(text) * max(0, keep) // max(1, size)
    return text[:chars] + CUT_NOTE.format(n=max(1, size - keep))


def _with_part(message: ModelMessage, index: int, text: str) -> ModelMessage:
    parts = list(message.parts)
    parts[index] = dataclasses.replace(parts[index], content=text)
    return dataclasses.replace(message, parts=parts)


def _largest(messages: Sequence[ModelMessage], done: set[tuple[int, int]]) -> tuple[int, int, int] | None:
    best: tuple[int, int, int] | None = None
    for i, message in enumerate(messages):
        for j, part in enumerate(message.parts):
            text = _cuttable(part)
            if text is None or (i, j) in done:
                continue
            size = tokens.count_text(text)
            if best is None or size > best[2]:
                best = (i, j, size)
    return best


def cut_each(messages: Sequence[ModelMessage], cap: int) -> list[ModelMessage]:
    """Every text larger than `cap` tokens cut to it: one huge answer must not push out the rest."""
    out = list(messages)
    for i, message in enumerate(out):
        for j, part in enumerate(message.parts):
            text = _cuttable(part)
            if text is not None and (size := tokens.count_text(text)) > cap:
                out[i] = message = _with_part(message, j, _cut_text(text, size, cap - NOTE_TOKENS))
    return out


def cut_to_fit(messages: Sequence[ModelMessage], budget: int) -> list[ModelMessage]:
    """`messages` with their largest texts cut until they count at most `budget` tokens (as close
    as the cuttable texts allow: a history of user messages only stays as it is)."""
    out = list(messages)
    done: set[tuple[int, int]] = set()  # cut down to their floor: the next largest goes next
    for _ in range(MAX_ROUNDS):
        over = tokens.count_messages(out) - budget
        if over <= 0:
            break
        found = _largest(out, done)
        if found is None or found[2] <= HEAD_FLOOR + NOTE_TOKENS:
            break
        i, j, size = found
        keep = size - over - NOTE_TOKENS
        if keep < HEAD_FLOOR:
            keep = HEAD_FLOOR
            done.add((i, j))
        text = _cuttable(out[i].parts[j]) or ""
        out[i] = _with_part(out[i], j, _cut_text(text, size, keep))
    return out
