"""-p for scripts and CI (issue 25): piped stdin, --output-format, exit codes, the tool flags.
Each runs main.py in a subprocess against the strict emulator."""

from __future__ import annotations

import json

import session
from tests.deepseek_page import PAGE
from tests.test_main import run_main


def agent(server, *args):
    return ["--base-url", server.base_url, "--lang", "en", *args]


def user_text(request):
    return [m for m in request["body"]["messages"] if m["role"] == "user"][-1]["content"]


def test_piped_stdin_is_added_below_the_prompt(workspace, home, server):
    diff = "--- a/x.py\n+++ b/x.py\n+print('hello')\n"
    result = run_main(agent(server, "-p", "review this"), workspace, home, stdin=diff)
    assert result.returncode == 0, result.stderr
    sent = user_text(server.requests[-1])
    assert sent.startswith("review this") and "+print('hello')" in sent
    assert "Echo: review this" in result.stdout


def test_dash_reads_the_prompt_from_stdin(workspace, home, server):
    result = run_main(agent(server, "-p", "-"), workspace, home, stdin="hello from a pipe\n")
    assert result.returncode == 0, result.stderr
    assert user_text(server.requests[-1]) == "hello from a pipe\n"
    empty = run_main(agent(server, "-p", "-"), workspace, home, stdin="  \n")
    assert empty.returncode == 2 and "stdin was empty" in empty.stderr
    assert len(server.requests) == 1


def test_text_mode_keeps_tool_lines_off_stdout(workspace, home, server):
    (workspace / "notes.txt").write_text("alpha\nbeta\n")
    result = run_main(agent(server, "-p", "read notes.txt"), workspace, home)
    assert result.returncode == 0, result.stderr
    assert "⏺ read_file notes.txt" in result.stderr
    assert result.stdout.strip().startswith("Done: read_file returned") and result.stdout.count("\n") == 1


def test_json_is_one_object_with_what_a_script_needs(workspace, home, server):
    (workspace / "notes.txt").write_text("alpha\nbeta\n")
    result = run_main(agent(server, "-p", "read notes.txt", "--output-format", "json"), workspace, home)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["type"] == "result" and out["is_error"] is False and out["exit_code"] == 0
    assert out["result"].startswith("Done: read_file returned")
    assert out["session_id"] == session.latest_session(workspace)
    assert out["tools"] == [{"name": "read_file", "is_error": False}]
    assert out["requests"] == len(server.requests) == 2 and out["compactions"] == 0
    # The figures the server billed, priced by the model table.
    hit = sum(r["cache_hit_tokens"] for r in server.requests)
    prompt = sum(r["prompt_tokens"] for r in server.requests)
    completion = sum(r["completion_tokens"] for r in server.requests)
    # Claude Code's meaning of input_tokens (not read from the cache), and ours beside it.
    assert out["usage"] == {
        "input_tokens": prompt - hit,
        "cache_read_input_tokens": hit,
        "cache_creation_input_tokens": 0,
        "output_tokens": completion,
        "prompt_tokens": prompt,
        "cache_hit_tokens": hit,
    }
    # DeepSeek's page's figures, off-peak or peak (whichever hour the test runs at).
    expected = [(hit * h + (prompt - hit) * m + completion * o) / 1e6 for h, m, o in PAGE["deepseek-flash"].values()]
    assert out["cost"]["currency"] == "USD" and min(abs(out["cost"]["amount"] - e) for e in expected) < 1e-6


def test_stream_json_is_one_event_a_line_then_the_result(workspace, home, server):
    (workspace / "notes.txt").write_text("alpha\n")
    result = run_main(agent(server, "-p", "read notes.txt", "--output-format", "stream-json"), workspace, home)
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    kinds = [line["type"] for line in lines]
    assert kinds[-1] == "result" and kinds.count("result") == 1
    assert kinds.index("waiting_for_model") < kinds.index("tool_call_started") < kinds.index("tool_result")
    started = next(line for line in lines if line["type"] == "tool_call_started")
    assert started["tool_name"] == "read_file" and started["args"] == {"path": "notes.txt"}
    answer = "".join(line["text"] for line in lines if line["type"] == "text_delta")
    assert answer == lines[-1]["result"] and answer.startswith("Done: read_file returned")
    assert "usage_update" in kinds


def test_a_command_declined_for_want_of_approval_exits_3(workspace, home, server):
    # Outside the OS sandbox a command is asked about; in it, only one the sandbox stopped (test_sandbox_*).
    result = run_main(
        agent(server, "-p", "run touch made.txt", "--output-format", "json", "--sandbox", "danger-full-access"),
        workspace,
        home,
    )
    assert result.returncode == 3, result.stderr
    out = json.loads(result.stdout)
    assert out["declined"] == ["touch made.txt"] and out["is_error"] is True
    assert "cannot ask for approval" in result.stderr and not (workspace / "made.txt").exists()
    allowed = run_main(
        agent(server, "-p", "run touch made.txt", "--allowed-tools", "run_command", "--sandbox", "danger-full-access"),
        workspace,
        home,
    )
    assert allowed.returncode == 0, allowed.stderr
    assert (workspace / "made.txt").exists()


def test_disallowed_tools_are_not_offered_and_unknown_names_are_refused(workspace, home, server):
    result = run_main(agent(server, "-p", "hello", "--disallowed-tools", "run_command,write_file"), workspace, home)
    assert result.returncode == 0, result.stderr
    names = {tool["function"]["name"] for tool in server.requests[-1]["body"]["tools"]}
    assert "run_command" not in names and "write_file" not in names and "read_file" in names
    bad = run_main(agent(server, "-p", "hello", "--allowed-tools", "rm_rf"), workspace, home)
    assert bad.returncode == 2 and "rm_rf" in bad.stderr and "read_file" in bad.stderr
    assert len(server.requests) == 1


def test_max_turns_stops_the_run_with_an_error(workspace, home, server):
    (workspace / "notes.txt").write_text("alpha\n")
    result = run_main(
        agent(server, "-p", "read notes.txt", "--max-turns", "1", "--output-format", "json"), workspace, home
    )
    assert result.returncode == 1
    out = json.loads(result.stdout)
    assert out["is_error"] is True and out["requests"] == 1 and len(server.requests) == 1
    assert "limit of 1 model requests" in out["errors"][0]


def test_a_bad_output_format_from_the_environment_is_refused(workspace, home, server):
    result = run_main(agent(server, "-p", "hi"), workspace, home, env={"CODING_AGENT_OUTPUT_FORMAT": "xml"})
    assert result.returncode == 2 and "'xml' is not text, json or stream-json" in result.stderr
    assert server.requests == []
