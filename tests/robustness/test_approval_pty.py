"""11. The approval question in a real terminal, attacked: a command dressed up with escape
sequences or sixty newlines is shown as it is; keys typed before the question cannot answer it;
Ctrl-C stops a grep whose regex would never end."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pexpect

from tests.fake_openai import Hang, Text, ToolCalls
from tests.pty_kit import ASKED, ask, leave, spawn, type_line, wait_prompt
from tests.robustness.harness import wait_for


def _grep_worker(agent: int) -> int | None:
    """The agent's grep worker (agent.tools.grep_worker), once it runs: a child process of `agent`."""
    for entry in Path("/proc").iterdir():
        try:
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            if parent == agent and b"grep_worker" in (entry / "cmdline").read_bytes():
                return int(entry.name)
        except (OSError, ValueError, IndexError):
            continue
    return None


def _declined(child: pexpect.spawn) -> None:
    child.send("n\r")
    child.expect("the user declined")
    wait_prompt(child)


def test_a_forged_command_is_shown_as_it_is(workspace, home, live_server):
    erased = "touch pwned-by-escape #\x1b[2K\x1b[1GRun command: ls -la"
    pushed = "touch pwned-by-newlines" + "\n" * 60 + "ls -la"
    live_server.script(
        ToolCalls([("run_command", {"command": erased})]),
        Text("Declined, then."),
        ToolCalls([("run_command", {"command": pushed})]),
    )
    child = spawn(workspace, home, live_server, *ASKED)
    wait_prompt(child)
    type_line(child, "tidy up")
    # The escapes are printed as text: the line is not erased, the real start stays in view.
    child.expect_exact("touch pwned-by-escape #\\x1b[2K\\x1b[1GRun command: ls -la")
    child.expect_exact("Allow? (the 1 line(s) above)")
    _declined(child)
    type_line(child, "again")
    child.expect_exact("(61 line(s), shown whole)")
    child.expect_exact("touch pwned-by-newlines")
    child.expect_exact("[59 empty lines]")
    child.expect_exact("ls -la")
    child.expect_exact("Allow? (the 61 line(s) above)")
    _declined(child)
    leave(child, "/exit")
    assert not list(workspace.glob("pwned*"))


def test_keys_typed_before_the_question_do_not_answer_it(workspace, home, live_server):
    answer = threading.Event()  # the model answers (asks to run a command) only when the test says so
    live_server.script(Hang(600, then=ToolCalls([("run_command", {"command": "touch typed-ahead"})]), release=answer))
    child = spawn(workspace, home, live_server, *ASKED)
    wait_prompt(child)
    type_line(child, "do something")
    assert wait_for(lambda: live_server.requests, 20)  # the model is thinking
    child.send("y\r")  # meant for something else: in the terminal's queue before the model answers
    answer.set()
    child.expect("Allow\\?")  # drawn only after the keys typed before it were dropped
    assert not (workspace / "typed-ahead").exists()
    child.send("n\r")
    child.expect("the user declined")  # the question was still open: the early "y" did not answer it
    wait_prompt(child)
    leave(child, "/exit")
    assert not (workspace / "typed-ahead").exists()


def test_ctrl_c_stops_a_regex_that_never_ends(workspace, home, live_server, monkeypatch):
    monkeypatch.setenv("CODING_AGENT_GREP_TIMEOUT", "600")  # Ctrl-C, not the time limit, must end it
    (workspace / "evil.txt").write_text("a" * 45 + "!\n")
    live_server.script(ToolCalls([("grep", {"pattern": "(a+)+$"})]))
    child = spawn(workspace, home, live_server)
    wait_prompt(child)
    type_line(child, "search for it")
    child.expect("grep")
    assert wait_for(lambda: _grep_worker(child.pid) is not None, 20)  # the regex is being matched
    worker = _grep_worker(child.pid)
    # Out of the terminal's process group: `re` stops on SIGINT, and a worker that ended by itself
    # just as the agent cancelled could pass its partial matches off as the answer.
    assert os.getpgid(worker) != os.getpgid(child.pid)
    child.sendintr()
    child.expect("Interrupted", timeout=5)
    assert wait_for(lambda: not Path(f"/proc/{worker}").exists(), 10)  # stopped, not left running
    wait_prompt(child)
    ask(child, "still there?", "Echo: still there", timeout=10)
    type_line(child, "/exit")
    child.expect(pexpect.EOF, timeout=10)
