"""Opening a file only if it is a regular one: read_file, the memory files and the session picker all
read paths someone else chose, where a FIFO would block forever and a device would never end."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO


class NotRegularFile(OSError):
    """A FIFO, device or socket where a file was expected."""


def open_regular(path: Path) -> BinaryIO:
    """`path` opened for reading if it is a regular file; NotRegularFile if not. O_NONBLOCK: opening
    a FIFO with no writer would otherwise block until one comes, and nothing could cancel it."""
    if not stat.S_ISREG(os.stat(path).st_mode):  # before opening: a socket cannot be opened, a device may act
        raise NotRegularFile(f"{path} is not a regular file (a FIFO, device or socket)")
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegularFile(f"{path} is not a regular file (a FIFO, device or socket)")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_confined(path: Path, root: Path, limit: int) -> str | None:
    """The text of `path` if it resolves inside `root` to a regular file, cut at `limit` characters
    (at most 4x that in bytes read: a link to a 3 GB file costs nothing). For a project's files (memory
    files, commands, sub-agents) `root` is the repository's root: a symlink that leads out is not followed."""
    try:
        real = path.resolve(strict=True)
        if not real.is_relative_to(root.resolve()):
            return None
        with open_regular(real) as f:  # no FIFO, no device, never blocks
            data = f.read(limit * 4)
    except (OSError, RuntimeError):
        return None
    return data.decode("utf-8", errors="replace")[:limit]


def read_regular(path: Path) -> bytes:
    """The whole of `path` if it is a regular file; NotRegularFile if not (a session or archive file
    another process replaced by a FIFO, or a link to /dev/zero, would block or never end)."""
    with open_regular(path) as f:
        return f.read()
