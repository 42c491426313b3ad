"""A newcomer's first minutes in a real terminal: `--demo` starts and stops its emulator, a start in the
agent's own checkout is pointed out, `--continue` shows the turns it resumed, a capped read says which
lines the model got."""

from __future__ import annotations

import os
import re
import signal
import socket
import sys
from pathlib import Path

import pexpect
import pytest

import session
from tests.pty_kit import ROOT, TIMEOUT, Screen, ask, leave, spawn, started, wait_prompt

URL = re.compile(r"http://127\.0\.0\.1:(\d+)/v1")


def start(cwd: Path, home: Path, *args: str, lang: str = "en") -> tuple[pexpect.spawn, Screen]:
    """main.py with `args` and no --base-url, its screen watched from the first byte."""
    env = {**os.environ, "CODING_AGENT_HOME": str(home), "PROMPT_TOOLKIT_NO_CPR": "1", "TERM": "xterm-256color"}
    child = pexpect.spawn(
        sys.executable,
        [str(ROOT / "main.py"), "--lang", lang, *args],
        cwd=str(cwd),
        env=env,
        encoding="utf-8",
        timeout=TIMEOUT,
        dimensions=(40, 200),
    )
    return child, Screen(child)


def held_connection(port: int) -> socket.socket:
    """A connection the emulator's handler waits on: it reads EOF only when the emulator's process ends."""
    held = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
    return held


def assert_ended(held: socket.socket, port: int) -> None:
    # Blocks until the emulator's process is gone: EOF if its handler had taken the connection,
    # a reset if the connection still sat in the listen queue when the process died.
    try:
        assert held.recv(1) == b""
    except ConnectionResetError:
        pass
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)


def test_demo_starts_the_emulator_and_exit_stops_it(workspace, home):
    (workspace / "notes.txt").write_text("the secret word is pineapple\n")
    child, screen = start(workspace, home, "--demo")
    child.expect(URL)
    port = int(child.match.group(1))
    wait_prompt(child)
    said = " ".join(" ".join(screen.lines()).split())  # a line broken at a space lost that space
    assert "window 8,000" in said and "/exit stops the emulator too" in said, screen.lines()
    held = held_connection(port)
    ask(child, "read notes.txt", "Done: read_file returned")
    leave(child, "/exit")
    child.wait()
    assert_ended(held, port)


def test_a_killed_demo_takes_its_emulator_with_it(workspace, home):
    child, _screen = start(workspace, home, "--demo")
    child.expect(URL)
    port = int(child.match.group(1))
    wait_prompt(child)
    held = held_connection(port)
    child.kill(signal.SIGKILL)  # no finally runs: the emulator sees its input close
    child.expect(pexpect.EOF)
    assert_ended(held, port)


def test_demo_without_a_checkout_says_what_it_needs(workspace, home, monkeypatch):
    import main
    from agent.provider import demo_server

    monkeypatch.setattr(demo_server, "EMULATOR", workspace / "missing" / "fake_openai.py")
    assert main.main(["--demo", "--lang", "en", "-p", "hi"]) == 2
    assert session.list_sessions(workspace) == []


def test_a_start_in_the_agents_own_checkout_is_pointed_out(tmp_path, home, live_server):
    for folder, said in ((ROOT, 1), (tmp_path, 0)):
        child, screen = start(folder, home, "--base-url", live_server.base_url)
        wait_prompt(child)
        shown = " ".join(" ".join(screen.lines()).split())
        assert shown.count("This is the agent's own source folder") == said, screen.lines()
        assert shown.count("cd your-project && coding-agent") == said
        leave(child)


def test_continue_shows_the_last_turns_it_resumed(workspace, home, live_server):
    (workspace / "notes.txt").write_text("the secret word is pineapple\n")
    child = spawn(workspace, home, live_server)
    wait_prompt(child)
    for text, done in (
        ("first words", "Echo: first words"),
        ("read notes.txt", "Done: read_file returned"),
        ("hello there", "Echo: hello there"),
        ("last one", "Echo: last one"),
    ):
        ask(child, text, done)
    leave(child, "/exit")
    messages = session.load(session.list_sessions(workspace)[0].session_id, workspace).messages

    child, screen = started(workspace, home, live_server, "--continue")
    lines = screen.lines()
    start_at = next(i for i, line in enumerate(lines) if line.startswith(f"Resumed {len(messages)} messages"))
    resumed = lines[start_at : start_at + 9]
    from pydantic_ai.messages import ModelResponse, TextPart

    answer = next(
        p.content
        for m in messages
        if isinstance(m, ModelResponse)
        for p in m.parts
        if isinstance(p, TextPart) and "read_file" in p.content
    )  # the answer after the read
    assert resumed == [
        f"Resumed {len(messages)} messages; the last 3 of 4 turn(s):",
        "… 1 earlier turn(s)",
        "> read notes.txt",
        "  ⏺ read_file notes.txt",
        f"  {answer}",
        "> hello there",
        "  Echo: hello there",
        "> last one",
        "  Echo: last one",
    ], lines
    assert answer.startswith("Done: read_file returned")
    assert screen.count("first words") == 0
    leave(child)


@pytest.mark.parametrize(("lang", "shown"), [("en", "lines 1–{last} of 153"), ("zh", "第 1–{last} 行，共 153 行")])
def test_a_capped_read_says_which_lines_on_the_tool_line(workspace, home, live_server, lang, shown):
    (workspace / "README.md").write_text(
        "".join(f"line {i} of a readme that is long enough to be capped\n" for i in range(1, 154))
    )
    child, screen = started(workspace, home, live_server, "--context-window", "8000", lang=lang)
    ask(child, "read README.md", "Done: read_file")
    answer = next(m["content"] for m in live_server.requests[-1]["body"]["messages"] if m["role"] == "tool")
    numbered = [line for line in answer.splitlines() if line.split("\t")[0].strip().isdigit()]
    last = int(numbered[-1].split("\t")[0])
    assert last < 153 and f"the file has 153 lines; continue with offset={last + 1}]" in answer
    assert screen.count("⎿ " + shown.format(last=last)) == 1, screen.lines()
    leave(child)
