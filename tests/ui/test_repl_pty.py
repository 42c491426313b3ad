"""The REPL in a real pseudo-terminal, typed into as a person would."""

from __future__ import annotations

import os
import sys

import pexpect
import pytest

import session
from tests.pty_kit import (
    ROOT,
    SESSION_ID,
    TIMEOUT,
    Screen,
    ask,
    interrupt_then_go_on,
    leave,
    spawn,
    started,
    type_line,
    wait_prompt,
)


def test_a_session_in_a_real_terminal(workspace, home, live_server):
    (workspace / "notes.txt").write_text("the secret word is pineapple\n")
    child = spawn(workspace, home, live_server)
    wait_prompt(child)

    ask(child, "hello there", "Echo: hello there")

    # Alt+Enter (Esc Enter) inserts a newline instead of sending.
    child.send("line one")
    child.send("\x1b\r")
    ask(child, "line two", "line two")
    assert live_server.requests[-1]["body"]["messages"][-1]["content"] == "line one\nline two"

    type_line(child, "read notes.txt")
    child.expect("read_file")
    child.expect("Done: read_file returned")
    wait_prompt(child)

    type_line(child, "/help")
    child.expect("/status")
    child.expect("/compact")
    wait_prompt(child)

    type_line(child, "/status")
    child.expect("Context:")
    child.expect("left until auto-compact")
    wait_prompt(child)

    ask(child, "/stauts", "Did you mean /status")

    # Ctrl-C in the middle of a streamed answer cancels the turn and leaves a usable history.
    type_line(child, "slow answer please")
    child.expect("Slow answer part 3 of 40")
    child.sendintr()
    child.expect("Interrupted")
    wait_prompt(child)
    ask(child, "still there?", "Echo: still there")

    leave(child, "/exit")

    sessions = session.list_sessions(workspace)
    assert len(sessions) == 1
    messages = session.load(sessions[0].session_id, workspace).messages
    assert len(messages) >= 8

    # --continue resumes the same session.
    child = spawn(workspace, home, live_server, "--continue")
    assert child.session_id == sessions[0].session_id
    child.expect(f"Resumed {len(messages)} messages")
    wait_prompt(child)
    ask(child, "/status", sessions[0].session_id)
    leave(child)


def test_compact_and_status_in_a_real_terminal(workspace, home, live_server):
    (workspace / "code.py").write_text("def add(a, b):\n    return a + b\n" * 50)
    child = spawn(workspace, home, live_server)
    wait_prompt(child)
    ask(child, "/compact", "Nothing to compact")
    ask(child, "read code.py", "Done: read_file")
    # A long answer: the summary must be smaller than what it replaces, or it is refused.
    from tests.builders import long_answer

    live_server.script(long_answer())
    ask(child, "please remember the plan: add tests for add()", "Answer 0")

    type_line(child, "/compact keep the plan")
    child.expect("Compacted: ([0-9,]+) → ([0-9,]+) tokens")
    before, after = (int(x.replace(",", "")) for x in child.match.groups())
    child.expect("archived at")
    wait_prompt(child)
    archives = session.list_archives(session.latest_session(workspace), workspace)
    assert len(archives) == 1 and archives[0].stat().st_size > 0
    assert before > 0 and after > 0

    type_line(child, "/status")
    child.expect("Compactions: 1")
    child.expect("Newest archive")
    wait_prompt(child)

    # The request after the compaction starts with the summary and carries the custom instruction.
    compaction_request = live_server.requests[-1]["body"]["messages"][-1]["content"]
    assert "Additional instructions:\nkeep the plan" in compaction_request
    ask(child, "what now?", "Echo: what now")
    first = live_server.requests[-1]["body"]["messages"][1]["content"]
    assert "compacted because the context filled up" in first

    leave(child, "/exit")


def test_missing_key_for_deepseek_is_one_clear_line(workspace, home):
    env = {k: v for k, v in os.environ.items() if k not in ("API_KEY", "DEEPSEEK_API_KEY", "OPENAI_API_KEY")}
    env["CODING_AGENT_HOME"] = str(home)
    child = pexpect.spawn(
        sys.executable, [str(ROOT / "main.py")], cwd=str(workspace), env=env, encoding="utf-8", timeout=TIMEOUT
    )
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 2
    assert "API_KEY" in child.before and "DEEPSEEK_API_KEY" in child.before
    assert "Traceback" not in child.before


def test_one_turn_reading_many_large_files_never_hits_the_wall(workspace, home, live_server):
    from tests.builders import big_files, responder, script_forever
    from tests.fake_openai import Text, ToolCalls

    window = 16_000
    live_server.max_context = window  # past this the "provider" refuses, as a real one would
    big_files(workspace, 12, lines=60)
    calls = [ToolCalls([("read_file", {"path": f"big{i}.txt"})]) for i in range(12)]
    script_forever(live_server, responder(calls + [Text("All twelve files reviewed.")]))
    child = spawn(workspace, home, live_server, "--context-window", str(window))
    wait_prompt(child)

    type_line(child, "review every file in this folder")
    child.expect("Context filled up during this turn")
    child.expect("All twelve files reviewed.", timeout=60)
    wait_prompt(child)
    assert "maximum context length" not in child.before and "longer than the model" not in child.before

    # /compact undo brings the history from before the (last) compaction back, after confirming.
    type_line(child, "/compact undo")
    child.expect("newest archive")
    child.send("y\r")
    child.expect("Restored the history from")
    wait_prompt(child)
    leave(child, "/exit")
    assert len(session.list_archives(session.latest_session(workspace), workspace)) >= 2


def test_resume_picker_lists_sessions(workspace, home, live_server):
    child = spawn(workspace, home, live_server)
    wait_prompt(child)
    ask(child, "first session here", "Echo: first session here")
    leave(child, "/exit")

    env = dict(os.environ, CODING_AGENT_HOME=str(home), PROMPT_TOOLKIT_NO_CPR="1")
    child = pexpect.spawn(
        sys.executable,
        [str(ROOT / "main.py"), "--base-url", live_server.base_url, "--lang", "en", "--resume"],
        cwd=str(workspace),
        env=env,
        encoding="utf-8",
        timeout=TIMEOUT,
        dimensions=(40, 140),
    )
    child.expect("1. (\\S+)  first session here")
    picked = child.match.group(1)
    child.expect("Session number")
    child.send("1\r")
    child.expect(SESSION_ID)
    assert child.match.group(1) == picked
    wait_prompt(child)
    leave(child)


def test_resumed_near_the_threshold_compacts_from_the_primed_request(workspace, home, live_server):
    """--continue on a session past the threshold: the warm-up builds the request while the user
    types, and the compaction the first turn needs starts from it (agent/provider/prefix.py)."""
    import json
    import time

    from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart

    from tests.builders import note

    sid = session.new_session_id()
    messages = []
    for i in range(8):
        messages += [ModelRequest(parts=[UserPromptPart(f"question {i}")]), ModelResponse(parts=[TextPart(note(i))])]
    session.rewrite_messages(sid, messages, workspace)
    child = spawn(
        workspace, home, live_server, "--continue", "--context-window", "16000", "--compact-at", "8k", "--debug"
    )
    assert child.session_id == sid
    wait_prompt(child)
    log = home / "debug.log"
    deadline = time.monotonic() + TIMEOUT
    while '"primed"' not in (log.read_text() if log.exists() else "") and time.monotonic() < deadline:
        time.sleep(0.1)

    type_line(child, "go on")
    child.expect("compacting automatically")
    i = child.expect(["Compacted: ([0-9,]+) → ([0-9,]+) tokens", "(?s)failed.{0,300}"])
    assert i == 0, child.after
    child.expect("Echo: go on")
    wait_prompt(child)
    leave(child, "/exit")

    events = [json.loads(line) for line in log.read_text().splitlines()]
    names = [e["event"] for e in events]
    assert "primed" in names and "compact_reuses_request" in names and "compact_prefix_mismatch" not in names
    reused = next(e for e in events if e["event"] == "compact_reuses_request")
    assert reused["messages"] == len(messages)
    # Nothing was sent before the compaction request: priming only builds.
    assert "<summary>" in live_server.requests[0]["body"]["messages"][-1]["content"]


def test_ctrl_c_leaves_the_answer_on_screen_once(workspace, home, live_server):
    child, screen = started(workspace, home, live_server)
    for tries in (1, 2):
        type_line(child, "slow answer please")
        child.expect("Slow answer part 3 of 40")
        child.sendintr()
        child.expect("Interrupted")
        wait_prompt(child)
        assert screen.count("Slow answer part 1 of 40") == tries, "\n".join(screen.lines())
    assert screen.count("^C") == 0
    type_line(child, "/clear")  # a second session: its lock, and the first's, go at exit
    child.expect("New session")
    wait_prompt(child)
    leave(child, "/exit")
    child.wait()
    assert list(session.project_dir(workspace).glob("*.lock")) == []


def test_a_spinner_says_what_the_turn_waits_for(workspace, home, live_server):
    from tests.fake_openai import Error, Hang, ToolCalls

    child = spawn(workspace, home, live_server, "--yes", env_extra={"CODING_AGENT_MAX_RETRIES": "2"})
    wait_prompt(child)
    # From Enter to the first token: waiting for the model.
    live_server.script(Hang(1.5))
    type_line(child, "hello at leisure")
    assert child.expect(["Waiting for the model", "Echo: hello at leisure"]) == 0
    child.expect("Echo: hello at leisure")
    wait_prompt(child)

    # A shell command while it runs: its own name, not "Waiting for the model".
    live_server.script(ToolCalls([("run_command", {"command": "sleep 1.5"})]))
    type_line(child, "take a nap")
    assert child.expect(["Running sleep 1.5", "Done: run_command"]) == 0
    child.expect("Done: run_command")
    wait_prompt(child)

    # A 429: what happened, which attempt comes, and how long until it.
    live_server.script(Error(429, "Rate limit reached", headers={"retry-after": "2"}))
    type_line(child, "are you busy")
    assert child.expect([r"HTTP 429: retrying in 2s \(attempt 2 of 3\)", "Echo: are you busy"]) == 0
    child.expect("Echo: are you busy")
    wait_prompt(child)
    leave(child, "/exit")


def test_the_chinese_ui_speaks_chinese(workspace, home, live_server):
    (workspace / "notes.txt").write_text("第一行\n第二行\n")
    child, screen = started(workspace, home, live_server, lang="zh")
    ask(child, "read notes.txt", "Done: read_file")
    assert any("行，" in line and "字符" in line for line in screen.lines()), "\n".join(screen.lines())
    ask(child, "/status", "压缩阈值")
    ask(child, "/nope", "未知命令 /nope。")
    leave(child, "/exit")
    shown = "\n".join(screen.lines())
    child = spawn(workspace, home, live_server, "--continue", lang="zh")
    screen = Screen(child)
    child.expect(r"已恢复 \d+ 条消息")
    wait_prompt(child)
    shown += "\n".join(screen.lines())
    for word in ("session", "window", "threshold", "messages", "lines", "chars", "context", "Resumed"):
        assert word not in shown, word
    leave(child)


def test_ctrl_c_stops_a_long_turn(workspace, home, live_server):
    from tests.fake_openai import ToolCalls

    (workspace / "a.txt").write_text("x\n")
    live_server.script(*[ToolCalls([("read_file", {"path": "a.txt"})]) for _ in range(200)])
    child = spawn(workspace, home, live_server)
    wait_prompt(child)
    type_line(child, "refactor everything")
    for _ in range(55):  # past pydantic-ai's old cap of 50 requests
        child.expect("⎿ 1 lines")
    interrupt_then_go_on(child, live_server)


@pytest.mark.parametrize(("lang", "word"), [("en", "session"), ("zh", "会话")])
def test_the_session_id_is_found_where_the_banner_breaks_before_it(tmp_path, home, live_server, lang, word):
    from rich.cells import cell_len

    # "deepseek-flash · <path> · session" exactly as wide as the terminal: the id starts the next line.
    width = 140 - cell_len(f"deepseek-flash ·  · {word}")
    workspace = tmp_path / ("w" * (width - len(str(tmp_path)) - 1))
    workspace.mkdir()
    assert len(str(workspace)) == width
    child = spawn(workspace, home, live_server, lang=lang)
    assert "\r\n" in child.after and child.after.startswith(word + "\x1b[")  # broken there, the space gone
    wait_prompt(child)
    leave(child)
