"""API keys leave the environment once read: the agent keeps them in memory (Config.api_key).

Removing a variable from os.environ is not enough: /proc/<pid>/environ shows the environment the
process was started with, from its own memory, so any command the user approves could read the
key there with `cat /proc/$PPID/environ`. The bytes of each removed variable are overwritten too.
"""

from __future__ import annotations

import ctypes
import os
import sys


def is_key_name(name: str) -> bool:
    """The variables that hold API keys: never passed on, never left in our environment."""
    return name == "API_KEY" or name.endswith("_API_KEY")


def _initial_environment() -> tuple[int, int] | None:
    """Where the kernel put our start-up environment (fields 50-51 of /proc/self/stat)."""
    try:
        stat = open("/proc/self/stat").read()  # noqa: SIM115 - one short read
        fields = stat.rsplit(")", 1)[1].split()
        # fields[0] is field 3 (state): field n is fields[n - 3].
        return int(fields[47]), int(fields[48])
    except (OSError, ValueError, IndexError):
        return None


def _wipe_initial(names: set[str]) -> None:
    where = _initial_environment()
    if where is None or not sys.platform.startswith("linux"):
        return
    start, end = where
    if not 0 < start < end or end - start > 1 << 24:
        return
    block = ctypes.string_at(start, end - start)
    offset = 0
    for entry in block.split(b"\0"):
        name = entry.split(b"=", 1)[0].decode(errors="replace")
        if b"=" in entry and name in names:
            ctypes.memset(start + offset, 0, len(entry))
        offset += len(entry) + 1


def scrub_environment() -> list[str]:
    """Remove every key variable from our environment, and its start-up copy; returns the names."""
    names = {name for name in os.environ if is_key_name(name)}
    for name in names:
        os.environ.pop(name, None)
    if names:
        _wipe_initial(names)
    return sorted(names)
