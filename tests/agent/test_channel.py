"""Issue 15: one typed channel between the loop and the UI. Events go out through `state.emit`;
approvals and the commands' questions are request events the UI answers on the same line. The loop
side never touches rich or prompt-toolkit; the REPL and -p mode share one dispatcher."""

from __future__ import annotations

import ast
import asyncio
import subprocess
import sys
import typing
from io import StringIO
from pathlib import Path

import pytest
from rich.console import Console

from agent.events import (
    ApprovalRequest,
    CommandRunning,
    Event,
    EventLog,
    Listing,
    Notice,
    Question,
    ReportRequested,
    TextDelta,
    ask,
)
from agent.tools.builtin import run_command, write_file
from tests.fake_ui import FakeUI
from tests.test_architecture import ROOT, source_files
from ui.dispatch import METHODS, Dispatcher
from ui.print_view import PrintRenderer
from ui.registry import CommandHost
from ui.render import Renderer


def _answers(*answers: str):
    asked: list[tuple[str, str | None]] = []
    queue = list(answers)

    async def approve(subject: str, why: str | None = None) -> str:
        asked.append((subject, why))
        return queue.pop(0)

    return approve, asked


async def test_an_approval_is_a_request_the_ui_answers(ctx, workspace):
    approve, asked = _answers("n", "always")
    ui = FakeUI(approve=approve)
    ctx.deps.emit = ui
    assert await run_command(ctx, "touch made") == "Error: the user declined to run this command"
    assert not (workspace / "made").exists()
    assert "ok" in await run_command(ctx, "echo ok")
    assert "ok" in await run_command(ctx, "echo ok")  # "always": not asked again
    assert asked == [("touch made", None), ("echo ok", None)]
    # The request went down the same line as the events, typed and whole.
    assert ui.of(ApprovalRequest) == [ApprovalRequest("command", "touch made"), ApprovalRequest("command", "echo ok")]
    asked_at = ui.events.index(ApprovalRequest("command", "echo ok"))
    assert ui.events[asked_at + 1] == CommandRunning("echo ok")  # it runs once answered, not before


async def test_a_guarded_write_asks_with_the_path_and_why(ctx, workspace):
    (workspace / ".git").mkdir()
    approve, asked = _answers("y")
    ctx.deps.emit = FakeUI(approve=approve)
    await write_file(ctx, ".git/config", "[core]\n")
    [(path, why)] = asked
    assert path == ".git/config" and why and ".git" in why
    assert (workspace / ".git" / "config").read_text() == "[core]\n"
    [request] = ctx.deps.emit.of(ApprovalRequest)
    assert request.kind == "write" and request.why == why


@pytest.mark.parametrize("ui", [EventLog(), Dispatcher(), lambda event: None])
async def test_a_ui_that_cannot_answer_never_approves(ui):
    assert await ask(ui, ApprovalRequest("command", "rm -rf ~")) == "n"
    assert await ask(ui, Question("Restore it?", yes_no=True)) == "n"
    assert await ask(ui, Question("Number: ")) == ""


async def test_an_answer_outside_the_choices_is_no():
    async def sloppy() -> str:
        return "yes please"

    assert await ask(lambda event: sloppy(), ApprovalRequest("command", "ls")) == "n"
    assert await ask(lambda event: sloppy(), Question("Sure?", yes_no=True)) == "n"
    assert await ask(lambda event: sloppy(), Question("Number: ")) == "yes please"


def test_every_event_has_a_method_in_the_one_dispatcher():
    assert set(METHODS) == set(typing.get_args(Event))
    for event_type, method in METHODS.items():
        assert callable(getattr(Dispatcher, method, None)), (event_type, method)


def _renderer(answers: list[str], seen: list[tuple[str, bool, str]]) -> tuple[Renderer, StringIO]:
    out = StringIO()

    async def read_answer(question: str, fresh_keys: bool, edit: str | None = None) -> str:
        seen.append((question, fresh_keys, out.getvalue()))  # what was on screen when keys were read
        return answers.pop(0)

    return Renderer(Console(file=out, width=100), "en", read_answer=read_answer), out


async def test_the_repl_draws_the_whole_request_before_it_reads_fresh_keys():
    seen: list[tuple[str, bool, str]] = []
    renderer, _out = _renderer(["a", "maybe"], seen)
    command = "echo one\n\x1b[2Kecho two"
    assert await ask(renderer, ApprovalRequest("command", command)) == "always"
    question, fresh_keys, screen = seen[0]
    assert fresh_keys and "(the 2 line(s) above)" in question
    assert "echo one" in screen and "\\x1b[2Kecho two" in screen and "\x1b" not in screen
    assert await ask(renderer, ApprovalRequest("write", ".git/config", why="a file under .git/")) == "n"
    assert "Write to this file, a file under .git/" in seen[1][2]
    renderer.stop_spinner()


async def test_a_commands_question_goes_through_the_channel(state):
    seen: list[tuple[str, bool, str]] = []
    renderer, _out = _renderer(["是", "2"], seen)
    state.config.lang = "zh"
    state.emit = renderer
    host = CommandHost(state)
    assert await host.confirm("恢复？") is True
    assert await host.ask("编号：") == "2"
    assert [(q, fresh) for q, fresh, _ in seen] == [("恢复？ [y/N] ", False), ("编号：", False)]


async def test_slash_commands_speak_only_through_the_channel(state):
    from ui.commands import dispatch

    state.emit = log = EventLog()
    host = CommandHost(state)
    assert not hasattr(host, "console")
    await dispatch(host, "/help")
    await dispatch(host, "/status")
    await dispatch(host, "/stauts")
    await dispatch(host, "/exit")
    [listing] = log.of(Listing)
    hint = "/compact [instructions|preview [instructions]|undo|show]"
    assert "/compact" in listing.strong and any(line.startswith(hint) for line in listing.lines)
    assert log.of(ReportRequested) == [ReportRequested("status")]
    assert log.of(Notice) == [Notice("Unknown command /stauts. Did you mean /status?", "warn")]
    assert host.running is False


def test_print_mode_renders_with_the_same_dispatcher(capsys):
    view = PrintRenderer("en")
    assert isinstance(view, Dispatcher)
    view(TextDelta("the answer"))
    view(Notice("it broke", "error"))
    reply = view(ApprovalRequest("command", "make deploy"))
    assert reply is None and asyncio.run(ask(view, ApprovalRequest("command", "make deploy"))) == "n"
    out, err = capsys.readouterr()
    assert out == "the answer"
    assert "it broke" in err and "Declined to run `make deploy`" in err
    assert view.errors == ["it broke"]


LOOP_SIDE = ("agent", "compact.py", "session.py", "controller.py")


def test_the_loop_side_imports_no_terminal_library():
    offenders = []
    for path in source_files(ROOT):
        name = path.relative_to(ROOT).as_posix()
        if not name.startswith(LOOP_SIDE):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            modules = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else ([node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            )
            offenders += [f"{name}: {m}" for m in modules if m.split(".")[0] in ("rich", "prompt_toolkit", "ui")]
    assert offenders == []


def test_a_turn_loads_neither_rich_nor_prompt_toolkit(workspace: Path):
    """Run the loop side (start a session, ask an approval, a command's host) in a fresh process."""
    code = (
        "import asyncio, sys\n"
        "import compact, controller, session, agent.turn.loop, agent.tools.builtin\n"
        "from agent.events import ApprovalRequest, EventLog, ask\n"
        "assert asyncio.run(ask(EventLog(), ApprovalRequest('command', 'ls'))) == 'n'\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('rich', 'prompt_toolkit', 'ui')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
