"""Checkpoints of the files the agent changed, one per user turn, for /undo.

Only changes made through write_file / edit_file are recorded; what a shell command does to
the disk is not (it cannot be known cheaply). A command may still have changed the tree since: a
folder replaced by a symlink, a file by a FIFO. Putting files back is confined again at that moment,
folder by folder from the workspace down (agent.store.confined); what cannot be reached that way is
skipped and named, never written through the symlink.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agent.store.confined import Refused, read_under, restore_under
from agent.text.i18n import t


@dataclass
class Checkpoint:
    # Length of the conversation history before this turn: /undo truncates it back to here.
    history_index: int
    user_input: str
    # Content before the turn first touched each file; None = the file did not exist.
    files: dict[Path, bytes | None] = field(default_factory=dict)
    # Files undo could not restore, one "path: reason" line each.
    failed: list[str] = field(default_factory=list)


class FileHistory:
    def __init__(self) -> None:
        self.checkpoints: list[Checkpoint] = []

    def make_checkpoint(self, history_index: int, user_input: str) -> Checkpoint:
        checkpoint = Checkpoint(history_index, user_input)
        self.checkpoints.append(checkpoint)
        return checkpoint

    def record_before_write(self, path: Path, root: Path) -> None:
        """Keep `path`'s content as it was before this turn; only the first write of a turn counts.
        A path that cannot be read within `root` now is not recorded (nor ever written back)."""
        if not self.checkpoints:
            return
        files = self.checkpoints[-1].files
        if path in files:
            return
        try:
            files[path] = read_under(root, path)
        except OSError:
            pass

    def undo(self, root: Path, lang: str, added: Sequence[Path] = ()) -> Checkpoint | None:
        """Put the newest checkpoint's files back as they were, within `root` (or the folder of
        `added`, those the user added with /add-dir, that holds one); the caller truncates the
        history. What could not be put back is in the checkpoint's `failed`."""
        if not self.checkpoints:
            return None
        checkpoint = self.checkpoints.pop()
        for path, content in checkpoint.files.items():
            if why := restore_file(path, content, owning_root(path, root, added), lang):
                checkpoint.failed.append(why)
        return checkpoint

    def drop_from(self, checkpoint: Checkpoint) -> list[Checkpoint]:
        """Forget `checkpoint` and every later one; returns them for restore_checkpoints."""
        for i, cp in enumerate(self.checkpoints):
            if cp is checkpoint:
                dropped = self.checkpoints[i:]
                del self.checkpoints[i:]
                return dropped
        return []

    def restore_checkpoints(self, checkpoints: list[Checkpoint]) -> None:
        """Put back checkpoints drop_from removed (e.g. "/compact undo")."""
        present = {id(cp) for cp in self.checkpoints}
        self.checkpoints.extend(cp for cp in checkpoints if id(cp) not in present)
        self.checkpoints.sort(key=lambda cp: cp.history_index)


def owning_root(path: Path, root: Path, added: Sequence[Path]) -> Path:
    """The added folder that holds `path`, else `root` (the workspace)."""
    return next((folder for folder in added if path.is_relative_to(folder)), root)


def restore_file(path: Path, content: bytes | None, root: Path, lang: str) -> str | None:
    """Put `path` back to `content` (None: remove it) within `root`; None when done, else the line
    saying what was skipped and why."""
    try:
        restore_under(root, path, content)
    except Refused as exc:
        return t("restore_skipped", lang, path=_shown(path, root), part=exc.part, why=t(f"confined_{exc.why}", lang))
    except OSError as exc:
        return f"{_shown(path, root)}: {exc.strerror or exc}"
    return None


def _shown(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)
