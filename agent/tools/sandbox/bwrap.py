"""The bubblewrap command line for a sandboxed command (agent.tools.sandbox.confine's Layout).

The whole file system is bound read-only, then the writable folders read-write over it, then the
protected paths read-only again over those, so the last word on a path is the strictest. Each `.git`
folder is bound onto itself as well: a mount point cannot be renamed, so `mv .git x` cannot take
the read-only hooks out of the way. An absent protected path gets an empty read-only folder as its
placeholder (bubblewrap makes the mount point; confine removes it after). Secrets get an empty
placeholder too. /tmp is a private folder; /run (docker's and the session bus's sockets) an empty
tmpfs.

Namespaces: user (and no more inside: --disable-userns), PID (the command sees only its own
processes, and all of them die with it: bubblewrap's init ends them when the command ends), IPC,
and network unless the policy allows it (a new network namespace has only its own loopback).
Capabilities are dropped even for root (a root with CAP_SYS_ADMIN could remount / read-write).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent.tools.sandbox.layout import Layout

NAMESPACES = ("--unshare-user", "--disable-userns", "--unshare-pid", "--unshare-ipc")
SESSION = ("--die-with-parent", "--new-session", "--cap-drop", "ALL")
SYSTEM = ("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc")  # everything read-only, its own /dev and /proc
# With the network on, the resolver systemd-resolved offers lives under the hidden /run.
RESOLVER = "/run/systemd/resolve"


def probe_argv(program: str) -> list[str]:
    """A sandbox as every command gets it, running `true`: whether bubblewrap works here."""
    return [program, *NAMESPACES, "--unshare-net", *SESSION, *SYSTEM, "--", "true"]


def _pairs(flag: str, paths: list[Path]) -> list[str]:
    out: list[str] = []
    for path in paths:
        out += [flag, str(path), str(path)]
    return out


def argv(program: str, layout: Layout, inner: list[str], report: int | None = None) -> list[str]:
    """`report`: a file descriptor bubblewrap writes its first process's pid to (--info-fd)."""
    out = [program, *(["--info-fd", str(report)] if report is not None else [])]
    out += [*NAMESPACES, *([] if layout.network else ["--unshare-net"]), *SESSION, *SYSTEM, "--tmpfs", "/run"]
    if layout.network:
        out += ["--ro-bind-try", RESOLVER, RESOLVER]
    out += ["--bind", str(layout.tmp), "/tmp"]
    out += _pairs("--ro-bind", layout.visible)
    out += _pairs("--bind", layout.writable)
    out += _pairs("--bind", layout.git_dirs)
    out += _pairs("--ro-bind", layout.read_only)
    for path in layout.absent:
        out += ["--ro-bind", str(layout.empty_dir), str(path)]
    for path in layout.hidden:
        out += ["--ro-bind", str(layout.empty_dir if path.is_dir() else layout.empty_file), str(path)]
    out += ["--chdir", str(layout.cwd), "--setenv", "TMPDIR", "/tmp", "--", *inner]
    return out
