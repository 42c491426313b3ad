"""Reading, writing and removing a file under a root folder without following a symlink anywhere
on the way: /undo and /rewind put back files whose folders may have changed since (a `git checkout`
that made `sub/` a symlink, a command that did `rm -rf sub && ln -s ~ sub`).

Each folder from the root down is opened relative to the one above it with O_NOFOLLOW, and the file
is read, replaced or removed relative to its folder's descriptor, so a symlink put in place between
the check and the write is not followed either. A symlink, a missing root or anything but a regular
file where a file was is refused (`Refused`, with what was found), never worked around.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from agent.store.atomic import replace_at


class Refused(OSError):
    """The path cannot be reached without leaving the root: `why` is a key of agent.text
    (`confined_<why>`), `part` the path (relative to the root) where it was found."""

    def __init__(self, why: str, part: str) -> None:
        super().__init__(f"{part}: {why}")
        self.why = why
        self.part = part


_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _parts(root: Path, path: Path) -> tuple[str, ...]:
    try:
        parts = path.relative_to(root).parts
    except ValueError:
        raise Refused("outside", str(path)) from None
    if not parts or ".." in parts:
        raise Refused("outside", str(path))
    return parts


def _open_dir(name: str, dir_fd: int, shown: str) -> int:
    try:
        return os.open(name, _DIR, dir_fd=dir_fd)
    except FileNotFoundError:
        raise
    except OSError:
        st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        if stat.S_ISDIR(st.st_mode):
            raise  # a folder we may not open: its own error
        raise Refused("symlink" if stat.S_ISLNK(st.st_mode) else "not_folder", shown) from None


@contextlib.contextmanager
def _folder(root: Path, parts: tuple[str, ...], create: bool) -> Iterator[int | None]:
    """The descriptor of the folder holding the file (None: a folder on the way is missing and
    `create` is false), each folder below the root opened without following a symlink."""
    try:
        fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        raise Refused("no_root", str(root)) from None
    try:
        for depth, name in enumerate(parts[:-1], start=1):
            shown = "/".join(parts[:depth])
            try:
                below = _open_dir(name, fd, shown)
            except FileNotFoundError:
                if not create:
                    yield None
                    return
                os.mkdir(name, 0o777, dir_fd=fd)
                below = _open_dir(name, fd, shown)
            os.close(fd)
            fd = below
        yield fd
    finally:
        os.close(fd)


def _kind(name: str, dir_fd: int, shown: str) -> bool:
    """Whether the file exists; Refused if it is there but not a regular file."""
    try:
        st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return False
    if stat.S_ISLNK(st.st_mode):
        raise Refused("symlink", shown)
    if not stat.S_ISREG(st.st_mode):
        raise Refused("not_file", shown)
    return True


def read_under(root: Path, path: Path) -> bytes | None:
    """`path`'s content (None: it does not exist), read without following a symlink below `root`."""
    parts = _parts(root, path)
    with _folder(root, parts, create=False) as fd:
        if fd is None or not _kind(parts[-1], fd, "/".join(parts)):
            return None
        file_fd = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=fd)
        if not stat.S_ISREG(os.fstat(file_fd).st_mode):  # swapped for a FIFO since the check
            os.close(file_fd)
            raise Refused("not_file", "/".join(parts))
        with os.fdopen(file_fd, "rb") as f:
            return f.read()


def restore_under(root: Path, path: Path, content: bytes | None) -> None:
    """Make `path` hold `content` (None: remove it) without following a symlink below `root`;
    Refused when the way there, or what is there now, is not what a write could have left."""
    parts = _parts(root, path)
    shown = "/".join(parts)
    with _folder(root, parts, create=content is not None) as fd:
        if fd is None:
            return  # a folder on the way is gone: so is the file to remove
        exists = _kind(parts[-1], fd, shown)
        if content is None:
            if exists:
                os.unlink(parts[-1], dir_fd=fd)
            return
        replace_at(fd, parts[-1], content)
