"""Replacing a user's file so that a failure or a kill leaves the old content or the new, never a
file cut short: the new content goes to a temp file in the same folder, is fsynced, and is renamed
over the original, which keeps its mode and (where the OS lets us) its owner."""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from agent.store.faults import fault

TEMP_SUFFIX = ".agent-tmp"


def _umask() -> int:
    # os.umask() can only be read by setting it, which races with other threads creating files.
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return 0o022


def _fsync_dir(folder: Path) -> None:
    """Make a rename in `folder` durable (best effort: some filesystems refuse a directory fsync)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_via_temp(
    path: Path, write: Callable[[BinaryIO], None], *, mode: int | None = None, suffix: str = TEMP_SUFFIX
) -> None:
    """The one temp-file routine: `write` fills a temp file in `path`'s folder, which is fsynced, given
    `mode` (None: the old file's mode and owner, or what open() would make) and renamed over `path`.
    Raises with `path` (if it existed) exactly as it was, and the temp file gone."""
    try:
        old = os.stat(path) if mode is None else None
    except FileNotFoundError:
        old = None
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=suffix)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        elif old is None:
            os.chmod(tmp, 0o666 & ~_umask())  # what open() would have made
        else:
            try:  # owner first: chown clears set-id bits, chmod puts them back
                os.chown(tmp, old.st_uid, old.st_gid)
            except OSError:
                pass  # only root may give a file away; it stays ours
            os.chmod(tmp, stat.S_IMODE(old.st_mode))
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_dir(path.parent)


def replace_file(
    path: Path, data: bytes, *, mode: int | None = None, suffix: str = TEMP_SUFFIX, point: str = "file_mid_write"
) -> None:
    """Make `path` hold `data`, keeping its mode and owner (or given `mode`). Raises OSError with
    `path` (if it existed) exactly as it was. `point`: the fault point halfway through the write."""

    def write(f: BinaryIO) -> None:
        f.write(data[: len(data) // 2])
        f.flush()
        fault(point)
        f.write(data[len(data) // 2 :])

    write_via_temp(path, write, mode=mode, suffix=suffix)
