"""What a user message may bring into the window, checked before it is sent: a message too large
for any compaction to make room for is sent as a file instead (`check_message`, `attach`), and the
files it @-mentions are attached whole only within the room the window leaves them (`mention_room`,
`attachments_refused`). Counted by the server's count (the learned margin, agent.compaction).
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from agent.compaction import ceiling, fits, history_tokens, next_head, prefix_tokens, ratio, safe, threshold
from agent.text.i18n import t
from agent.tokens import count as tokens

if TYPE_CHECKING:
    from agent.state.app import AppState

ATTACH_DIR_NAME, PREVIEW_CHARS = "attachments", 200


def check_message(state: AppState, text: str) -> str | None:
    """The warning for a message too large for any compaction to make room for: with the fixed prefix
    and the head the next compaction leaves; None when it fits."""
    fixed, limit = prefix_tokens(state) + next_head(state), threshold(state)
    size = safe(state, tokens.count_text(text))
    if fixed + size < limit:
        return None
    window = state.config.context_window
    return t("message_too_large", state.lang, tokens=size, fixed=fixed, threshold=limit, window=window)


def mention_room(state: AppState, text: str) -> int:
    """Tokens the files the user @-mentions may take whole, together: what the window (less the
    answer's room) leaves after the fixed prefix, the head the compaction of what came before leaves
    and the message itself. A file that does not fit is attached in parts (read_file's cap)."""
    if "@" not in text:  # nothing mentioned: nothing to measure
        return 0
    # Without automatic compaction what came before stays whole (the server's own count of it).
    head = next_head(state) if state.config.auto_compact else history_tokens(state, state.history)
    room = ceiling(state) - prefix_tokens(state) - head - tokens.count_text(text)
    # A tenth kept back: each file's read call and line numbers count too (attachments_refused's check).
    return max(0, int(room * 0.9 / ratio(state)))


def attachments_refused(state: AppState, prelude: list, text: str) -> str | None:
    """The line that refuses a message whose @-mentioned files, with it, would not fit the window
    (less the answer's room) in an empty history; None when it fits. Never shown as attached and
    then left out."""
    if not prelude:
        return None
    files, size, fixed, limit = (
        tokens.count_messages(prelude),
        tokens.count_text(text),
        prefix_tokens(state),
        ceiling(state),
    )
    if fits(state, fixed + files + size, limit):
        return None
    return t("attachments_too_large", state.lang, files=files, tokens=size, fixed=fixed, threshold=limit)


def attach(state: AppState, text: str) -> tuple[Path, str]:
    """Save `text` where read_file may read it (beside the transcript archive, read-only to the tools),
    lines longer than read_file shows split into pieces it shows whole; the file and the short
    message sent in its place."""
    import session
    from agent.store.project_dirs import archive_dir
    from agent.tools.reading import LINE_CAP

    folder = archive_dir(state.workspace) / ATTACH_DIR_NAME
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = folder / f"{state.session_id}-{datetime.now():%Y%m%d-%H%M%S-%f}.txt"
    body = "\n".join(
        piece
        for line in text.split("\n")
        for piece in ([line[i : i + LINE_CAP] for i in range(0, len(line), LINE_CAP)] or [""])
    )
    session.write_atomic(path, body.encode())
    preview = " ".join(text.split())[:PREVIEW_CHARS]
    lines = body.count("\n") + 1
    return path, t("attached_message", state.lang, path=path, chars=len(text), lines=lines, preview=preview)
