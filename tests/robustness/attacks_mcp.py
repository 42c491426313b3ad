"""The attacks of the untrusted-surfaces review that come through an MCP server: what it writes to its
stderr and sends as log messages, an answer of many megabytes, an answer the client cannot parse, a
call that never ends, a server that never starts. Each is played through `-p` as a user runs it,
against a real server process (tests/mcp_bad_server.py), and returns what got through (empty: held).
The same attacks on the REPL's screen are in tests/ui/test_mcp_limits_pty.py."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.fake_openai import FakeOpenAI, Text, ToolCalls
from tests.mcp_bad_server import ESCAPES, STARTED
from tests.robustness import harness
from tests.robustness.attack_kit import _dirs, attack_round

ROUND = "untrusted surfaces"
BAD = str(Path(__file__).resolve().parents[1] / "mcp_bad_server.py")
SLOW_RUN = 240  # seconds a -p run may take on a loaded machine before it counts as hung
# What a terminal obeys: OSC (clipboard, title, links), clear-screen, a colour.
OBEYED = ("\x1b]", "\x1b[2J", "\x1b[31m")


def _play(
    base: Path, mode: str, call: tuple[str, dict], server_env: dict | None = None, **env: str
) -> tuple[subprocess.CompletedProcess[str] | None, FakeOpenAI, Path, Path]:
    """One `-p` turn whose model calls `call` on the server `bad` (allowed by a rule): the finished
    run (None if it did not end in SLOW_RUN), the local server, the data folder, the workspace."""
    home, ws = _dirs(base)
    home.mkdir()
    (home / "settings.json").write_text(
        json.dumps(
            {
                "mcpServers": {"bad": {"command": sys.executable, "args": [BAD, mode], "env": server_env or {}}},
                "permissions": {"allow": ["mcp__bad"]},
            }
        )
    )
    with FakeOpenAI() as server:
        server.script(ToolCalls([(f"mcp__bad__{call[0]}", call[1])]), Text("done"))
        try:
            done = harness.run_agent(ws, home, server, "-p", "go", timeout=SLOW_RUN, **env)
        except subprocess.TimeoutExpired:
            done = None
    return done, server, home, ws


def _tool_result(server: FakeOpenAI) -> str:
    """What the model got back from the call (the last request's tool message)."""
    if not server.requests:
        return ""
    messages = server.requests[-1]["body"]["messages"]
    return next((str(m.get("content")) for m in reversed(messages) if m.get("role") == "tool"), "")


def _ended(done: subprocess.CompletedProcess[str] | None) -> list[str]:
    if done is None:
        return [f"the -p run did not end in {SLOW_RUN} s"]
    if crash := harness.crash_text(done.stderr):
        return [f"crashed: {crash}"]
    return [] if done.returncode == 0 else [f"exit {done.returncode}: {done.stderr[-300:]}"]


@attack_round(ROUND)
def mcp_stderr_and_log_messages_with_terminal_escapes(base: Path) -> list[str]:
    """The server writes OSC 52/0/8, clear-screen and colours to its stderr at start, and echoes the
    model's arguments (more escapes) to its stderr and as log messages: none reaches the terminal;
    all of it is in the server's log."""
    done, _server, home, ws = _play(base, "stderr", ("echo", {"text": "\x1b]0;ARG-TITLE\x07\x1b[2Jhi"}))
    problems = _ended(done)
    if done is not None:
        problems += [f"{code!r} reached the terminal" for code in OBEYED if code in done.stdout + done.stderr]
        problems += [f"{text!r} printed" for text in (STARTED, "ARG-TITLE") if text in done.stdout + done.stderr]
    logs = list((home / "projects").rglob("mcp-logs/bad.log"))
    kept = logs[0].read_text() if logs else ""
    if ESCAPES not in kept or "echo log message: \x1b]0;ARG-TITLE" not in kept:
        problems.append("the server's stderr and log messages are not in its log")
    return problems


@attack_round(ROUND)
def mcp_answer_of_many_megabytes(base: Path) -> list[str]:
    """A 25 MB answer: the model gets one read's share of the window, the rest is saved for read_file."""
    done, server, home, _ws = _play(base, "big", ("dump", {"megabytes": 25}))
    problems = _ended(done)
    sent = len(json.dumps(server.requests[-1]["body"])) if server.requests else 0
    if sent > 200_000:
        problems.append(f"the request after the answer was {sent:,} bytes")
    saved = list((home / "projects").rglob("tool-results/*.txt"))
    if not saved or saved[0].stat().st_size < 24_000_000:
        problems.append("the whole answer was not saved for read_file")
    elif str(saved[0]) not in _tool_result(server):
        problems.append("the answer does not say where the rest is")
    return problems


@attack_round(ROUND)
def mcp_answer_the_client_cannot_parse(base: Path) -> list[str]:
    """10,000 nested arrays: the client drops the answer; the call ends with an error, -p ends."""
    done, server, _home, _ws = _play(base, "unparseable", ("nested", {}))
    problems = _ended(done)
    if "could not be read" not in _tool_result(server):
        problems.append(f"the model was not told the answer was unreadable: {_tool_result(server)[:200]!r}")
    return problems


@attack_round(ROUND)
def mcp_call_that_never_answers(base: Path) -> list[str]:
    """A tool that never answers: the call ends at MCP_TOOL_TIMEOUT (here 2 s) with an error."""
    done, server, _home, _ws = _play(base, "stderr", ("wait", {"seconds": 3600}), MCP_TOOL_TIMEOUT="2000")
    problems = _ended(done)
    if "did not answer in 2 s" not in _tool_result(server):
        problems.append(f"the call was not ended by the timeout: {_tool_result(server)[:200]!r}")
    return problems


@attack_round(ROUND)
def mcp_server_that_never_starts(base: Path) -> list[str]:
    """A server that never answers `initialize`: given up at MCP_TIMEOUT (here 2 s), its process
    ended, the turn goes on without it."""
    marker = base / "never-starts-marker"
    marker.touch()  # while it exists the server stays silent; the server's environment names it
    done, _server, _home, _ws = _play(
        base, "silent", ("echo", {"text": "x"}), {"BAD_SERVER_SILENT_WHILE": str(marker)}, MCP_TIMEOUT="2000"
    )
    problems = _ended(done)
    if done is not None and "did not start within 2 s" not in done.stderr:
        problems.append(f"no line said the server did not start: {done.stderr[-300:]!r}")
    if running_with(str(marker)):
        problems.append("the server's process outlived the agent")
    return problems


def running_with(marker: str) -> list[int]:
    """The processes whose environment holds `marker` (a path unique to one attack or test)."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and marker.encode() in (proc / "environ").read_bytes():
                found.append(int(proc.name))
        except OSError:
            continue
    return found
