"""4. Interrupts: Ctrl-C while streaming, while a shell command runs (its whole process group
ends), at an approval prompt, during a compaction and during a background compaction. Each
leaves a valid history, no orphan processes and a session file that matches memory.

The in-process tests cancel the turn's task, which is what the REPL's Ctrl-C handler does; the
last test presses Ctrl-C in a real terminal."""

from __future__ import annotations

import asyncio
import sys
import threading
from pathlib import Path

import pexpect
import pytest

import compact
import session
from agent import compaction
from agent.compaction.watermark import threshold
from agent.events import ToolResult
from agent.state.transcript import Transcript
from agent.turn.loop import ANSWER_INTERRUPTED
from main import on_submit
from tests.builders import is_compaction, script_forever, take_background
from tests.fake_openai import FakeOpenAI, Hang, Text, smart_reply
from tests.fake_ui import FakeUI
from tests.pty_kit import ASKED
from tests.robustness.harness import (
    MAIN,
    agent_env,
    answer,
    consistent,
    history_problems,
    kill_group,
    long_history,
    next_turn_is_accepted,
    prepare_session,
    process_gone,
    request_problems,
    wait_for,
)

SUMMARY = "<analysis>draft</analysis>\n<summary>1. Primary request: notes about parts.\n6. Next: go on.</summary>"


def hanging_summaries(server: FakeOpenAI) -> None:
    """From now on compaction requests are never answered (until the server stops); others get the
    default: a cancel then always comes while the compaction waits on its summary."""
    script_forever(server, lambda body: Hang(600) if is_compaction(body) else smart_reply(body))


def _compactions(server: FakeOpenAI) -> int:
    return sum(1 for r in server.requests if is_compaction(r["body"]))


async def _suspended_in(task: asyncio.Task, function: str) -> None:
    """Until `task` waits in `function` itself (its innermost frame), not in anything it called."""
    while not (stack := task.get_stack()) or stack[-1].f_code.co_name != function:
        assert not task.done(), task
        await asyncio.sleep(0)


async def _cancel(task: asyncio.Task) -> None:
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_ctrl_c_while_streaming(make_state, server):
    state = make_state()
    await on_submit(state, "hello")
    task = asyncio.create_task(on_submit(state, "slow answer please"))
    await asyncio.to_thread(wait_for, lambda: "part 3 of 40" in answer(state), 10)
    await _cancel(task)
    consistent(state)
    # Issue 20 (case 8): the user's message stays, with the answer so far marked as interrupted.
    saved = session.session_file(state.session_id, state.workspace).read_text()
    assert "slow answer please" in saved and "part 3 of 40" in saved
    assert ANSWER_INTERRUPTED in state.history[-1].parts[-1].content
    await next_turn_is_accepted(state, server)
    sent = server.last_request["body"]["messages"]
    assert any(m["role"] == "user" and m["content"] == "slow answer please" for m in sent)


@pytest.mark.parametrize(
    "command",
    [
        "echo $$ > shell.pid; sleep 30",
        "sleep 30 & echo $! > child.pid; echo $$ > shell.pid; wait",
        "sh -c 'trap \"\" TERM; echo $$ > child.pid; sleep 30' & echo $$ > shell.pid; wait",
    ],
    ids=["command", "background-child", "child-ignoring-sigterm"],
)
async def test_ctrl_c_while_a_command_runs(command, make_state, server, workspace):
    state = make_state(yes=True)
    task = asyncio.create_task(on_submit(state, f"run {command}"))
    pid_files = [workspace / "shell.pid"] + ([workspace / "child.pid"] if "child" in command else [])
    assert await asyncio.to_thread(wait_for, lambda: all(p.exists() and p.read_text().strip() for p in pid_files))
    pids = [int(p.read_text()) for p in pid_files]
    await _cancel(task)
    # The whole group is gone (SIGTERM, then SIGKILL after the grace period), nothing orphaned.
    assert await asyncio.to_thread(wait_for, lambda: all(process_gone(pid) for pid in pids), 15)
    [result] = state.emit.of(ToolResult) or [None]
    assert result is None  # the call never finished; its result in the history says so
    consistent(state)
    returns = [p for m in state.history for p in m.parts if getattr(p, "part_kind", "") == "tool-return"]
    assert returns and "Interrupted" in returns[-1].content
    await next_turn_is_accepted(state, server)


async def test_ctrl_c_at_the_approval_prompt(make_state, server, workspace):
    state = make_state(yes=False)
    asked = asyncio.Event()

    async def approve(command: str) -> str:
        asked.set()
        await asyncio.Event().wait()  # the user is thinking...
        return "y"

    state.emit = FakeUI(approve=approve)
    task = asyncio.create_task(on_submit(state, "run touch never.txt"))
    await asyncio.wait_for(asked.wait(), 10)
    await _cancel(task)
    assert not (workspace / "never.txt").exists()
    consistent(state)
    await next_turn_is_accepted(state, server)


async def test_ctrl_c_during_a_compaction(make_state, server, workspace):
    state = make_state(context_window=16_000)
    history = long_history()
    session.rewrite_messages(state.session_id, history, workspace)
    state.transcript = Transcript(state.session_id, workspace, history)
    before = session.session_file(state.session_id, workspace).read_bytes()
    hanging_summaries(server)
    # The automatic compaction before a turn: it changed nothing, and the user's message is kept,
    # its answer marked interrupted (the fuzzer's 16k seed 2 lost it), appended to the file.
    task = asyncio.create_task(on_submit(state, "go on"))
    await asyncio.to_thread(wait_for, lambda: _compactions(server) == 1, 30)
    await _cancel(task)
    after = session.session_file(state.session_id, workspace).read_bytes()
    assert after.startswith(before) and b"go on" in after[len(before) :]
    assert session.list_archives(state.session_id, workspace) == []
    assert state.history[: len(history)] == history and not state.compaction.running
    asked, answered = state.history[len(history) :]
    assert asked.parts[0].content == "go on" and "Interrupted by the user" in answered.parts[0].content
    before = after
    # ...and /compact.
    task = asyncio.create_task(compact.run_compact(state))
    await asyncio.to_thread(wait_for, lambda: _compactions(server) == 2, 30)
    await _cancel(task)
    assert session.session_file(state.session_id, workspace).read_bytes() == before
    assert session.list_archives(state.session_id, workspace) == []
    consistent(state)


def _in_band(state) -> list:
    """A history between the background mark (85% of the threshold) and the threshold."""
    from agent.compaction.watermark import lower_mark

    for turns in range(1, 40):
        state.transcript.update(long_history(turns=turns, words=60))
        used = compaction.context_tokens(state)
        if lower_mark(state) + 200 <= used <= threshold(state) - 800:
            return state.history
    raise AssertionError("no history lands between the marks")


async def test_ctrl_c_during_a_background_compaction(make_state, server, workspace):
    state = make_state(context_window=16_000)
    history = _in_band(state)
    session.rewrite_messages(state.session_id, history, workspace)
    state.transcript = Transcript(state.session_id, workspace, history)
    summary = threading.Event()  # the background summary comes when the test says so
    script_forever(
        server,
        lambda body: Hang(600, then=Text(SUMMARY), release=summary) if is_compaction(body) else smart_reply(body),
    )
    task = asyncio.create_task(on_submit(state, "slow answer please"))
    await asyncio.to_thread(wait_for, lambda: "part 2 of 40" in answer(state), 30)
    background = state.compaction.background
    assert background is not None and not background.task.done()
    await _cancel(task)
    consistent(state)
    # The summary in the background goes on; it is swapped in when the threshold comes, and the
    # history it is swapped into is still a valid one.
    summary.set()
    reply = await asyncio.wait_for(background.task, 30)
    assert reply.summary
    swap = take_background(state)
    assert swap is not None
    await swap
    consistent(state)
    assert session.list_archives(state.session_id, workspace)  # that compaction completed, archived
    await next_turn_is_accepted(state, server)


async def test_ctrl_c_while_the_background_summary_is_swapped_in(make_state, server, workspace):
    state = make_state(context_window=16_000)
    history = _in_band(state)
    session.rewrite_messages(state.session_id, history, workspace)
    state.transcript = Transcript(state.session_id, workspace, history)
    before = session.session_file(state.session_id, workspace).read_bytes()
    hanging_summaries(server)
    await on_submit(state, "hello")  # starts the background summary, which will never come
    assert state.compaction.background is not None
    await asyncio.to_thread(wait_for, lambda: _compactions(server) == 1, 30)
    swap = take_background(state)
    assert swap is not None
    task = asyncio.create_task(swap)
    await asyncio.wait_for(_suspended_in(task, "compact"), 30)  # the swap waits on the summary, not on a hook
    await _cancel(task)
    assert session.list_archives(state.session_id, workspace) == []
    assert session.session_file(state.session_id, workspace).read_bytes().startswith(before)
    consistent(state)
    await next_turn_is_accepted(state, server)


# --- a real terminal -----------------------------------------------------------------------

# Runs for 30 s (with a child in the background) once the file "go" exists; at once before.
LONG_COMMAND = "test -e go && (sleep 30 & echo $! > child.pid; echo $$ > shell.pid; wait) || echo not yet"


class Terminal:
    """The REPL in a pseudo-terminal, typed into as a person would."""

    def __init__(self, home: Path, workspace: Path, server: FakeOpenAI, *args: str) -> None:
        self.log: list[str] = []
        self.child = pexpect.spawn(
            sys.executable,
            [str(MAIN), "--base-url", server.base_url, "--lang", "en", *args],
            cwd=str(workspace),
            env=agent_env(home),
            encoding="utf-8",
            timeout=20,
            dimensions=(40, 160),
        )
        self.child.logfile_read = self
        self.child.expect("session")
        self.prompt()

    def write(self, text: str) -> None:  # pexpect's log of what the terminal shows
        self.log.append(text)

    def flush(self) -> None:
        pass

    def prompt(self) -> None:
        self.child.expect_exact("\x1b[?2004h")  # prompt-toolkit is reading a line again

    def say(self, text: str) -> None:
        self.child.send(text + "\r")

    def interrupt(self, timeout: float = 10) -> None:
        self.child.sendintr()
        self.child.expect("Interrupted", timeout=timeout)
        self.prompt()

    def exit(self) -> str:
        self.say("/exit")
        self.child.expect(pexpect.EOF)
        self.child.close()
        return "".join(self.log)


def _pids(workspace: Path) -> list[int]:
    files = [workspace / "child.pid", workspace / "shell.pid"]
    assert wait_for(lambda: all(f.exists() and f.read_text().strip() for f in files), 10)
    return [int(f.read_text()) for f in files]


def test_ctrl_c_in_a_real_terminal(home, workspace, server):
    """Ctrl-C (SIGINT from the terminal) while streaming, at an approval prompt, while an
    (always-approved) command runs and during /compact; then the REPL goes on."""
    prepare_session(home, workspace, long_history(turns=2, words=20))
    hanging_summaries(server)  # /compact waits on its summary until Ctrl-C
    term = Terminal(home, workspace, server, "--continue", *ASKED)
    try:
        term.say("slow answer please")
        term.child.expect("part 3 of 40")
        term.interrupt()

        term.say("run touch never.txt")
        term.child.expect("Allow")
        term.interrupt()
        assert not (workspace / "never.txt").exists()

        term.say(f"run {LONG_COMMAND}")
        term.child.expect("Allow")
        term.say("a")
        term.child.expect("Done: run_command")
        term.prompt()
        (workspace / "go").touch()
        term.say(f"run {LONG_COMMAND}")  # always allowed now: no question
        pids = _pids(workspace)
        term.interrupt()
        assert wait_for(lambda: all(process_gone(pid) for pid in pids), 5), "orphan processes"

        term.say("/compact")
        assert wait_for(lambda: any(is_compaction(r["body"]) for r in server.requests), 10)
        term.interrupt()

        term.say("hello")
        term.child.expect("Echo: hello")
        term.prompt()
        shown = term.exit()
    finally:
        term.child.close(force=True)
    assert "Traceback" not in shown
    [info] = session.list_sessions(workspace)
    loaded = session.load(info.session_id, workspace)
    assert loaded.skipped == [] and history_problems(loaded.messages) == []
    assert session.list_archives(info.session_id, workspace) == []
    for request in server.requests:
        assert request_problems(request["body"]) == []


def test_ctrl_c_after_approving_a_command(home, workspace, server):
    term = Terminal(home, workspace, server, *ASKED)
    (workspace / "go").touch()
    pids: list[int] = []
    try:
        term.say(f"run {LONG_COMMAND}")
        term.child.expect("Allow")
        term.say("y")
        pids = _pids(workspace)
        term.interrupt(timeout=5)
        assert wait_for(lambda: all(process_gone(pid) for pid in pids), 5), "orphan processes"
    finally:
        term.child.close(force=True)
        for pid in pids:
            kill_group(pid)
