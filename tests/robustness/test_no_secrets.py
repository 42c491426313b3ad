"""7. No secrets on disk: a session with a recognisable fake key (a compaction, a shell command
printing its environment, a failed request, the debug log, the REPL's input history) leaves no
trace of the key anywhere in the data folder. The data folder is 0700, its files 0600."""

from __future__ import annotations

import stat
import sys

import pexpect

from tests.fake_openai import Error, FakeOpenAI
from tests.robustness.harness import (
    FAKE_KEY,
    MAIN,
    SMALL_WINDOW,
    agent_env,
    crash_text,
    long_history,
    prepare_session,
    run_agent,
)


def test_no_key_on_disk_and_private_permissions(tmp_path, workspace):
    home = tmp_path / "home"
    prepare_session(home, workspace, long_history())
    key = {"API_KEY": FAKE_KEY}
    with FakeOpenAI(api_key=FAKE_KEY) as server:  # answers 401 unless the key is sent
        done = run_agent(
            workspace,
            home,
            server,
            "--continue",
            "--context-window",
            SMALL_WINDOW,
            "--debug",
            "--yes",
            "-p",
            "run env",
            **key,
        )
        assert done.returncode == 0 and "Done: run_command" in done.stdout, done.stderr
        server.script(Error(500, "boom"))
        failed = run_agent(workspace, home, server, "--continue", "--debug", "-p", "again", **key)
        assert failed.returncode == 1 and not crash_text(failed.stderr)
        child = pexpect.spawn(
            sys.executable,
            [str(MAIN), "--base-url", server.base_url, "--continue", "--debug"],
            cwd=str(workspace),
            env=agent_env(home, **key),
            encoding="utf-8",
            timeout=20,
        )
        try:
            child.expect_exact("\x1b[?2004h")
            child.send("hello from the terminal\r")
            child.expect("Echo: hello from the terminal")
            child.expect_exact("\x1b[?2004h")
            child.send("/exit\r")
            child.expect(pexpect.EOF)
        finally:
            child.close(force=True)
        assert all(r["headers"].get("authorization") == f"Bearer {FAKE_KEY}" for r in server.requests)

    files = [p for p in home.rglob("*") if p.is_file()]
    names = {p.name for p in files}
    assert "debug.log" in names and "input_history" in names
    assert any(p.parent.name == "compact-history" for p in files), "the run should have archived"
    assert any(b"PATH=" in p.read_bytes() for p in files if p.suffix == ".jsonl"), "env output was saved"
    for path in files:
        data = path.read_bytes()
        for needle in (FAKE_KEY, FAKE_KEY[3:], FAKE_KEY[-16:]):
            assert needle.encode() not in data, f"{needle} in {path}"
    for path in [home, *home.rglob("*")]:
        mode = stat.S_IMODE(path.stat().st_mode)
        if path.is_dir():
            assert mode == 0o700, f"{path} is {mode:o}"
        else:
            assert mode == 0o600, f"{path} is {mode:o}"
