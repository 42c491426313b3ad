"""5. One session, one writer: a second agent process on the same session is refused with a
clear message; the lock (an flock) is released by the kernel when its holder dies, so a crashed
agent never leaves a session stuck."""

from __future__ import annotations

import io

import pytest

import main
import session
from agent.events import Listing, Notice, Question
from tests.fake_replies import Hang
from tests.robustness.harness import (
    crash_text,
    long_history,
    prepare_session,
    run_agent,
    session_path,
    start_agent,
    wait_for,
)
from ui.registry import CommandHost


def _lock_holder(home, workspace, session_id) -> str:
    path = session_path(home, workspace, session_id).with_suffix(".lock")
    return path.read_text().strip() if path.exists() else ""


def test_second_process_is_refused_and_a_killed_one_leaves_no_lock(tmp_path, workspace, server):
    home = tmp_path / "home"
    session_id = prepare_session(home, workspace, long_history(turns=2, words=20))
    # The first agent's request is answered only when the server stops, and the agent waits for it as
    # long (the harness's 20 s request timeout would end it): it holds the session for as long as the
    # test needs, however loaded the machine (a slow answer, or a timeout, could end it first).
    server.script(Hang(600))
    first = start_agent(workspace, home, server, "--continue", "-p", "hello", CODING_AGENT_TIMEOUT="600")
    try:
        assert wait_for(lambda: _lock_holder(home, workspace, session_id) == str(first.pid), 20)
        assert wait_for(lambda: len(server.requests) == 1, 60)  # it is waiting on its answer
        before = session_path(home, workspace, session_id).read_bytes()
        for args in (["--continue", "-p", "me too"], ["--resume", session_id, "-p", "me too"], ["--continue"]):
            second = run_agent(workspace, home, server, *args)
            assert second.returncode == 2, second.stderr
            assert not crash_text(second.stderr)
            [line] = second.stderr.strip().splitlines()
            assert f"Session {session_id} is open in another coding-agent process (pid {first.pid})" in line
            assert second.stdout == ""
        assert session_path(home, workspace, session_id).read_bytes().startswith(before)
        assert first.poll() is None
    finally:
        first.kill()  # SIGKILL: no cleanup, the lock file stays behind
        first.communicate(timeout=30)
    assert _lock_holder(home, workspace, session_id) == str(first.pid)
    after = run_agent(workspace, home, server, "--continue", "-p", "my turn")
    assert after.returncode == 0 and "Echo: my turn" in after.stdout, after.stderr


def test_lock_is_one_per_session_not_per_process(home, workspace):
    lock = session.SessionLock("s1", workspace)
    with pytest.raises(session.SessionLocked, match="open in another coding-agent process"):
        session.SessionLock("s1", workspace)
    other = session.SessionLock("s2", workspace)  # another session is free
    lock.release()
    again = session.SessionLock("s1", workspace)  # released: free again
    again.release()
    other.release()


class _App(CommandHost):
    """A slash command's host whose UI keeps what is said and answers every question `answer`."""

    def __init__(self, state, answer: str) -> None:
        super().__init__(state)
        self.answer = answer
        self.out = io.StringIO()
        state.emit = self._ui

    def _ui(self, event):
        if isinstance(event, Notice | Listing):
            self.out.write("\n".join(event.lines) if isinstance(event, Listing) else event.text)
            self.out.write("\n")
        if isinstance(event, Question):
            return self._reply()
        return None

    async def _reply(self) -> str:
        return self.answer


async def test_resume_into_a_session_open_elsewhere_is_refused_in_the_repl(home, workspace, server, resume):
    busy = prepare_session(home, workspace, long_history(turns=1, words=5))
    held = session.SessionLock(busy, workspace)  # "another process" (flock is per open file)
    try:
        mine = prepare_session(home, workspace, long_history(turns=1, words=5))
        state = resume(mine)
        app = _App(state, answer="1")
        await main.submit(app, "/resume")
        assert f"Session {busy} is open in another coding-agent process" in app.out.getvalue()
        assert state.session_id == mine  # still on its own session, still holding its lock
        with pytest.raises(session.SessionLocked):
            session.SessionLock(mine, workspace)
    finally:
        held.release()
