"""The Landlock fallback (Linux 5.13+), for where bubblewrap is missing or user namespaces are off.

Landlock only grants: a ruleset names the rights it handles, and a process may then use them only
beneath the paths a rule gives them to. A grant on a folder covers everything under it, so a path
inside a writable folder cannot be taken back. Hence: each entry at the top of a writable folder is
granted except the protected ones, and the folder itself gets nothing. Under Landlock a command
cannot create, delete or rename what sits directly in the workspace (nor in `.git/`: git's
`index.lock`); it fails with "Permission denied" and the agent offers to run it outside.
Reads are not restricted (nor are secrets hidden); TCP connect and bind are stopped from ABI 4;
signals and abstract Unix sockets outside the sandbox from ABI 6. A Landlocked process cannot trace
or read the memory of a process outside its domain (the agent).

The command runs under a small launcher (this module run as a script, in a fresh Python without
site-packages) that makes itself the subreaper of everything the command starts: when the command
ends, or the launcher is told to stop, it kills what is left, `setsid` and `nohup` children
included. The ruleset is applied in the launcher's child only, so the launcher can still signal it.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys

TYPE_CHECKING = False  # typing's own costs the launcher a tenth of its start-up
if TYPE_CHECKING:
    from pathlib import Path

    from agent.tools.sandbox.layout import Layout

# The checkout: agent/tools/sandbox/ is three folders down. No pathlib, json or typing: the launcher imports
# this module before every command, and they would be most of its start-up.
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__)))))
CREATE_RULESET, ADD_RULE, RESTRICT_SELF = 444, 445, 446
RULE_PATH_BENEATH = 1
PR_SET_NO_NEW_PRIVS, PR_SET_CHILD_SUBREAPER, PR_SET_PDEATHSIG, PR_CAPBSET_DROP = 38, 36, 1, 24
O_PATH = getattr(os, "O_PATH", 0o10000000)

WRITE_FILE, REMOVE_DIR, REMOVE_FILE = 1 << 1, 1 << 4, 1 << 5
MAKES = sum(1 << bit for bit in range(6, 13))  # char, dir, reg, sock, fifo, block, sym
REFER, TRUNCATE = 1 << 13, 1 << 14  # ABI 2, ABI 3
NET_TCP = 1 | 2  # bind, connect (ABI 4)
SCOPES = 1 | 2  # abstract Unix sockets, signals (ABI 6)
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/tty")


class RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def dir_rights(abi: int) -> int:
    return WRITE_FILE | REMOVE_DIR | REMOVE_FILE | MAKES | (REFER if abi >= 2 else 0) | (TRUNCATE if abi >= 3 else 0)


def file_rights(abi: int) -> int:
    return WRITE_FILE | (TRUNCATE if abi >= 3 else 0)


# --- what the launcher is told (built in the agent) -----------------------------------------


def _entries(folder: Path, skip: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """(folders, files) directly in `folder` but those named in `skip`; symlinks are left out (a
    rule follows them, maybe out of the folder)."""
    dirs, files = [], []
    try:
        found = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return dirs, files
    for entry in found:
        if entry.name in skip or entry.is_symlink():
            continue
        (dirs if entry.is_dir() else files).append(entry.path)
    return dirs, files


def job(layout: Layout, inner: list[str], abi: int, nproc: int | None) -> dict:
    from agent.tools.sandbox.policy import GIT_PROTECTED, PROTECTED_NAMES

    dirs, files = [str(layout.tmp)], [d for d in DEVICES if os.path.exists(d)]
    for root in layout.writable:
        more_dirs, more_files = _entries(root, PROTECTED_NAMES)
        dirs += more_dirs
        files += more_files
        git = root / ".git"
        if git.is_dir() and not git.is_symlink():
            more_dirs, more_files = _entries(git, GIT_PROTECTED)
            dirs += more_dirs
            files += more_files
    return {
        "dirs": dirs,
        "files": files,
        "abi": abi,
        "network": layout.network,
        "nproc": nproc,
        "argv": inner,
        "cwd": str(layout.cwd),
    }


def argv(layout: Layout, inner: list[str], abi: int, nproc: int | None) -> list[str]:
    code = f"import sys; sys.path.insert(0, {ROOT!r}); from agent.tools.sandbox.landlock import main; main()"
    return [sys.executable, "-I", "-S", "-c", code, *encode(job(layout, inner, abi, nproc))]


def encode(task: dict) -> list[str]:
    """The task as the launcher's arguments: abi, network, nproc, cwd, then each list after its length."""
    head = [str(task["abi"]), "1" if task["network"] else "0", str(task["nproc"] or 0), task["cwd"]]
    return head + [str(len(task["dirs"])), *task["dirs"], str(len(task["files"])), *task["files"], *task["argv"]]


def decode(args: list[str]) -> dict:
    abi, network, nproc, cwd, *rest = args
    n = int(rest[0])
    dirs, rest = rest[1 : 1 + n], rest[1 + n :]
    m = int(rest[0])
    files, inner = rest[1 : 1 + m], rest[1 + m :]
    return {
        "abi": int(abi),
        "network": network == "1",
        "nproc": int(nproc),
        "cwd": cwd,
        "dirs": dirs,
        "files": files,
        "argv": inner,
    }


# --- in the launcher's child: the ruleset ------------------------------------------------------


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> int:
    if result < 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")
    return result


def restrict(task: dict) -> None:
    """Apply the ruleset to this process (and all it will start); raises rather than run unconfined."""
    libc, abi = _libc(), task["abi"]
    handled = dir_rights(abi)
    attr = RulesetAttr(handled, NET_TCP if abi >= 4 and not task["network"] else 0, SCOPES if abi >= 6 else 0)
    ruleset = _check(
        libc.syscall(CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(ctypes.sizeof(attr)), 0),
        "landlock_create_ruleset",
    )
    try:
        for paths, rights in ((task["dirs"], handled), (task["files"], file_rights(abi))):
            for path in paths:
                try:
                    fd = os.open(path, O_PATH | os.O_CLOEXEC)
                except OSError:
                    continue  # gone since the agent looked: nothing to grant
                try:
                    rule = PathBeneathAttr(rights, fd)
                    _check(libc.syscall(ADD_RULE, ruleset, RULE_PATH_BENEATH, ctypes.byref(rule), 0), path)
                finally:
                    os.close(fd)
        _check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
        _check(libc.syscall(RESTRICT_SELF, ruleset, 0), "landlock_restrict_self")
    finally:
        os.close(ruleset)


# --- the launcher -----------------------------------------------------------------------------


def _children() -> list[int]:
    pid = os.getpid()
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(p) for p in f.read().split()]
    except OSError:
        kids = []
        for name in os.listdir("/proc"):
            try:
                with open(f"/proc/{name}/stat") as f:
                    if name.isdigit() and int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        kids.append(int(name))
            except (OSError, ValueError, IndexError):
                pass
        return kids


def end_all() -> None:
    """Kill every process left under us: orphans come to the subreaper, so repeat until none."""
    for _ in range(10_000):
        kids = _children()
        if not kids:
            return
        for kid in kids:
            try:
                os.kill(kid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            while os.waitpid(-1, os.WNOHANG)[0] > 0:
                pass
        except ChildProcessError:
            pass


def _stop(signum: int, _frame: object) -> None:
    end_all()
    os._exit(128 + signum)


def _child(task: dict) -> None:
    try:
        libc = _libc()
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # the launcher killed: this goes too
        if os.geteuid() == 0:  # as bubblewrap does: root keeps no capability (they outrank Landlock's ptrace rule)
            for cap in range(64):
                libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)
        if task["nproc"]:
            import resource

            resource.setrlimit(resource.RLIMIT_NPROC, (task["nproc"], task["nproc"]))
        restrict(task)
        os.chdir(task["cwd"])
        os.execv(task["argv"][0], task["argv"])
    except BaseException as exc:  # noqa: BLE001 - never run the command unconfined
        os.write(2, f"sandbox (Landlock): {exc}\n".encode(errors="replace"))
    os._exit(126)


def main() -> None:
    task = decode(sys.argv[1:])
    libc = _libc()
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)  # the agent gone: end the command too
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, _stop)
    pid = os.fork()
    if pid == 0:
        _child(task)
    status = 1
    while True:
        try:
            done, code = os.waitpid(-1, 0)
        except ChildProcessError:
            break
        if done == pid:
            status = os.waitstatus_to_exitcode(code)
            break
    end_all()
    os._exit(status if status >= 0 else 128 - status)
