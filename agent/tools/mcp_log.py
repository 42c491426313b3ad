"""Each MCP server's log: what it writes to its stderr, the log messages it sends, and what the client
could not read of its answers, kept under the data folder (`mcp-logs/<server>.log` of the project's
folder) instead of reaching the terminal. A server's stderr is someone else's text (it may echo the
model's arguments): it is stored as it came and escaped when `/mcp log` shows it (the UI draws every
line through agent.text.visible). The file is bounded: past LOG_BYTES it becomes `<server>.log.1`
(the one before is dropped) and a new one starts."""

from __future__ import annotations

import os
import time
from pathlib import Path

LOG_BYTES = 1 << 20  # of one file: a server's log takes at most twice this
TAIL_BYTES = 64 << 10  # read from the end of the log to show its last lines
LINE_CHARS = 500  # characters shown of one line of a log


def log_path(workspace: Path, name: str) -> Path:
    from agent.store.project_dirs import mcp_logs_dir

    return mcp_logs_dir(workspace) / f"{name}.log"


class ServerLog:
    """The log file of one server: `write` never raises (a full disk costs the log, not the session)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.size = 0

    def start(self, what: str) -> None:
        """A line that says the server starts, and how."""
        from agent.store.project_dirs import private_dir

        try:
            private_dir(self.path.parent)
            self.size = self.path.stat().st_size if self.path.exists() else 0
        except OSError:
            pass
        self.note(f"--- {time.strftime('%Y-%m-%d %H:%M:%S')} starting: {what}")

    def note(self, text: str) -> None:
        """A line of ours (the client's), told apart from the server's own by its brackets."""
        self.write(f"{text}\n".encode("utf-8", errors="replace"))

    def write(self, data: bytes) -> None:
        if self.size + len(data) > LOG_BYTES and self.size > 0:
            try:
                os.replace(self.path, self.path.with_name(self.path.name + ".1"))
            except OSError:
                pass
            self.size = 0
        data = data[-LOG_BYTES:]
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            try:
                os.write(fd, data)
            finally:
                os.close(fd)
        except OSError:
            return
        self.size += len(data)


def tail(path: Path, lines: int) -> list[str] | None:
    """The last `lines` lines of a server's log (the previous file's end first if the current one is
    short), each cut to LINE_CHARS; None if it has no log."""
    data = b""
    for part in (path, path.with_name(path.name + ".1")):
        try:
            with open(part, "rb") as f:
                f.seek(max(0, f.seek(0, os.SEEK_END) - (TAIL_BYTES - len(data))))
                data = f.read() + data
        except OSError:
            continue
        if len(data) >= TAIL_BYTES or data.count(b"\n") > lines:
            break
    if not data and not path.exists():
        return None
    text = data.decode("utf-8", errors="replace")
    shown = text.splitlines()[-lines:]
    return [line if len(line) <= LINE_CHARS else f"{line[:LINE_CHARS]} […]" for line in shown]
