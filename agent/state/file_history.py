"""Checkpoints of the files the agent changed, one per user turn, for /undo.

Only changes made through write_file / edit_file are recorded; what a shell command does to
the disk is not (it cannot be known cheaply).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from agent.store.atomic import replace_file


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

    def record_before_write(self, path: Path) -> None:
        """Keep `path`'s content as it was before this turn; only the first write of a turn counts."""
        if not self.checkpoints:
            return
        files = self.checkpoints[-1].files
        if path in files:
            return
        try:
            files[path] = path.read_bytes()
        except FileNotFoundError:
            files[path] = None

    def undo(self) -> Checkpoint | None:
        """Put the newest checkpoint's files back as they were; the caller truncates the history."""
        if not self.checkpoints:
            return None
        checkpoint = self.checkpoints.pop()
        for path, content in checkpoint.files.items():
            try:
                restore_file(path, content)
            except OSError as exc:
                checkpoint.failed.append(f"{path}: {exc.strerror or exc}")
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


def restore_file(path: Path, content: bytes | None) -> None:
    if content is None:
        path.unlink(missing_ok=True)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_file(path, content)
