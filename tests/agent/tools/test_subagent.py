"""Sub-agents (issue 25, part 7): the `task` tool against the strict emulator: a fresh context, the
tools the parent chose, the same approval rules, only the report back, the transcript archived and
named, the tokens in /status, several at once."""

from __future__ import annotations

import json
import re
from pathlib import Path

import main
import session
from agent.events import ApprovalRequest
from tests.fake_ui import FakeUI

SUB = "You are now a sub-agent"


def is_child(body) -> bool:
    return SUB in str(body["messages"][0].get("content"))


def tool_results(body) -> list[str]:
    return [m["content"] for m in body["messages"] if m["role"] == "tool"]


async def test_a_sub_agent_reads_in_its_own_context_and_only_its_report_returns(make_state, server, workspace):
    (workspace / "notes.txt").write_text("the secret word is pineapple\n" * 50)
    state = make_state()
    await main.on_submit(state, "task read notes.txt")
    child = [r["body"] for r in server.requests if is_child(r["body"])]
    parent = [r["body"] for r in server.requests if not is_child(r["body"])]
    assert len(child) == 2 and len(parent) == 2
    # A fresh context: the job as its only user message; read-only tools by default.
    assert [m["content"] for m in child[0]["messages"] if m["role"] == "user"] == ["read notes.txt"]
    assert {t["function"]["name"] for t in child[0]["tools"]} == {"read_file", "list_files", "grep"}
    assert "pineapple" in tool_results(child[1])[0]
    # The parent got the report, never the file.
    [report] = tool_results(parent[1])
    assert "pineapple" not in json.dumps(parent[1]["messages"])
    assert report.startswith("Done: read_file returned")
    path = Path(re.search(r"its transcript: (\S+)\]", report).group(1))
    assert path.parent == session.archive_dir(workspace) and path.name.startswith("task-")
    archived = session.parse_lines(path.read_bytes()).messages
    assert "pineapple" in str(archived)
    assert path not in session.list_archives(state.session_id, workspace)  # not one of the session's archives
    # Its tokens: the server's figures for the sub-agent's two requests.
    served = [r for r in server.requests if is_child(r["body"])]
    assert state.stats.subagent_runs == 1 and state.stats.subagent_requests == 2
    assert state.stats.subagent_input_tokens == sum(r["prompt_tokens"] for r in served)
    assert state.stats.subagent_output_tokens == sum(r["completion_tokens"] for r in served)
    assert state.stats.input_tokens == sum(r["prompt_tokens"] for r in server.requests if not is_child(r["body"]))


async def test_status_shows_the_sub_agents_tokens_and_cost(make_state, server, workspace):
    from io import StringIO

    from rich.console import Console

    from ui.app import App
    from ui.commands import dispatch

    (workspace / "a.txt").write_text("alpha\n")
    state = make_state()
    out = StringIO()
    app = App(state, main.submit, console=Console(file=out, width=200))
    await main.submit(app, "task read a.txt")
    await dispatch(app, "/status")
    line = next(line for line in out.getvalue().splitlines() if "Sub-agents:" in line)
    assert "1 run(s), 2 requests" in line and "$" in line


async def test_commands_are_asked_of_the_user_as_the_sub_agents(make_state, server, workspace):
    from tests.fake_openai import ToolCalls

    async def decline(subject: str) -> str:
        return "n"

    state = make_state(yes=False)
    state.emit = FakeUI(approve=decline)
    job = {"description": "build", "prompt": "run touch made.txt", "tools": ["run_command"]}
    server.script(ToolCalls([("task", job)]))
    await main.on_submit(state, "please build")
    [asked] = state.emit.of(ApprovalRequest)
    assert (asked.kind, asked.subject, asked.origin) == ("command", "touch made.txt", 'sub-agent "build"')
    assert not (workspace / "made.txt").exists()
    child_last = [r["body"] for r in server.requests if is_child(r["body"])][-1]
    assert tool_results(child_last) == ["Error: the user declined to run this command"]


async def test_several_sub_agents_run_at_once(make_state, server, workspace):
    import threading

    from tests.fake_openai import smart_reply

    for name in ("a", "b", "c"):
        (workspace / f"{name}.txt").write_text(f"{name}\n")
    state = make_state()
    # Each sub-agent's first request is answered only once all three have arrived: run one after
    # another, the first would wait alone and the barrier break.
    barrier, broke = threading.Barrier(3, timeout=10), []

    def reply(body):
        if is_child(body) and not tool_results(body):
            try:
                barrier.wait()
            except threading.BrokenBarrierError:
                broke.append(True)
        return smart_reply(body)

    server.script(*[reply] * 20)
    await main.on_submit(state, "tasks read a.txt | read b.txt | read c.txt")
    assert broke == [] and state.stats.subagent_runs == 3
    assert len([r for r in server.requests if is_child(r["body"])]) == 6
    last = [r for r in server.requests if not is_child(r["body"])][-1]
    assert len(tool_results(last["body"])) == 3


async def test_a_bad_tool_list_or_an_exhausted_budget_is_told_to_the_parent(make_state, server, workspace):
    from tests.fake_openai import ToolCalls

    (workspace / "big.txt").write_text("word " * 5000)
    state = make_state()
    server.script(ToolCalls([("task", {"description": "x", "prompt": "read big.txt", "tools": ["task"]})]))
    await main.on_submit(state, "go")
    assert "cannot have task" in tool_results(server.requests[-1]["body"])[-1]
    server.script(ToolCalls([("task", {"description": "big", "prompt": "read big.txt", "token_budget": 2000})]))
    await main.on_submit(state, "go again")
    result = tool_results(server.requests[-1]["body"])[-1]
    assert result.startswith("Error: the sub-agent stopped") and "its transcript:" in result


async def test_the_question_says_it_comes_from_the_sub_agent():
    from io import StringIO

    from rich.console import Console

    from ui.render import Renderer

    out = StringIO()

    async def answer(question: str, fresh: bool, edit: str | None = None) -> str:
        return "n"

    renderer = Renderer(Console(file=out, width=120), "en", read_answer=answer)
    await renderer(ApprovalRequest("command", "make test", origin='sub-agent "\x1b[2Jbuild"'))
    text = out.getvalue()
    assert 'sub-agent "\\x1b[2Jbuild" asks: Run command' in text and "\x1b[2J" not in text


def test_print_mode_json_counts_the_sub_agents(workspace, home, server):
    import json as json_

    from tests.test_main import run_main

    (workspace / "a.txt").write_text("alpha\n")
    result = run_main(
        ["--base-url", server.base_url, "-p", "task read a.txt", "--output-format", "json"], workspace, home
    )
    assert result.returncode == 0, result.stderr
    out = json_.loads(result.stdout)
    served = [r for r in server.requests if is_child(r["body"])]
    assert out["subagents"]["runs"] == 1 and out["subagents"]["requests"] == len(served) == 2
    assert out["subagents"]["input_tokens"] == sum(r["prompt_tokens"] for r in served)
    assert out["tools"] == [{"name": "task", "is_error": False}]
