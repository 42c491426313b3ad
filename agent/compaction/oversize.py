"""A user message too large for the window: found before it is sent, and attached as a file instead.

A message that, with the fixed prefix alone, reaches the auto-compact threshold cannot be helped by
any compaction: sent as it is, it triggers one that cannot make room, and then a request the
provider refuses. Saved as a file the model reads in parts with read_file, it fits.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from agent.text.i18n import t

if TYPE_CHECKING:
    from agent.state.app import AppState

ATTACH_DIR_NAME = "attachments"
PREVIEW_CHARS = 200


@dataclass(frozen=True)
class Oversize:
    tokens: int
    fixed: int
    threshold: int
    window: int


def too_large(tokens: int, fixed: int, threshold: int) -> bool:
    """Whether a message of `tokens` cannot fit under the threshold even in an empty history."""
    return fixed + tokens >= threshold


def check_message(state: AppState, text: str) -> Oversize | None:
    """A message too large for any compaction to make room for: with the fixed prefix and the
    compaction's head that stays (the carried user messages and the summary), by the server's count
    (agent.compaction.margin). The fuzzer's 16k seed 19: a Chinese paste passed the check of an
    empty history and our count, and every request of its turn was refused."""
    from agent.compaction import margin
    from agent.compaction.budgets import SUMMARY_OVERHEAD
    from agent.compaction.budgets import for_state as budgets_for
    from agent.compaction.context import fixed_prefix_tokens, threshold
    from agent.compaction.summary import head_end
    from agent.tokens import count as tokens

    # The head the next compaction leaves: today's, or the one its budgets would build if smaller
    # (its summary and carried messages are rewritten to their budgets).
    plan = budgets_for(state)
    head = min(tokens.count_messages(state.history[: head_end(state.history)]),
               plan.summary + SUMMARY_OVERHEAD + plan.user_messages)
    size, fixed, limit = margin.safe(state, tokens.count_text(text)), fixed_prefix_tokens(state) + head, \
        threshold(state)
    return Oversize(size, fixed, limit, state.config.context_window) if too_large(size, fixed, limit) else None


def attachments_refused(state: AppState, prelude: list, text: str) -> str | None:
    """The line that refuses a message whose @-mentioned files, with it, would not fit under the
    threshold in an empty history (each file is already cut to read_file's share of the window);
    None when it fits. Refused up front: never shown as attached and then left out to fit."""
    from agent.compaction import margin
    from agent.compaction.context import fixed_prefix_tokens, threshold
    from agent.tokens import count as tokens

    if not prelude:
        return None
    files, size, fixed = tokens.count_messages(prelude), tokens.count_text(text), fixed_prefix_tokens(state)
    if margin.fits(state, fixed + files + size, threshold(state)):
        return None
    return t("attachments_too_large", state.lang, files=files, tokens=size, fixed=fixed, threshold=threshold(state))


def warning(found: Oversize, lang: str) -> str:
    return t("message_too_large", lang, tokens=found.tokens, fixed=found.fixed, threshold=found.threshold,
             window=found.window)


def split_long_lines(text: str, cap: int) -> str:
    """Lines longer than read_file shows (`cap` characters) split into pieces it shows whole."""
    out = []
    for line in text.split("\n"):
        out.extend([line[i : i + cap] for i in range(0, len(line), cap)] or [""])
    return "\n".join(out)


def attach(state: AppState, text: str) -> tuple[Path, str]:
    """Save `text` where read_file may read it (beside the transcript archive, read-only to the
    tools) and return the file and the short message sent in its place."""
    import session
    from agent.tools.reading import LINE_CAP

    folder = session.archive_dir(state.workspace) / ATTACH_DIR_NAME
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = folder / f"{state.session_id}-{datetime.now():%Y%m%d-%H%M%S-%f}.txt"
    body = split_long_lines(text, LINE_CAP)
    session.write_atomic(path, body.encode())
    preview = " ".join(text.split())[:PREVIEW_CHARS]
    message = t("attached_message", state.lang, path=path, chars=len(text), lines=body.count("\n") + 1,
                preview=preview)
    return path, message
