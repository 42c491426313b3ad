"""How many processes a sandboxed command may start.

For an ordinary user, RLIMIT_NPROC (set by `prlimit` for bubblewrap, by the Landlock launcher
itself): the kernel counts every task of the user, so the limit is the user's tasks now plus the
policy's allowance. Root is never held by RLIMIT_NPROC, so for root each command gets a pids
cgroup of its own with `pids.max`, where one can be made: the cgroup v1 `pids` hierarchy, or a
cgroup v2 folder whose `pids` controller is already on for its children. Elsewhere there is no
limit, and /status says so.
"""

from __future__ import annotations

import itertools
import os
import secrets
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

PREFIX = "coding-agent-"  # then the process number that made the folder
USER_COUNT_TTL = 5.0  # seconds a count of the user's tasks is reused (a scan of /proc costs milliseconds)
_numbers = itertools.count()
_counted: tuple[float, int] | None = None
_left: set[Path] = set()  # cgroups still busy when their command ended: removed at the next command


def user_tasks() -> int:
    """Tasks (threads included, as RLIMIT_NPROC counts them) of this user, recounted every few seconds."""
    global _counted
    now = time.monotonic()
    if _counted is not None and now - _counted[0] < USER_COUNT_TTL:
        return _counted[1]
    uid, n = os.getuid(), 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == uid:
                    n += len(os.listdir(f"/proc/{entry.name}/task"))
            except OSError:
                pass
    _counted = (now, n)
    return n


def rlimit(allowance: int) -> int | None:
    """RLIMIT_NPROC for a command of this (non-root) user; None for root."""
    return None if os.geteuid() == 0 else user_tasks() + allowance


def _mounts() -> list[tuple[str, str, str]]:
    """(mount point, file system type, super options) of each cgroup mount."""
    found = []
    try:
        with open("/proc/self/mountinfo") as f:
            for line in f:
                head, _, tail = line.partition(" - ")
                fields, more = head.split(), tail.split()
                if len(fields) > 4 and len(more) > 2 and more[0] in ("cgroup", "cgroup2"):
                    found.append((fields[4], more[0], more[2]))
    except OSError:
        pass
    return found


def _own(hierarchy: str) -> str | None:
    """Our cgroup's path in the v1 hierarchy named `hierarchy` ("pids"), or in v2 ("")."""
    try:
        with open("/proc/self/cgroup") as f:
            for line in f:
                _id, names, path = line.rstrip("\n").split(":", 2)
                if (hierarchy and hierarchy in names.split(",")) or (not hierarchy and names == ""):
                    return path
    except (OSError, ValueError):
        pass
    return None


def cgroup_parent() -> Path | None:
    """Where root can make a command's pids cgroup, or None."""
    if os.geteuid() != 0:
        return None
    for mount, kind, options in _mounts():
        if kind == "cgroup" and "pids" in options.split(","):
            own = _own("pids")
        elif kind == "cgroup2":
            own = _own("")
            try:
                if own is None or "pids" not in (Path(mount) / own.lstrip("/") / "cgroup.subtree_control").read_text():
                    continue
            except OSError:
                continue
        else:
            continue
        parent = Path(mount) / (own or "/").lstrip("/")
        if own is not None and os.access(parent, os.W_OK):
            return parent
    return None


@contextmanager
def cgroup(allowance: int) -> Iterator[Path | None]:
    """A pids cgroup for one command (its `cgroup.procs`, which the command's first process joins),
    removed after; None where none can be made. Where one can be made but this one cannot, OSError:
    the command does not run without the limit the policy asks for."""
    parent = cgroup_parent()
    if parent is None:
        yield None
        return
    _sweep(parent)
    # A random part: a dead run's folder may carry our process number and still be busy.
    folder = parent / f"{PREFIX}{os.getpid()}-{next(_numbers)}-{secrets.token_hex(4)}"
    try:
        folder.mkdir()
        (folder / "pids.max").write_text(str(allowance))
    except OSError as exc:
        _remove(folder)
        raise OSError(exc.errno, f"the sandbox's process limit cannot be set in {folder}: {exc.strerror}") from exc
    try:
        yield folder / "cgroup.procs"
    finally:
        _remove(folder)


def _sweep(parent: Path) -> None:
    """Remove the folders that ended commands left: ours, and those of runs that are gone (a
    folder whose processes are still exiting cannot be removed at once, and `-p` exits at once)."""
    for old in list(_left):
        _remove(old)
    try:
        entries = list(os.scandir(parent))
    except OSError:
        return
    for entry in entries:
        owner = entry.name.removeprefix(PREFIX).split("-", 1)[0]
        if entry.name.startswith(PREFIX) and owner.isdigit() and not _alive(int(owner)):
            _remove(Path(entry.path))


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        pass
    return True


def _remove(folder: Path) -> None:
    # Empty once the sandbox is gone; its last processes may still be exiting, then it goes next time.
    try:
        folder.rmdir()
        _left.discard(folder)
    except FileNotFoundError:
        _left.discard(folder)
    except OSError:
        _left.add(folder)
