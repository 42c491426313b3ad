"""MCP servers that misbehave (tests/mcp_bad_server.py, real processes): their stderr is kept in a
log, never on the terminal; a big answer is cut by read_file's rule; an answer the client cannot
read, a call that never ends and a server that never starts each end with one clear line."""

from __future__ import annotations

import asyncio
import io
import json
import sys
from pathlib import Path

import pytest

from agent.events import EventLog, Listing, Notice, ToolResult
from agent.provider import settings as files
from agent.tokens import count as tokens
from agent.tools import mcp_servers
from agent.turn.loop import run_turn
from tests.fake_openai import Text, ToolCalls
from tests.mcp_bad_server import ESCAPES, STARTED
from tests.robustness.attacks_mcp import running_with
from ui.commands import dispatch
from ui.registry import CommandHost

BAD = str(Path(__file__).resolve().parents[2] / "mcp_bad_server.py")
LONG_WAIT = 120  # seconds after which a call that should have ended is taken to hang


def bad(mode: str, **env: str) -> dict:
    return {"command": sys.executable, "args": [BAD, mode], "env": env}


async def started(state, home, servers: dict, **settings):
    home.mkdir(exist_ok=True)
    (home / "settings.json").write_text(json.dumps({"mcpServers": servers, **settings}))
    state.config.settings = files.load(state.workspace)
    state.mcp, warnings = mcp_servers.load(state.config.settings, state.workspace, "en")
    mcp_servers.start(state, True)
    await mcp_servers.wait_started(state)
    return warnings


@pytest.fixture
async def stop(make_state):
    made = []
    yield made.append
    for state in made:
        await mcp_servers.stop_all(state)


def log_text(state, name: str = "bad") -> str:
    from agent.tools import mcp_log

    path = mcp_log.log_path(state.workspace, name)
    older = path.with_name(path.name + ".1")
    return (older.read_text() if older.exists() else "") + path.read_text()


# --- stderr ----------------------------------------------------------------------------------


async def test_a_servers_stderr_goes_to_its_log_never_to_the_terminal(make_state, server, home, stop, capfd):
    state = make_state()
    stop(state)
    await started(state, home, {"bad": bad("stderr")})
    server.script(ToolCalls([("mcp__bad__echo", {"text": "\x1b]0;TITLE-FROM-ARGS\x07hi"})]), Text("ok"))
    await run_turn(state, "echo it")
    await mcp_servers.stop_all(state)
    out, err = capfd.readouterr()
    assert STARTED not in err and "\x1b]" not in err + out  # nothing reached our stderr or stdout
    kept = log_text(state)
    assert ESCAPES in kept and STARTED in kept and "echo called with: \x1b]0;TITLE-FROM-ARGS\x07hi" in kept
    assert "[info] echo log message: \x1b]0;TITLE-FROM-ARGS\x07hi" in kept  # what it sent as a log message
    from agent.tools import mcp_log

    assert oct(mcp_log.log_path(state.workspace, "bad").stat().st_mode & 0o777) == "0o600"


async def test_mcp_log_shows_the_log_with_its_escapes_drawn_as_text(make_state, home, stop):
    from rich.console import Console

    from ui.render import Renderer

    state = make_state()
    stop(state)
    await started(state, home, {"bad": bad("stderr")})
    await mcp_servers.stop_all(state)
    state.emit = log = EventLog()
    await dispatch(CommandHost(state), "/mcp log bad")
    [listing] = log.of(Listing)
    assert any(STARTED in line for line in listing.lines)
    out = io.StringIO()
    Renderer(Console(file=out, width=300, force_terminal=True), "en").on_listing(listing)
    drawn = out.getvalue()
    assert "\x1b]" not in drawn and "\x07" not in drawn and "\x1b[2J" not in drawn
    assert "\\x1b]0;PWNED-TITLE\\x07" in drawn


async def test_a_servers_log_is_bounded(make_state, server, home, stop):
    from agent.tools import mcp_log

    state = make_state()
    stop(state)
    await started(state, home, {"bad": bad("stderr")})
    text = "y" * 700_000
    server.script(*[ToolCalls([("mcp__bad__echo", {"text": text})]) for _ in range(4)], Text("ok"))
    await run_turn(state, "echo it four times")
    await mcp_servers.stop_all(state)
    path = mcp_log.log_path(state.workspace, "bad")
    older = path.with_name(path.name + ".1")
    assert older.exists() and path.stat().st_size <= mcp_log.LOG_BYTES and older.stat().st_size <= mcp_log.LOG_BYTES
    shown = mcp_log.tail(path, 5)
    assert shown[-1].startswith("[client] the server ended")
    assert all(len(line) <= mcp_log.LINE_CHARS + 4 for line in shown)


# --- big answers -----------------------------------------------------------------------------


async def test_a_big_answer_is_cut_like_read_file_and_the_rest_is_read_in_parts(make_state, server, home, stop):
    from pydantic_ai import RunContext
    from pydantic_ai.models.test import TestModel
    from pydantic_ai.usage import RunUsage

    from agent.tools.builtin import read_file

    state = make_state(context_window=16_000)  # one read may take 2,000 tokens of it
    stop(state)
    await started(state, home, {"bad": bad("big")})
    server.script(ToolCalls([("mcp__bad__dump", {"megabytes": 3})]), Text("got it"))
    outcome = await run_turn(state, "dump three megabytes")
    assert outcome.ok, outcome.error
    [result] = state.emit.of(ToolResult)
    assert tokens.count_text(result.content) <= 2_000
    assert result.content.startswith("0123456789abcdef")
    note = result.content.splitlines()[-1]
    assert "lines 1-" in note and "read it with read_file" in note
    path = Path(note.split("saved in ")[1].split(";")[0])
    assert path.stat().st_size == 30_927 * 97  # the whole answer: int(3e6 / 97) lines of 97 bytes
    assert str(path) in json.dumps(server.requests[-1]["body"])
    offset = int(note.split("offset=")[1].split(" ")[0])
    ctx = RunContext(deps=state, model=TestModel(), usage=RunUsage())
    part = read_file(ctx, str(path), offset=offset, limit=3)
    assert part.splitlines()[0] == f"{offset:6}\t" + "0123456789abcdef" * 6


async def test_json_sent_as_text_is_cut_before_the_client_parses_it(make_state, server, home, stop):
    state = make_state(context_window=16_000)
    stop(state)
    await started(state, home, {"bad": bad("big")})
    server.script(ToolCalls([("mcp__bad__dump_json", {"megabytes": 3})]), Text("got it"))
    await run_turn(state, "dump JSON")
    [result] = state.emit.of(ToolResult)
    assert result.content.startswith('[{"id": 1, "name": "item"') and tokens.count_text(result.content) <= 2_000
    assert "(lines over 2,000 characters wrapped)" in result.content


def test_the_cut_keeps_images_and_drops_a_big_structured_answer(tmp_path, home):
    import mcp_types

    from agent.tools.answer_cap import cap_result

    image = mcp_types.ImageContent(type="image", data="iVBORw0KGgo=", mime_type="image/png")
    words = "word " * 50_000
    big = mcp_types.CallToolResult(
        content=[mcp_types.TextContent(type="text", text=words), image], structured_content={"result": words}
    )
    cut = cap_result(big, 1_000, tmp_path / "a.txt")
    assert cut.content[1] is image and cut.structured_content is None
    assert tokens.count_text(cut.content[0].text) <= 1_000
    assert (tmp_path / "a.txt").read_text().replace("\n", "") == words
    small = mcp_types.CallToolResult(
        content=[mcp_types.TextContent(type="text", text="ok")], structured_content={"rows": [1, 2, 3]}
    )
    assert cap_result(small, 1_000, tmp_path / "b.txt") is small
    rows = mcp_types.CallToolResult(content=[], structured_content={"rows": list(range(100_000))})
    cut = cap_result(rows, 1_000, tmp_path / "c.txt")
    assert cut.content[0].text.startswith('{\n "rows": [\n  0,\n  1,')
    assert json.loads((tmp_path / "c.txt").read_text())["rows"][-1] == 99_999


async def test_an_answer_over_the_message_limit_is_dropped_unread(make_state, server, home, stop, monkeypatch):
    from agent.tools import mcp_stdio

    monkeypatch.setattr(mcp_stdio, "MAX_MESSAGE", 1 << 20)
    state = make_state()
    stop(state)
    await started(state, home, {"bad": bad("big")})
    server.script(ToolCalls([("mcp__bad__dump", {"megabytes": 2})]), Text("ok"))
    await asyncio.wait_for(run_turn(state, "dump"), LONG_WAIT)
    [result] = state.emit.of(ToolResult)
    assert result.is_error and "could not be read" in result.content and "was dropped" in result.content


# --- answers that never come -----------------------------------------------------------------


async def test_an_answer_the_client_cannot_read_ends_the_call(make_state, server, home, stop):
    state = make_state()
    stop(state)
    await started(state, home, {"bad": bad("unparseable")})
    server.script(ToolCalls([("mcp__bad__nested", {})]), Text("it failed"))
    outcome = await asyncio.wait_for(run_turn(state, "call it"), LONG_WAIT)
    assert outcome.ok, outcome.error
    [result] = state.emit.of(ToolResult)
    assert result.is_error and "could not be read" in result.content and "recursion limit" in result.content
    assert "could not be read" in log_text(state)
    assert state.mcp.servers["bad"].state == "ready"  # the server itself goes on


@pytest.mark.parametrize("where", ["env", "settings"])
async def test_a_call_longer_than_the_tool_timeout_is_ended(make_state, server, home, stop, monkeypatch, where):
    settings = {"mcpToolTimeout": 1000} if where == "settings" else {}
    if where == "env":
        monkeypatch.setenv("MCP_TOOL_TIMEOUT", "1000")
    state = make_state()
    stop(state)
    await started(state, home, {"bad": bad("stderr")}, **settings)
    server.script(ToolCalls([("mcp__bad__wait", {"seconds": 3600})]), Text("too slow"))
    outcome = await asyncio.wait_for(run_turn(state, "wait"), LONG_WAIT)
    assert outcome.ok, outcome.error
    [result] = state.emit.of(ToolResult)
    assert result.is_error and "did not answer in 1 s" in result.content and "MCP_TOOL_TIMEOUT" in result.content


def test_bad_limits_are_one_line_each(make_state, home, monkeypatch):
    monkeypatch.setenv("MCP_TOOL_TIMEOUT", "soon")
    monkeypatch.setenv("MAX_MCP_OUTPUT_TOKENS", "50000")
    state = make_state()
    home.mkdir(exist_ok=True)
    (home / "settings.json").write_text(json.dumps({"mcpToolTimeout": "later"}))
    state.config.settings = files.load(state.workspace)
    assert any("mcpToolTimeout" in w for w in state.config.settings.warnings)
    assert mcp_servers.load(state.config.settings, state.workspace, "en")[1] == []  # no server: nothing to say
    (home / "settings.json").write_text(json.dumps({"mcpServers": {"bad": bad("stderr")}}))
    _servers, warnings = mcp_servers.load(files.load(state.workspace), state.workspace, "en")
    assert warnings[0] == "MCP_TOOL_TIMEOUT=soon is not a number of milliseconds above 0; the default is used"
    assert warnings[1].startswith("MAX_MCP_OUTPUT_TOKENS is not read here") and len(warnings) == 2
    assert mcp_servers.timeouts(state).tool == mcp_servers.TOOL_TIMEOUT


# --- a server that never starts --------------------------------------------------------------


async def test_a_server_that_never_starts_is_failed_once_and_retried_on_request(
    make_state, server, home, stop, tmp_path, monkeypatch
):
    monkeypatch.setenv("MCP_TIMEOUT", "1500")
    silent = tmp_path / "silent"
    silent.touch()
    state = make_state()
    stop(state)
    await started(state, home, {"bad": bad("silent", BAD_SERVER_SILENT_WHILE=str(silent))})
    bad_server = state.mcp.servers["bad"]
    assert bad_server.state == "failed" and "did not finish starting in 1.5 s" in bad_server.error
    [notice] = [n.text for n in state.emit.of(Notice) if "bad" in n.text]
    assert notice.startswith("MCP server bad did not start within 1.5 s") and "/mcp retry bad" in notice
    assert running_with(str(silent)) == []  # the server's process is gone
    server.script(Text("answered"))
    await mcp_servers.wait_started(state)  # the next turn does not wait for it again
    assert (await run_turn(state, "hello")).ok and len([n for n in state.emit.of(Notice) if "bad" in n.text]) == 1
    state.emit = log = EventLog()
    host = CommandHost(state)
    await dispatch(host, "/mcp")
    assert "/mcp retry bad" in "\n".join(log.of(Listing)[0].lines)
    silent.unlink()
    monkeypatch.setenv("MCP_TIMEOUT", "120000")  # this time it answers: a loaded machine may take long to start it
    await dispatch(host, "/mcp retry bad")
    assert bad_server.state == "ready" and "wait" in bad_server.tools
    assert log.of(Notice)[-1].text == "MCP server bad is ready: 4 tools"
    server.script(ToolCalls([("mcp__bad__echo", {"text": "again"})]), Text("done"))
    outcome = await run_turn(state, "echo")
    assert outcome.ok, outcome.error
    assert state.emit.of(ToolResult), log.events
    assert state.emit.of(ToolResult)[-1].content == "echoed 5 characters"


async def test_ctrl_c_while_a_server_starts_keeps_the_message(make_state, home, stop, tmp_path):
    from agent.events import WaitingForModel
    from main import on_submit

    silent = tmp_path / "silent"
    silent.touch()
    state = make_state()
    stop(state)
    home.mkdir(exist_ok=True)
    servers = {"bad": bad("silent", BAD_SERVER_SILENT_WHILE=str(silent))}
    (home / "settings.json").write_text(json.dumps({"mcpServers": servers}))
    state.config.settings = files.load(state.workspace)
    state.mcp, _ = mcp_servers.load(state.config.settings, state.workspace, "en")
    mcp_servers.start(state, True)
    waiting = asyncio.Event()

    def emit(event):
        if isinstance(event, WaitingForModel) and "Starting MCP server bad" in event.label:
            waiting.set()

    state.emit = emit
    turn = asyncio.create_task(on_submit(state, "remember this message"))
    await asyncio.wait_for(waiting.wait(), LONG_WAIT)  # the spinner says what the turn waits for
    turn.cancel()
    with pytest.raises(asyncio.CancelledError):
        await turn
    assert "remember this message" in json.dumps([str(m) for m in state.history])
