"""Replacing a user's file so that a failure or a kill leaves the old content or the new, never a
file cut short: the new content goes to a temp file in the same folder, is fsynced, and is renamed
over the original, which keeps its mode and (where the OS lets us) its owner."""

from __future__ import annotations

import os
import secrets
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


def _give_mode(fd: int, old: os.stat_result | None, mode: int | None) -> None:
    """The temp file's mode: `mode`, else the old file's mode and owner, else what open() would make."""
    if mode is not None:
        os.fchmod(fd, mode)
    elif old is None:
        os.fchmod(fd, 0o666 & ~_umask())
    else:
        try:  # owner first: chown clears set-id bits, chmod puts them back
            os.fchown(fd, old.st_uid, old.st_gid)
        except OSError:
            pass  # only root may give a file away; it stays ours
        os.fchmod(fd, stat.S_IMODE(old.st_mode))


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
            _give_mode(f.fileno(), old, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_dir(path.parent)


def replace_at(dir_fd: int, name: str, data: bytes) -> None:
    """replace_file for the file `name` in the open folder `dir_fd` (agent.store.confined): the same
    temp file, mode and rename, with no path looked up again on the way."""
    try:
        old: os.stat_result | None = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        old = None
    tmp = f".{name}.{secrets.token_hex(4)}{TEMP_SUFFIX}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=dir_fd)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
            _give_mode(f.fileno(), old, None)
        os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        try:
            os.unlink(tmp, dir_fd=dir_fd)
        except OSError:
            pass
        raise
    try:
        os.fsync(dir_fd)
    except OSError:
        pass


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
