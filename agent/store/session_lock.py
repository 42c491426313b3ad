"""One writer per session: an flock beside the session file, so that two agents never append to the
same session (the second is told which process has it open)."""

from __future__ import annotations

import contextlib
import glob
import os
from pathlib import Path

from agent.store.project_dirs import archive_dir, project_dir


class SessionLocked(Exception):
    def __init__(self, session_id: str, holder: str = "") -> None:
        self.session_id, self.holder = session_id, holder
        super().__init__(self.text("en"))

    def text(self, lang: str) -> str:
        from agent.text.i18n import t

        pid = t("locked_pid", lang, pid=self.holder) if self.holder.isdigit() else ""
        return t("session_locked", lang, id=self.session_id, pid=pid)


def _remove_stale_temps(session_id: str, workspace: Path | None) -> None:
    """Partial copies a crash left mid-rewrite or mid-archive. Only the lock holder writes them, so
    with the lock just taken, any that exist are stale."""
    name = glob.escape(session_id)
    # The session file's, its stats file's (project folder) and its archives' temp copies.
    temps = ((project_dir(workspace), f".{name}.*.tmp"), (archive_dir(workspace), f".{name}-*.tmp"))
    for folder, pattern in temps:
        try:
            stale = list(folder.glob(pattern))
        except OSError:
            continue
        for path in stale:
            try:
                path.unlink()
            except OSError:
                pass


class SessionLock:
    """An flock on <session>.lock: the kernel releases it when the process dies, so a crashed
    agent never leaves a session stuck. A clean exit removes the file too."""

    def __init__(self, session_id: str, workspace: Path | None = None) -> None:
        import fcntl

        self.path = project_dir(workspace) / f"{session_id}.lock"
        while True:
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                try:
                    holder = os.pread(self._fd, 32, 0).decode(errors="replace").strip()
                except OSError:
                    holder = ""
                os.close(self._fd)
                raise SessionLocked(session_id, holder) from exc
            # A holder that exits removes the file under its lock: a lock won on the removed file
            # is no lock at all (the next opener creates a new one), so take the one at the path.
            if self._is_at_path():
                break
            os.close(self._fd)
        try:  # the pid is for the "open in another process" message; a full disk must not stop us
            os.ftruncate(self._fd, 0)
            os.write(self._fd, str(os.getpid()).encode())
        except OSError:
            pass
        _remove_stale_temps(session_id, workspace)

    def _is_at_path(self) -> bool:
        try:
            held, there = os.fstat(self._fd), os.stat(self.path)
        except OSError:
            return False
        return (held.st_dev, held.st_ino) == (there.st_dev, there.st_ino)

    def release(self) -> None:
        """Remove the lock file (while still holding it, see __init__) and let go."""
        if self._fd >= 0:
            if self._is_at_path():
                with contextlib.suppress(OSError):
                    self.path.unlink()
            os.close(self._fd)
            self._fd = -1
