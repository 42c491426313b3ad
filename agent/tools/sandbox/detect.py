"""Which sandbox this machine has: bubblewrap (Linux, the strongest: its own mount, PID and network
namespaces), else Landlock (Linux 5.13+, no namespaces needed), else macOS's sandbox-exec, else none.

bubblewrap is tried for real once (a sandbox that runs `true`), since an installed `bwrap` fails
where user namespaces are off. It is looked for on PATH outside the workspace only, like git: a
`bwrap` the model wrote in the workspace would be a sandbox that lets everything through.

A test may hide the stronger mechanisms (CODING_AGENT_SANDBOX_TEST=landlock or none), but only in a
data folder the test harness marked (agent.store.faults.armed): a user who exports the variable
keeps their sandbox.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

from agent.store.faults import armed

TEST_SWITCH = "CODING_AGENT_SANDBOX_TEST"
SEATBELT = "/usr/bin/sandbox-exec"
LANDLOCK_CREATE_RULESET = 444  # the same number on every Linux architecture
LANDLOCK_CREATE_RULESET_VERSION = 1
PROBE_TIMEOUT = 10.0


@dataclass(frozen=True)
class Mechanism:
    """`kind` "bubblewrap", "landlock", "seatbelt" or "none"; `detail` what /status shows ("bubblewrap
    0.8.0", "Landlock ABI 7"); `missing` why each stronger one is not used (i18n keys with values)."""

    kind: str
    detail: str = ""
    program: str | None = None  # bwrap's or sandbox-exec's path
    abi: int = 0  # Landlock's
    missing: tuple[tuple[str, str], ...] = ()
    prlimit: str | None = None  # util-linux's prlimit, for bubblewrap's process limit

    @property
    def works(self) -> bool:
        return self.kind != "none"


def landlock_abi() -> int:
    """The kernel's Landlock ABI version, 0 where there is none (or it is off)."""
    if not sys.platform.startswith("linux"):
        return 0
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        abi = libc.syscall(LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0), LANDLOCK_CREATE_RULESET_VERSION)
    except (OSError, AttributeError):
        return 0
    return max(0, abi)


def _hidden() -> str:
    wanted = os.environ.get(TEST_SWITCH, "")
    return wanted if wanted in ("landlock", "none") and armed() else ""


def _try_bwrap(program: str) -> str:
    """ "" when bubblewrap can make our sandbox here, else its first line of error."""
    from agent.tools.sandbox.bwrap import probe_argv

    try:
        done = subprocess.run(
            probe_argv(program), capture_output=True, text=True, timeout=PROBE_TIMEOUT, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return str(exc)
    if done.returncode == 0:
        return ""
    return (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[0][:200]


def _bwrap_version(program: str) -> str:
    try:
        done = subprocess.run([program, "--version"], capture_output=True, text=True, timeout=PROBE_TIMEOUT)
        return done.stdout.strip() or "bubblewrap"
    except (OSError, subprocess.TimeoutExpired):
        return "bubblewrap"


def _linux(workspace: Path, hidden: str) -> Mechanism:
    from agent.tools.workspace import safe_path_dirs

    missing: list[tuple[str, str]] = []
    path = safe_path_dirs(workspace)
    program = shutil.which("bwrap", path=path)
    if hidden:
        missing.append(("sandbox_missing_test", ""))
    elif program is None:
        missing.append(("sandbox_missing_bwrap", ""))
    elif error := _try_bwrap(program):
        missing.append(("sandbox_bwrap_failed", error))
    else:
        return Mechanism("bubblewrap", _bwrap_version(program), program, prlimit=shutil.which("prlimit", path=path))
    abi = 0 if hidden == "none" else landlock_abi()
    if abi:
        return Mechanism("landlock", f"Landlock ABI {abi}", abi=abi, missing=tuple(missing))
    missing.append(("sandbox_missing_landlock", ""))
    return Mechanism("none", missing=tuple(missing))


def find(workspace: Path) -> Mechanism:
    """The mechanism commands run under here (probed once per workspace and PATH, then remembered)."""
    key = (str(workspace), os.environ.get("PATH", ""), _hidden())
    with _lock:
        if key not in _found:
            _found[key] = _probe(workspace, key[2])
        return _found[key]


def _probe(workspace: Path, hidden: str) -> Mechanism:
    if sys.platform.startswith("linux"):
        return _linux(workspace, hidden)
    if sys.platform == "darwin" and not hidden and os.access(SEATBELT, os.X_OK):
        return Mechanism("seatbelt", "sandbox-exec", SEATBELT)
    return Mechanism("none", missing=(("sandbox_missing_platform", sys.platform),))


def find_soon(workspace: Path) -> None:
    """Probe in the background (start-up does not wait for bwrap); `find` then waits for it."""
    threading.Thread(target=find, args=(workspace,), daemon=True, name="sandbox-probe").start()


_lock = threading.Lock()
_found: dict[tuple[str, str, str], Mechanism] = {}
