"""What the OS sandbox adds to a command: the wall time of 100 short commands (`echo`) run through the
agent's own path (agent.tools.shell.execute: a process slot, the output pipe, the kill-on-timeout)
with no sandbox and in the sandbox, interleaved in one run so that the machine's load falls on both.
The figure is the time added per command (median of the per-command differences) and the ratio of
the totals; the target is 20 ms added per command. Beside it, what bubblewrap alone costs (its
namespaces, /dev and /proc around `true`, against `true`, started the same way), the floor under
the figure that no change on our side can take away. The Landlock fallback is measured the same way
where the kernel has it (no target: it starts a Python launcher per command).

    python bench/sandbox.py [--quick]
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench.common import Report, main, median  # noqa: E402

TARGET_MS = 20.0
COMMAND = "echo hello"


async def timings(sandboxes: dict[str, Any], workspace: Path, n: int) -> dict[str, list[float]]:
    """Seconds per command for each way, the ways taking turns command by command."""
    from agent.tools.shell import execute

    found: dict[str, list[float]] = {name: [] for name in sandboxes}
    for _ in range(n):
        for name, sandbox in sandboxes.items():
            start = time.perf_counter()
            out = await execute(COMMAND, workspace, 30, sandbox)
            found[name].append(time.perf_counter() - start)
            assert out.startswith("hello"), out
    return found


def bare_bwrap(program: str, n: int) -> float:
    """Median seconds bubblewrap's own sandbox (bwrap.probe_argv, running `true`) adds to `true`."""
    from agent.tools.sandbox.bwrap import probe_argv

    added = []
    for _ in range(n):
        start = time.perf_counter()
        subprocess.run(["true"], check=True)
        middle = time.perf_counter()
        subprocess.run(probe_argv(program), check=True)
        added.append((time.perf_counter() - middle) - (middle - start))
    return median(added)


async def run(quick: bool) -> None:
    from agent.config import SandboxPolicy
    from agent.tools.sandbox import detect
    from agent.tools.sandbox.confine import Sandbox

    report = Report("sandbox: the time a sandbox adds to a command", on_emulator=False)
    n = 20 if quick else 100
    with tempfile.TemporaryDirectory() as folder:
        workspace = Path(folder).resolve()
        mechanism = detect.find(workspace)
        sandboxes: dict[str, Any] = {"none": None}
        if mechanism.kind == "bubblewrap":
            sandboxes["bubblewrap"] = Sandbox(SandboxPolicy(), workspace, mechanism)
        if abi := detect.landlock_abi():
            sandboxes["landlock"] = Sandbox(
                SandboxPolicy(), workspace, detect.Mechanism("landlock", f"Landlock ABI {abi}", abi=abi)
            )
        await timings(sandboxes, workspace, 2)  # warm: the first bwrap, the first launcher import
        found = await timings(sandboxes, workspace, n)
    rows = [[name, len(times), 1000 * median(times), 1000 * sum(times)] for name, times in found.items()]
    report.table(["way", "commands", "median ms", "total ms"], rows)
    report.note(f"{mechanism.detail or mechanism.kind} on this machine; {n} commands each, interleaved")
    base = found["none"]
    for name in ("bubblewrap", "landlock"):
        if name not in found:
            report.note(f"{name}: not available here ({mechanism.missing})")
            continue
        added = 1000 * median([s - b for s, b in zip(found[name], base, strict=True)])
        ratio = sum(found[name]) / sum(base)
        target = f"<= {TARGET_MS:g} ms" if name == "bubblewrap" else None
        report.figure(
            f"sandbox_{name}_added_per_command", round(added, 1), "ms", target, added <= TARGET_MS if target else None
        )
        report.figure(f"sandbox_{name}_ratio", round(ratio, 2), "x")
    if mechanism.kind == "bubblewrap" and mechanism.program:
        report.figure("bwrap_alone_added", round(1000 * bare_bwrap(mechanism.program, n), 1), "ms")
    report.finish()


if __name__ == "__main__":
    main(run, __doc__)
