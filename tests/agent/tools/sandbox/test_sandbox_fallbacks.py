"""Where bubblewrap is missing (the Landlock fallback) and where nothing works (no sandbox: said once at
start, commands asked about as before), through `coding-agent -p`. The stronger mechanisms are hidden
with the test switch, which counts only in a data folder the harness marked (agent.store.faults)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from agent.store.faults import ARMING_FILE
from agent.tools.sandbox import detect
from tests.fake_openai import FakeOpenAI, ToolCalls
from tests.robustness import harness


def play(workspace, home, command: str, switch: str, *args: str) -> subprocess.CompletedProcess[str]:
    home.mkdir(parents=True, exist_ok=True)
    (home / ARMING_FILE).touch()  # the harness's mark: only here does the switch count
    with FakeOpenAI() as server:
        server.script(ToolCalls([("run_command", {"command": command})]))
        return harness.run_agent(
            workspace, home, server, "-p", "go", *args, API_KEY="k", CODING_AGENT_SANDBOX_TEST=switch
        )


def test_with_no_sandbox_it_says_so_once_and_asks_as_before(workspace, home):
    done = play(workspace, home, "touch made.txt", "none")
    assert done.stderr.count("No OS sandbox here") == 1, done.stderr
    assert "bubblewrap hidden by the test switch" in done.stderr and "Landlock unavailable" in done.stderr
    assert done.returncode == 3 and "Declined to run `touch made.txt`" in done.stderr
    assert not (workspace / "made.txt").exists()


def test_the_switch_does_nothing_in_a_data_folder_the_harness_did_not_mark(workspace, home):
    with FakeOpenAI() as server:
        server.script(ToolCalls([("run_command", {"command": "echo hi"})]))
        done = harness.run_agent(workspace, home, server, "-p", "go", API_KEY="k", CODING_AGENT_SANDBOX_TEST="none")
    if detect.find(workspace).works:
        assert "No OS sandbox" not in done.stderr and done.returncode == 0, done.stderr


def test_the_landlock_fallback_confines_and_offers_to_run_outside(workspace, home, tmp_path):
    if not detect.landlock_abi():
        pytest.skip("SKIPPED: this kernel has no Landlock (or it is off): the fallback cannot run here")
    (workspace / "src").mkdir()
    outside = tmp_path / "outside.txt"
    done = play(workspace, home, f"echo ok > src/made.txt; echo no > {outside}", "landlock")
    assert "OS sandbox: Landlock ABI" in done.stderr and "bubblewrap hidden by the test switch" in done.stderr
    assert (workspace / "src" / "made.txt").read_text() == "ok\n"
    assert not outside.exists()
    assert done.returncode == 3 and "Declined to run" in done.stderr and "outside the sandbox" in done.stderr


def test_danger_full_access_says_nothing_and_asks_as_before(workspace, home):
    done = play(workspace, home, "touch made.txt", "none", "--sandbox", "danger-full-access")
    assert "OS sandbox" not in done.stderr
    assert done.returncode == 3 and not (workspace / "made.txt").exists()


def test_yes_with_no_sandbox_runs_as_before(workspace, home):
    done = play(workspace, home, f"{sys.executable} -c \"open('made.txt', 'w')\"", "none", "--yes")
    assert done.returncode == 0 and (workspace / "made.txt").exists()
    assert os.path.getsize(workspace / "made.txt") == 0
