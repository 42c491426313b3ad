"""The agent's memory out of reach of the commands it runs.

The key is in our memory (Config.api_key), and an approved command could read it from
/proc/$PPID/mem: the kernel allows that to any process of the same user while we are "dumpable"
(and no Yama module is there to stop it). Made non-dumpable, /proc/<our pid>/mem, environ and maps
need CAP_SYS_PTRACE; a command started by root would still have that capability, so it is dropped
from the command's capability bounding set before it execs (it cannot be regained, by it or by any
program it starts). Linux only; elsewhere nothing happens.
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Callable

PR_SET_DUMPABLE = 4
PR_CAPBSET_DROP = 24
CAP_SYS_PTRACE = 19


def _prctl() -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    prctl.restype = ctypes.c_int
    return prctl


_PRCTL = _prctl()


def make_undumpable() -> bool:
    """Forbid same-user processes to read our memory and environment; whether it took."""
    return _PRCTL is not None and _PRCTL(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0


def _holds_ptrace() -> bool:
    """Whether we may give CAP_SYS_PTRACE to what we exec (root, or a program given the capability)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("CapBnd:"):
                    return bool(int(line.split()[1], 16) & (1 << CAP_SYS_PTRACE))
    except (OSError, ValueError):
        pass
    return False


def _drop_ptrace() -> None:
    # Runs in the forked child before exec: a ctypes call resolved beforehand, no imports, no locks.
    assert _PRCTL is not None
    _PRCTL(PR_CAPBSET_DROP, CAP_SYS_PTRACE, 0, 0, 0)


def command_preexec() -> Callable[[], None] | None:
    """What a command's child runs before exec: None when there is no capability to drop (an
    ordinary user; then the child is started the fast way, without a Python step after fork)."""
    return _drop_ptrace if _PRCTL is not None and _holds_ptrace() else None
