"""Commands in the real bubblewrap sandbox (agent/tools/sandbox/bwrap.py): what a command may and may not
touch, see and reach. SKIPPED, saying why, where bubblewrap cannot run."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from agent.tools.grep_worker import run as grep_run
from agent.tools.sandbox import confine
from agent.tools.shell import command_env
from tests.robustness.harness import wait_for
from tests.sandbox_kit import bubblewrap, connect, processes_named, run, tcp_server


def test_the_workspace_is_writable_and_the_rest_is_not(workspace, tmp_path):
    sandbox = bubblewrap(workspace)
    sibling = tmp_path / "sibling.txt"  # under /tmp: the write lands in the sandbox's private /tmp
    elsewhere = f"/etc/coding-agent-sandbox-test-{os.getpid()}"
    try:
        out = run(sandbox, f"echo in > inside.txt && cat inside.txt; echo out > {sibling}; echo out > {elsewhere}")
    finally:
        if os.path.exists(elsewhere):
            os.unlink(elsewhere)
            raise AssertionError("a sandboxed command wrote to /etc")
    assert "in\n" in out and "Read-only file system" in out
    assert (workspace / "inside.txt").read_text() == "in\n"
    assert not sibling.exists()


def test_protected_paths_stay_read_only_and_absent_ones_cannot_be_made(workspace):
    sandbox = bubblewrap(workspace)
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    config = (workspace / ".git" / "config").read_text()
    (workspace / ".claude").mkdir()
    out = run(
        sandbox,
        "echo x > .git/hooks/pre-commit; echo x >> .git/config; mkdir -p .coding-agent;"
        " echo x > .coding-agent/settings.json; echo x > .claude/settings.json; echo x > AGENTS.md;"
        " mv .git moved; echo x > .git/description && echo GIT-STILL-WORKS",
    )
    assert "GIT-STILL-WORKS" in out
    assert not (workspace / ".git" / "hooks" / "pre-commit").exists()
    assert (workspace / ".git" / "config").read_text() == config
    assert not (workspace / "moved").exists() and (workspace / ".git" / "HEAD").exists()
    assert list((workspace / ".claude").iterdir()) == []
    # The placeholders held the absent paths while it ran and are gone after.
    for name in (".coding-agent", ".mcp.json", "AGENTS.md", "CLAUDE.md"):
        assert not (workspace / name).exists(), name


def test_a_swapped_protected_link_is_reported(workspace, tmp_path):
    sandbox = bubblewrap(workspace)
    real = workspace / "config" / "claude"
    real.mkdir(parents=True)
    os.symlink("config/claude", workspace / ".claude")
    out = run(sandbox, "rm .claude && mkdir .claude && echo '{}' > .claude/settings.json")
    assert "replaced" in out and ".claude" in out


def test_tmp_is_private_and_tmpdir_points_at_it(workspace, tmp_path):
    sandbox = bubblewrap(workspace)
    marker = "sandbox-private-tmp-marker"
    out = run(sandbox, f"echo x > /tmp/{marker} && cat /tmp/{marker} && echo $TMPDIR")
    assert out.startswith("x\n/tmp\n")
    assert not os.path.exists(f"/tmp/{marker}")


def test_secrets_and_the_data_folder_are_hidden(workspace, tmp_path, monkeypatch, home):
    fake_home = tmp_path / "user"
    (fake_home / ".ssh").mkdir(parents=True)
    (fake_home / ".ssh" / "id_ed25519").write_text("PRIVATE KEY\n")
    (fake_home / ".netrc").write_text("machine x password SECRET\n")
    home.mkdir(exist_ok=True)
    (home / "settings.json").write_text('{"env": {"API_KEY": "sk-in-settings"}}')
    monkeypatch.setenv("HOME", str(fake_home))
    sandbox = bubblewrap(workspace)
    out = run(sandbox, f"ls ~/.ssh; cat ~/.netrc; cat {home}/settings.json; echo done")
    assert "id_ed25519" not in out and "SECRET" not in out and "sk-in-settings" not in out and "done" in out


def test_the_agent_is_not_there_to_see(workspace):
    sandbox = bubblewrap(workspace)
    me = os.getpid()
    out = run(sandbox, f"echo $$; ls /proc | grep -c '^[0-9]'; cat /proc/{me}/environ; head -c 1 /proc/{me}/mem")
    lines = out.splitlines()
    assert int(lines[0]) < 10 and int(lines[1]) < 10  # a PID namespace of its own
    assert "No such file" in out


def test_no_api_key_in_the_environment(workspace, monkeypatch):
    monkeypatch.setenv("API_KEY", "sk-must-not-leak")
    sandbox = bubblewrap(workspace)
    assert "sk-must-not-leak" not in run(sandbox, "env")


def test_no_network_unless_the_policy_allows_it(workspace):
    with tcp_server() as (port, accepted):
        out = run(bubblewrap(workspace), connect(port))
        assert "CONNECTED" not in out and accepted == []
        out = run(bubblewrap(workspace, network=True), connect(port))
        assert "CONNECTED" in out and len(accepted) == 1


def test_read_only_mode_writes_nowhere_but_tmp(workspace):
    sandbox = bubblewrap(workspace, mode="read-only")
    out = run(sandbox, "echo x > /tmp/t && echo TMP-OK; echo x > inside.txt")
    assert "TMP-OK" in out and "Read-only file system" in out
    assert not (workspace / "inside.txt").exists()


def test_writable_roots_are_writable(workspace, tmp_path):
    extra = tmp_path / "cache"
    extra.mkdir()
    sandbox = bubblewrap(workspace, writable_roots=(extra.resolve(),))
    run(sandbox, f"echo x > {extra}/made")
    assert (extra / "made").read_text() == "x\n"


def test_the_grep_worker_runs_in_it_with_nothing_to_write(workspace):
    import asyncio

    sandbox = bubblewrap(workspace)
    (workspace / "a.txt").write_text("needle here\n")
    outcome = asyncio.run(
        grep_run(
            "needle",
            [(str(workspace / "a.txt"), "a.txt")],
            line_cap=100,
            show_cap=100,
            max_matches=10,
            timeout=20,
            env=command_env(),
            sandbox=sandbox,
        )
    )
    assert outcome.lines == ["a.txt:1:needle here"]
    with sandbox.launch([sys.executable, "-c", "open('w.txt', 'w')"], workspace, command_env(), write=False) as launch:
        done = subprocess.run(launch.argv, env=launch.env, capture_output=True, text=True, pass_fds=launch.pass_fds)
    assert done.returncode != 0 and "Read-only file system" in done.stderr
    assert not (workspace / "w.txt").exists()


def test_the_rules_ask_for_no_sandbox_at_all_without_a_policy(workspace):
    from agent.config import Config

    assert confine.for_commands(Config(workspace=workspace), workspace) is None


def test_a_command_right_after_another_sees_the_absent_paths_as_absent(workspace):
    from agent.tools.shell import execute

    sandbox = bubblewrap(workspace)

    async def twice() -> list[str]:  # no settle between them: the first one's placeholders may be going
        return [await execute("echo hello", workspace, 30, sandbox) for _ in range(2)]

    assert [out.splitlines()[0] for out in asyncio.run(twice())] == ["hello", "hello"]
    confine.settle()
    assert not (workspace / ".git").exists() and not (workspace / "AGENTS.md").exists()


def test_a_command_beside_a_running_one_cannot_fill_its_empty_git_placeholder(workspace):
    """With no `.git`, bubblewrap leaves an empty folder as the mount point of the read-only one. A
    second command started while the first runs must take that folder for absent too, not for a
    repository it may write (a planted `.git` would outlive both)."""
    from agent.tools.shell import execute

    sandbox = bubblewrap(workspace)

    async def overlapping() -> str:
        first = asyncio.create_task(
            execute("touch started; while [ ! -e go ]; do sleep 0.05; done; echo first", workspace, 60, sandbox)
        )
        while not (workspace / "started").exists() and not first.done():
            await asyncio.sleep(0.02)
        second = await execute("mkdir .git/objects && echo ref > .git/HEAD && echo PLANTED", workspace, 30, sandbox)
        (workspace / "go").touch()
        await first
        return second

    second = asyncio.run(overlapping())
    confine.settle()
    assert "PLANTED" not in second, second
    assert not (workspace / ".git").exists()


def _parent(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


async def _endless(tool: str, workspace: Path, sandbox: confine.Sandbox) -> object:
    """A sandboxed grep whose regex never ends on its file, or a command that sleeps for ten minutes."""
    from agent.tools.shell import execute

    if tool != "grep":
        return await execute("sleep 600", workspace, 600, sandbox)
    (workspace / "evil.txt").write_text("a" * 45 + "!\n")
    limits = {"line_cap": 100, "show_cap": 100, "max_matches": 10}
    files = [(str(workspace / "evil.txt"), "evil.txt")]
    return await grep_run("(a+)+$", files, **limits, timeout=600, env=command_env(), sandbox=sandbox)


@pytest.mark.parametrize("tool", ["grep", "run_command"])
def test_a_tool_cancelled_while_its_sandbox_is_set_up_leaves_nothing_running(workspace, tool):
    """bubblewrap's first process ties its life to bubblewrap's only once the sandbox is set up: a
    Ctrl-C before then must end it all the same. It is frozen the moment it exists, so the cancel
    lands during the set-up; left behind, it would hold the tool's output pipe (the grep's cancel
    would never end) and then run the search or the command."""
    sandbox = bubblewrap(workspace)
    marker = str(workspace)  # on bubblewrap's command line, and on no other process's

    def first_process() -> int | None:  # a child of bubblewrap, which is a child of ours
        return next((pid for pid in processes_named(marker) if _parent(_parent(pid) or 0) == os.getpid()), None)

    async def cancel_in_setup() -> int:
        task = asyncio.create_task(_endless(tool, workspace, sandbox))
        deadline = asyncio.get_running_loop().time() + 20
        while (first := first_process()) is None and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0)
        assert first is not None, "bubblewrap's first process never appeared"
        os.kill(first, signal.SIGSTOP)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, 20)  # a TimeoutError instead: the cancel hung on the pipe
        return first

    try:
        first = asyncio.run(cancel_in_setup())
        assert wait_for(lambda: not _alive(first), 10), "the sandbox's first process outlived the cancel"
    finally:
        for pid in processes_named(marker):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize("tool", ["grep", "run_command"])
def test_a_tool_cancelled_while_it_is_being_started_leaves_nothing_running(workspace, tool, monkeypatch):
    """A cancel can land inside asyncio's start of the process, after the process exists (asyncio
    is still connecting its pipes): the start is seen to its end and the sandbox stopped whole, not
    left running with nothing to wait for it. The start is held open until the cancel has landed."""
    sandbox = bubblewrap(workspace)
    marker = str(workspace)
    real = asyncio.create_subprocess_exec

    async def cancelled_while_starting() -> None:
        started, gate = asyncio.Event(), asyncio.Event()

        async def held_start(*args: object, **kwargs: object) -> asyncio.subprocess.Process:
            proc = await real(*args, **kwargs)
            started.set()
            await gate.wait()
            return proc

        monkeypatch.setattr(asyncio, "create_subprocess_exec", held_start)
        task = asyncio.create_task(_endless(tool, workspace, sandbox))
        await asyncio.wait_for(started.wait(), 20)
        task.cancel()  # lands where the task waits: inside the start
        gate.set()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, 20)

    try:
        asyncio.run(cancelled_while_starting())
        assert wait_for(lambda: not processes_named(marker), 10), "the sandbox outlived the cancel"
    finally:
        for pid in processes_named(marker):
            os.kill(pid, signal.SIGKILL)


def test_a_stale_report_does_not_kill_a_process_that_took_the_number(workspace):
    """The sandbox's first process may be gone and its pid reused by then: a process outside the
    PID namespace bubblewrap reported is left alone."""
    other = subprocess.Popen(["sleep", "600"])
    try:
        with bubblewrap(workspace).launch(["true"], workspace, command_env()) as launch:
            ours = os.stat(f"/proc/{other.pid}/ns/pid").st_ino
            read_fd, write_fd = os.pipe()
            os.write(write_fd, b'{"child-pid": %d, "pid-namespace": %d}' % (other.pid, ours + 1))
            os.close(write_fd)
            launch._report = read_fd
            asyncio.run(launch.kill_inside())
            os.close(read_fd)
        assert other.poll() is None, "an unrelated process with the reported number was killed"
    finally:
        other.kill()
        other.wait()
