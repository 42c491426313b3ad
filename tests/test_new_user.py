"""What a new user meets first: the command line, one-shot mode, the small texts of the REPL."""

from __future__ import annotations

import session
from agent.context import compact_at_range
from tests.test_main import run_main


def test_print_mode_says_it_declined_a_command(workspace, home, server):
    result = run_main(["--base-url", server.base_url, "-p", "run touch made.txt"], workspace, home)
    assert not (workspace / "made.txt").exists()
    assert "touch made.txt" in result.stderr and "--yes" in result.stderr


def test_print_mode_refuses_an_empty_message(workspace, home, server):
    for prompt in ("", "   "):
        result = run_main(["--base-url", server.base_url, "-p", prompt], workspace, home)
        assert result.returncode == 2 and "-p" in result.stderr
    assert server.requests == [] and session.list_sessions(workspace) == []


def test_compact_at_outside_the_range_is_refused_with_the_range(workspace, home, server):
    low, high = compact_at_range(16_000)
    for value in ("200%", str(high + 1), "1%"):
        result = run_main(["--base-url", server.base_url, "--context-window", "16000", "--compact-at", value,
                           "-p", "hi"], workspace, home)
        assert result.returncode == 2
        assert f"{low:,}" in result.stderr and f"{high:,}" in result.stderr, result.stderr
    assert server.requests == []


def test_errors_name_the_installed_command(workspace, home):
    result = run_main(["--context-window", "abc"], workspace, home)
    assert result.returncode == 2
    assert "usage: coding-agent" in result.stderr and "main.py" not in result.stderr


def test_no_lock_file_stays_behind(workspace, home, server):
    for prompt in ("first", "second"):
        assert run_main(["--base-url", server.base_url, "-p", prompt], workspace, home).returncode == 0
    folder = session.project_dir(workspace)
    assert len(list(folder.glob("*.jsonl"))) == 2
    assert list(folder.glob("*.lock")) == []


def test_a_released_lock_removes_its_file_and_a_lock_on_a_removed_file_is_not_taken(home, workspace):
    lock = session.SessionLock("s1", workspace)
    path = lock.path
    lock.release()
    assert not path.exists()
    again = session.SessionLock("s1", workspace)
    # Someone removed the file after we opened it: the next taker must not get a second lock.
    path.unlink()
    third = session.SessionLock("s1", workspace)
    assert path.exists() and third.path == path
    again.release()  # not the file at the path any more: it must not remove the third's
    assert path.exists()
    third.release()
    assert not path.exists()
