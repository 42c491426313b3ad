"""Commands under the real Landlock fallback (agent/tools/sandbox/landlock.py), chosen directly as detect
chooses it where bubblewrap is missing. SKIPPED, saying why, where the kernel has no Landlock."""

from __future__ import annotations

import os
import subprocess

from tests.sandbox_kit import connect, landlock, processes_named, run, tcp_server


def test_writes_go_where_the_policy_says(workspace, tmp_path):
    sandbox = landlock(workspace)
    (workspace / "src").mkdir()
    (workspace / "notes.txt").write_text("a\n")
    outside = tmp_path / "outside.txt"
    out = run(
        sandbox,
        f"echo b >> notes.txt; echo x > src/new.py; echo t > $TMPDIR/t && echo TMP-OK; "
        f"echo x > {outside}; touch new-at-the-top",
    )
    assert (workspace / "notes.txt").read_text() == "a\nb\n" and (workspace / "src" / "new.py").exists()
    assert "TMP-OK" in out
    assert not outside.exists()
    # Landlock cannot take a path back inside a writable folder: nothing is created at the top.
    assert not (workspace / "new-at-the-top").exists() and "Permission denied" in out


def test_protected_paths_stay_read_only(workspace):
    sandbox = landlock(workspace)
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    config = (workspace / ".git" / "config").read_text()
    out = run(
        sandbox,
        "echo x > .git/hooks/pre-commit; echo x >> .git/config; mkdir .coding-agent; "
        "echo x > .mcp.json; echo x > .git/description && echo OBJECTS-WRITABLE",
    )
    assert "OBJECTS-WRITABLE" in out
    assert not (workspace / ".git" / "hooks" / "pre-commit").exists()
    assert (workspace / ".git" / "config").read_text() == config
    assert not (workspace / ".coding-agent").exists() and not (workspace / ".mcp.json").exists()


def test_the_agents_memory_and_environment_are_out_of_reach(workspace):
    sandbox = landlock(workspace)
    me = os.getpid()
    out = run(
        sandbox,
        f"cat /proc/{me}/environ > /dev/null && echo ENVIRON-READ; "
        f"head -c 1 /proc/{me}/mem > /dev/null && echo MEM-READ; echo done",
    )
    assert "done" in out and "ENVIRON-READ" not in out and "MEM-READ" not in out


def test_no_tcp_connection(workspace):
    sandbox = landlock(workspace)
    if sandbox.mechanism.abi < 4:
        import pytest

        pytest.skip(f"SKIPPED: Landlock ABI {sandbox.mechanism.abi} cannot stop TCP (ABI 4 can)")
    with tcp_server() as (port, accepted):
        out = run(sandbox, connect(port))
        assert "CONNECTED" not in out and accepted == []


def test_what_the_command_started_ends_with_it(workspace):
    sandbox = landlock(workspace)
    marker = f"{3000 + os.getpid() % 1000}.{os.getpid()}"  # a sleep no one else runs
    run(sandbox, f"setsid sleep {marker} & nohup sleep {marker} > /dev/null 2>&1 & echo started")
    assert processes_named(f"sleep\0{marker}") == []


def test_a_command_is_never_run_unconfined_when_the_ruleset_fails(workspace):
    import sys

    from agent.tools.sandbox.landlock import ROOT, encode

    sandbox = landlock(workspace)
    (workspace / "a-file").write_text("x")
    # Folder rights on a file: the kernel refuses the rule, so the launcher must refuse to run.
    task = {
        "abi": sandbox.mechanism.abi,
        "network": False,
        "nproc": None,
        "cwd": str(workspace),
        "dirs": [str(workspace / "a-file")],
        "files": [],
        "argv": ["/bin/sh", "-c", "touch ran-unconfined"],
    }
    code = f"import sys; sys.path.insert(0, {ROOT!r}); from agent.tools.sandbox.landlock import main; main()"
    done = subprocess.run([sys.executable, "-I", "-S", "-c", code, *encode(task)], capture_output=True, text=True)
    assert done.returncode == 126 and "sandbox (Landlock)" in done.stderr
    assert not (workspace / "ran-unconfined").exists()
