"""Shared by the robustness tests and `python -m tests.robustness.totals`: running the agent as a
real process against the local server, killing it, and judging what it left on disk."""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

import session
from agent.store.faults import ARMING_FILE
from tests.fake_openai import FakeOpenAI

ROOT = Path(__file__).resolve().parents[2]
MAIN = ROOT / "main.py"
FAKE_KEY = "sk-robustness-FAKE-7f3a9c1e5b2d4a6f8e0c"
KEY_NAMES = ("API_KEY", "DEEPSEEK_API_KEY", "OPENAI_API_KEY")
RUN_TIMEOUT = 60
# A window small enough that a prepared history of a dozen notes is over the threshold.
SMALL_WINDOW = "16000"
COMPACTION_POINTS = ("archive_started", "archive_mid_copy", "archive_done", "rewrite_mid_write", "rewrite_done")


# --- the agent as a process ----------------------------------------------------------------


def agent_env(home: Path, **extra: str) -> dict[str, str]:
    """Our environment without keys or CODING_AGENT_* settings, plus the data folder and `extra`."""
    env = {k: v for k, v in os.environ.items() if k not in KEY_NAMES and not k.startswith("CODING_AGENT_")}
    env.update(
        {
            "CODING_AGENT_HOME": str(home),
            # Claude Code's user folder beside it: the machine's own ~/.claude/settings.json stays out.
            "CLAUDE_CONFIG_DIR": str(home.parent / "claude-home"),
            "CODING_AGENT_MAX_RETRIES": "0",
            "CODING_AGENT_TIMEOUT": "120",  # as tests/conftest.py
            "PYDANTIC_AI_NO_BANNER": "1",
            "PROMPT_TOOLKIT_NO_CPR": "1",
            "TERM": "xterm-256color",
            "PYTHONDONTWRITEBYTECODE": "1",
        }
    )
    env.update(extra)
    if "CODING_AGENT_FAULT" in extra:  # fault points fire only in a data folder marked so (agent.store.faults)
        home.mkdir(mode=0o700, parents=True, exist_ok=True)
        (home / ARMING_FILE).touch()
    return env


def agent_argv(server: FakeOpenAI, *args: str) -> list[str]:
    return [sys.executable, str(MAIN), "--base-url", server.base_url, "--lang", "en", *args]


def run_agent(
    workspace: Path, home: Path, server: FakeOpenAI, *args: str, timeout: float = RUN_TIMEOUT, **env: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        agent_argv(server, *args),
        cwd=workspace,
        env=agent_env(home, **env),
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def start_agent(workspace: Path, home: Path, server: FakeOpenAI, *args: str, **env: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        agent_argv(server, *args),
        cwd=workspace,
        env=agent_env(home, **env),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        stdin=subprocess.DEVNULL,
    )


def wait_for(condition: Callable[[], bool], timeout: float = 30, step: float = 0.02) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(step)
    return condition()


@contextmanager
def data_home(home: Path) -> Iterator[None]:
    """Point session.* at `home` for this process (the agent's own processes get it by env)."""
    old = os.environ.get("CODING_AGENT_HOME")
    os.environ["CODING_AGENT_HOME"] = str(home)
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("CODING_AGENT_HOME", None)
        else:
            os.environ["CODING_AGENT_HOME"] = old


def process_gone(pid: int) -> bool:
    """No such process, or only a zombie waiting for a parent to reap it."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")


def kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


# --- histories -----------------------------------------------------------------------------


def long_history(turns: int = 12, words: int = 250) -> list[ModelMessage]:
    """Long answers (text no cheap tier can clear) with a tool exchange every third turn. The user
    messages stay short: a summary quotes them verbatim."""
    messages: list[ModelMessage] = []
    for i in range(turns):
        messages.append(ModelRequest(parts=[UserPromptPart(f"note {i}: please explain part {i}")]))
        if i % 3 == 0:
            call = ToolCallPart("run_command", {"command": f"echo {i}"}, tool_call_id=f"call_prep_{i}")
            messages.append(ModelResponse(parts=[call]))
            messages.append(
                ModelRequest(
                    parts=[ToolReturnPart("run_command", f"{i}\n[exit code: 0]", tool_call_id=call.tool_call_id)]
                )
            )
        messages.append(ModelResponse(parts=[TextPart(f"Part {i}: " + "a long explanation of this detail " * words)]))
    return messages


def prepare_session(home: Path, workspace: Path, messages: Sequence[ModelMessage]) -> str:
    """A session of `workspace` on disk holding `messages`; returns its id."""
    with data_home(home):
        session_id = session.new_session_id()
        session.rewrite_messages(session_id, messages, workspace)
    return session_id


def session_path(home: Path, workspace: Path, session_id: str) -> Path:
    with data_home(home):
        return session.session_file(session_id, workspace)


def archives(home: Path, workspace: Path, session_id: str) -> list[Path]:
    with data_home(home):
        return session.list_archives(session_id, workspace)


def lines_of(data: bytes) -> list[bytes]:
    """The complete (newline-terminated) message lines of a JSONL file: its format header left out."""
    from agent.store.session_format import version_of

    return [line for line in data.split(b"\n")[:-1] if version_of(line) is None]


def is_summary_line(line: bytes) -> bool:
    """A line of a compaction's head: the summary, or (issue 20's layout, the summary last) the
    fixed line and the user messages carried before it."""
    return b'"compact_summary"' in line or re.search(rb'"agent_note"\s*:\s*"carried"', line) is not None


# --- what a valid history looks like --------------------------------------------------------


def _answers(part: Any) -> bool:
    return isinstance(part, ToolReturnPart) or (isinstance(part, RetryPromptPart) and part.tool_name is not None)


def history_problems(messages: Sequence[ModelMessage]) -> list[str]:
    """Why the next request built from `messages` would be refused (empty when it is fine):
    every tool call answered in the request right after it, no result without its call."""
    problems: list[str] = []
    pending: set[str] = set()
    for index, message in enumerate(messages):
        if isinstance(message, ModelResponse):
            if pending:
                problems.append(f"message {index}: calls {sorted(pending)} have no result")
            pending = {p.tool_call_id for p in message.parts if isinstance(p, ToolCallPart)}
            continue
        answered = {p.tool_call_id for p in message.parts if _answers(p)}
        if answered - pending:
            problems.append(f"message {index}: results {sorted(answered - pending)} answer no call")
        if pending - answered:
            problems.append(f"message {index}: calls {sorted(pending - answered)} have no result")
        pending = set()
    if pending:
        problems.append(f"the history ends with calls {sorted(pending)} without results")
    return problems


def answer(state: Any) -> str:
    """The text the model streamed in the state's turns so far."""
    from agent.events import TextDelta

    return "".join(e.text for e in state.emit.of(TextDelta))


def consistent(state: Any) -> None:
    """A history the next request accepts, and a session file holding exactly that history."""
    assert history_problems(state.history) == []
    loaded = session.load(state.session_id, state.workspace)
    assert loaded.skipped == []
    assert session.dump_messages(loaded.messages) == session.dump_messages(state.history)


async def next_turn_is_accepted(state: Any, server: FakeOpenAI, text: str = "still there?") -> None:
    from main import on_submit

    server.clear_script()
    await on_submit(state, text)
    assert f"Echo: {text}" in answer(state)
    assert request_problems(server.last_request["body"]) == []
    consistent(state)


def request_problems(body: dict[str, Any]) -> list[str]:
    """The same rule on the wire, as OpenAI and DeepSeek enforce it on a chat request."""
    problems: list[str] = []
    pending: set[str] = set()
    for index, message in enumerate(body.get("messages") or []):
        role = message.get("role")
        if role == "tool":
            call_id = message.get("tool_call_id")
            if call_id not in pending:
                problems.append(f"message {index}: tool result {call_id} answers no pending call")
            pending.discard(call_id)
            continue
        if pending:
            problems.append(f"message {index}: calls {sorted(pending)} have no result")
        pending = {c["id"] for c in message.get("tool_calls") or []} if role == "assistant" else set()
    if pending:
        problems.append(f"the request ends with calls {sorted(pending)} without results")
    return problems


def agent_requests(server: FakeOpenAI) -> list[dict[str, Any]]:
    return [r["body"] for r in server.requests]


# --- crash scenarios -----------------------------------------------------------------------


@dataclass
class KillOutcome:
    point: str
    problems: list[str] = field(default_factory=list)
    # Python tracebacks or unexpected exit codes: crashes rather than clean ends.
    crashes: list[str] = field(default_factory=list)

    @property
    def intact(self) -> bool:
        return not self.problems and not self.crashes


def crash_text(stderr: str) -> str | None:
    """The traceback in a process's stderr, if it crashed with one."""
    if "Traceback" in stderr:
        return stderr[stderr.index("Traceback") :][-800:]
    return None


def _restart(
    outcome: KillOutcome, workspace: Path, home: Path, server: FakeOpenAI, session_id: str, before_kill_data: bytes
) -> None:
    """Restart with --continue: the same session loads, answers, keeps every line it had, and
    saves the new turn whole (even after a torn last line)."""
    before_kill = lines_of(before_kill_data)
    first_request = len(server.requests)
    done = run_agent(workspace, home, server, "--continue", "--context-window", SMALL_WINDOW, "--yes", "-p", "go on")
    if crash := crash_text(done.stderr):
        outcome.crashes.append(f"restart: {crash}")
    if done.returncode != 0 or "Echo: go on" not in done.stdout:
        outcome.problems.append(f"restart failed (exit {done.returncode}): {done.stderr.strip()[-500:]}")
    for body in agent_requests(server)[first_request:]:
        outcome.problems += [f"restart request: {p}" for p in request_problems(body)]
    after = session_path(home, workspace, session_id).read_bytes()
    kept = set(lines_of(after))
    for arch in archives(home, workspace, session_id):
        kept.update(lines_of(arch.read_bytes()))
    missing = [line for line in before_kill if line.strip() and line not in kept]
    if missing:
        outcome.problems.append(f"{len(missing)} line(s) written before the kill are gone after the restart")
    with data_home(home):
        loaded = session.load(session_id, workspace)
    torn = bool(before_kill) and not before_kill_data.endswith(b"\n")
    if len(loaded.skipped) > int(torn):
        outcome.problems.append(f"lines skipped after the restart: {loaded.skipped[:3]}")
    texts = [getattr(p, "content", None) for m in loaded.messages for p in m.parts]
    if "go on" not in texts or not any(isinstance(t, str) and t.startswith("Echo: go on") for t in texts):
        outcome.problems.append("the restarted turn is not in the session file")


def _check_archives(outcome: KillOutcome, home: Path, workspace: Path, session_id: str, pre: list[bytes]) -> None:
    """Every archive that exists is whole: exactly the pre-compaction transcript."""
    for arch in archives(home, workspace, session_id):
        if lines_of(arch.read_bytes()) != pre:
            outcome.problems.append(f"archive {arch.name} is not the complete pre-compaction transcript")


def compaction_kill(point: str, base: Path) -> KillOutcome:
    """SIGKILL at a named step of a compaction, then restart with --continue."""
    outcome = KillOutcome(f"compaction:{point}")
    home, workspace = base / "home", base / "ws"
    workspace.mkdir(parents=True)
    workspace = workspace.resolve()
    session_id = prepare_session(home, workspace, long_history())
    path = session_path(home, workspace, session_id)
    pre = lines_of(path.read_bytes())
    with FakeOpenAI() as server:
        killed = run_agent(
            workspace,
            home,
            server,
            "--continue",
            "--context-window",
            SMALL_WINDOW,
            "-p",
            "go on",
            CODING_AGENT_FAULT=point,
        )
        if killed.returncode != -signal.SIGKILL:
            outcome.problems.append(
                f"the fault point was not reached (exit {killed.returncode}): {killed.stderr.strip()[-300:]}"
            )
        if crash := crash_text(killed.stderr):
            outcome.crashes.append(crash)
        now = lines_of(path.read_bytes())
        if now == pre:
            if archives(home, workspace, session_id) and point in ("archive_started", "archive_mid_copy"):
                outcome.problems.append("an archive exists although the copy never finished")
        elif not (now and is_summary_line(now[0]) and not set(now) & set(pre)):
            outcome.problems.append("the session file is neither the pre- nor the post-compaction version")
        elif not archives(home, workspace, session_id):
            outcome.problems.append("the session was rewritten but no archive holds the transcript")
        _check_archives(outcome, home, workspace, session_id, pre)
        with data_home(home):
            loaded = session.load(session_id, workspace)
        if loaded.skipped:
            outcome.problems.append(f"lines skipped after the kill: {loaded.skipped[:2]}")
        _restart(outcome, workspace, home, server, session_id, path.read_bytes())
        # The restart may compact (the pre version is still over the threshold): still whole.
        stale = [t.name for t in path.parent.rglob("*.tmp")]
        if stale:
            outcome.problems.append(f"partial copies left behind after the restart: {stale}")
        first = lines_of(path.read_bytes())[:1]
        if now == pre and not (first and is_summary_line(first[0])):
            outcome.problems.append("the restart did not finish the compaction the kill interrupted")
        _check_archives(outcome, home, workspace, session_id, pre)
    return outcome


def turn_kill(kind: str, seed: int, base: Path) -> KillOutcome:
    """SIGKILL at a random moment of an ordinary turn (`stream`, `tool`) or mid-append (`append`)."""
    rng = random.Random(seed)
    outcome = KillOutcome(f"turn:{kind}:{seed}")
    home, workspace = base / "home", base / "ws"
    workspace.mkdir(parents=True)
    workspace = workspace.resolve()
    session_id = prepare_session(home, workspace, long_history(turns=3, words=20))
    path = session_path(home, workspace, session_id)
    pre = lines_of(path.read_bytes())
    pid_file = workspace / "tool.pid"
    with FakeOpenAI() as server:
        if kind == "append":
            killed = run_agent(
                workspace, home, server, "--continue", "--yes", "-p", "hello", CODING_AGENT_FAULT="append_mid_write"
            )
            if killed.returncode != -signal.SIGKILL:
                outcome.problems.append(f"the fault point was not reached (exit {killed.returncode})")
            stderr = killed.stderr
        else:
            prompt = "slow answer please" if kind == "stream" else f"run echo $$ > {pid_file.name}; sleep 4; echo done"
            proc = start_agent(workspace, home, server, "--continue", "--yes", "-p", prompt)
            if kind == "stream":
                wait_for(lambda: len(server.requests) >= 1)
                time.sleep(rng.uniform(0.1, 4.0))  # the slow answer streams for 6 s
            else:
                wait_for(lambda: pid_file.exists() and pid_file.read_text().strip().isdigit())
                time.sleep(rng.uniform(0.0, 2.5))  # the command runs for 4 s
            still_running = proc.poll() is None
            proc.kill()
            _, stderr = proc.communicate(timeout=30)
            if not still_running:
                outcome.problems.append(f"the turn ended before the kill (exit {proc.returncode})")
            if pid_file.exists() and pid_file.read_text().strip().isdigit():
                kill_group(int(pid_file.read_text()))  # SIGKILL leaves the command running: not ours to test
        if crash := crash_text(stderr):
            outcome.crashes.append(crash)
        data = path.read_bytes()
        now = lines_of(data)
        if now[: len(pre)] != pre:
            outcome.problems.append("lines written before this turn changed")
        with data_home(home):
            loaded = session.load(session_id, workspace)
        torn = data and not data.endswith(b"\n")
        if len(loaded.skipped) > (1 if torn else 0):
            outcome.problems.append(f"lines skipped beyond a torn last line: {loaded.skipped[:3]}")
        _restart(outcome, workspace, home, server, session_id, data)
    return outcome


# --- bad session lines ---------------------------------------------------------------------


def bad_lines(valid_line: bytes) -> dict[str, bytes]:
    """Lines a session file may hold after a crash, a bad disk or a careless edit; none loads."""
    content_at = valid_line.index(b'"content":"') + len(b'"content":"')
    return {
        "garbage": b"\x13\x37 this is not json at all \x00\xff{[",
        "wrong-shape": b'{"hello": "world"}',
        "wrong-kind": b'{"kind": "telegram", "parts": []}',
        "parts-not-a-list": b'{"kind": "response", "parts": "oops"}',
        "unknown-part": b'{"kind": "response", "parts": [{"part_kind": "hologram"}]}',
        "json-array": b"[1, 2, 3]",
        "json-null": b"null",
        "invalid-utf8": valid_line[:content_at] + b"caf\xe9 \xff\xfe" + valid_line[content_at:],
        "nul-bytes": b"\x00" * 64,
        "deep-nesting": b"[" * 5000,
        "half-a-line": valid_line[: len(valid_line) // 2],
        "huge-garbage": b"x" * 2_000_000,
    }
