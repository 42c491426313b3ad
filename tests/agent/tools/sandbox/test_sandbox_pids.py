"""Root's process limit (agent/tools/sandbox/pids.py): each command gets a pids cgroup of its own,
folders that ended runs left are removed, and a command whose limit cannot be set does not run.
Played by root where a pids cgroup can be made; SKIPPED elsewhere (there the limit is RLIMIT_NPROC)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent.tools.sandbox import pids
from tests.sandbox_kit import bubblewrap, run


@pytest.fixture
def parent() -> Path:
    if os.geteuid() != 0 or (found := pids.cgroup_parent()) is None:
        pytest.skip("SKIPPED: not root, or no pids cgroup can be made here: the limit is RLIMIT_NPROC")
    return found


def _gone_pid() -> int:
    """A process number no process has: above the kernel's largest."""
    return int(Path("/proc/sys/kernel/pid_max").read_text()) + 1


def test_a_command_of_root_starts_inside_its_own_pids_cgroup(workspace, parent):
    first = run(bubblewrap(workspace), "cat /proc/self/cgroup")
    second = run(bubblewrap(workspace), "cat /proc/self/cgroup")
    mine = [line for line in (first + second).splitlines() if f"{pids.PREFIX}{os.getpid()}-" in line]
    assert len(mine) == 2 and mine[0] != mine[1], first + second


def test_the_folders_of_runs_that_are_gone_are_removed(workspace, parent):
    stale = parent / f"{pids.PREFIX}{_gone_pid()}-0"
    stale.mkdir()
    try:
        assert run(bubblewrap(workspace), "echo ran").startswith("ran")
        assert not stale.exists()
    finally:
        if stale.exists():
            stale.rmdir()


def test_the_folder_of_a_run_still_going_is_kept(workspace, parent):
    theirs = parent / f"{pids.PREFIX}{os.getppid()}-0"  # pytest's parent process is alive
    theirs.mkdir()
    try:
        run(bubblewrap(workspace), "true")
        assert theirs.exists()
    finally:
        theirs.rmdir()


def test_a_limit_that_cannot_be_set_stops_the_command(workspace, parent):
    mine = f"{pids.PREFIX}{os.getpid()}-"
    before = {entry.name for entry in os.scandir(parent) if entry.name.startswith(mine)}
    with pytest.raises(OSError, match="process limit cannot be set"):
        run(bubblewrap(workspace, max_processes=-1), "touch ran")  # pids.max refuses -1
    assert not (workspace / "ran").exists()
    assert {entry.name for entry in os.scandir(parent) if entry.name.startswith(mine)} <= before
