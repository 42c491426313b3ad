"""Start-up, configuration, one-shot mode, and the turn's plumbing (mentions, prompt cache)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

import main
import session
from agent.provider.prices import known_context_window

ROOT = Path(__file__).resolve().parent.parent


def run_main(args, workspace, home, env=None, timeout=60, stdin=""):
    full = {k: v for k, v in os.environ.items() if not k.endswith("API_KEY")}
    full.update({"CODING_AGENT_HOME": str(home), "CODING_AGENT_MAX_RETRIES": "0"})
    full.update(env or {})
    # stdin given, never inherited: -p reads a piped stdin (an empty one adds nothing).
    return subprocess.run(
        [sys.executable, str(ROOT / "main.py"), *args],
        cwd=workspace,
        env=full,
        capture_output=True,
        text=True,
        timeout=timeout,
        input=stdin,
    )


def test_version(workspace, home):
    result = run_main(["--version"], workspace, home)
    assert result.returncode == 0 and "coding-agent-compact" in result.stdout


def test_print_mode_answers_and_exits(workspace, home, server):
    result = run_main(["--base-url", server.base_url, "-p", "hello world"], workspace, home)
    assert result.returncode == 0, result.stderr
    assert "Echo: hello world" in result.stdout
    assert len(session.list_sessions(workspace)) == 1


def test_print_mode_401_names_the_key_variable(workspace, home, server):
    server.api_key = "right-key"
    result = run_main(["--base-url", server.base_url, "-p", "hi"], workspace, home, env={"API_KEY": "wrong"})
    assert result.returncode == 1
    assert "API_KEY" in result.stderr and "Traceback" not in result.stderr


def test_environment_sets_flags(monkeypatch):
    monkeypatch.setenv("CODING_AGENT_MODEL", "qwen-coder")
    monkeypatch.setenv("CODING_AGENT_CONTEXT_WINDOW", "32768")
    monkeypatch.setenv("CODING_AGENT_YES", "1")
    args = main.parse_args(["--base-url", "http://127.0.0.1:1/v1"])
    config = main.build_config(args)
    assert (config.model, config.context_window, config.yes, config.window_known) == ("qwen-coder", 32768, True, True)


def test_context_window_table():
    assert known_context_window("deepseek-chat") is None  # retired: refused before any request
    assert known_context_window("deepseek-flash") == known_context_window("deepseek-v4-flash") == 1_000_000
    assert known_context_window("some-local-model") is None
    config = main.build_config(main.parse_args(["--model", "mystery-model", "--base-url", "http://x/v1"]))
    assert config.context_window == 131_072 and not config.window_known


def test_keys_from_the_environment(monkeypatch):
    monkeypatch.setenv("DEEPSEEK_API_KEY", "ds-key")
    assert main.api_key(main.parse_args([])) == "ds-key"
    monkeypatch.delenv("DEEPSEEK_API_KEY")
    monkeypatch.setenv("OPENAI_API_KEY", "oa-key")
    assert main.api_key(main.parse_args([])) is None  # OPENAI_API_KEY only with --base-url
    assert main.api_key(main.parse_args(["--base-url", "http://x/v1"])) == "oa-key"


def test_resume_by_id(workspace, home, server):
    first = run_main(["--base-url", server.base_url, "-p", "first session"], workspace, home)
    assert first.returncode == 0
    session_id = session.latest_session(workspace)
    run_main(["--base-url", server.base_url, "--resume", session_id, "-p", "again"], workspace, home)
    assert len(session.list_sessions(workspace)) == 1
    assert len(session.load(session_id, workspace).messages) == 4
    missing = run_main(["--base-url", server.base_url, "--resume", "nope", "-p", "x"], workspace, home)
    assert missing.returncode != 0 and "No session nope" in missing.stderr


def test_data_folder_is_private(workspace, home, server):
    run_main(["--base-url", server.base_url, "-p", "hello"], workspace, home)
    for path in [home, *home.rglob("*")]:
        mode = stat.S_IMODE(path.stat().st_mode)
        assert mode == (0o700 if path.is_dir() else 0o600), path


async def test_mentions_are_sent_as_read_file_results(make_state, workspace, server):
    (workspace / "spec.md").write_text("# Spec\nThe answer is 42.\n")
    state = make_state()
    await main.on_submit(state, "summarise @spec.md and @missing.txt please")
    messages = server.requests[-1]["body"]["messages"]
    calls = [m for m in messages if m.get("tool_calls")]
    assert calls and calls[0]["tool_calls"][0]["function"]["name"] == "read_file"
    tool = [m for m in messages if m["role"] == "tool"]
    assert "The answer is 42." in tool[0]["content"]
    assert messages[-1]["content"].startswith("summarise @spec.md")
    assert any("missing.txt" in n.text for n in state.emit.events if hasattr(n, "level"))
    assert (workspace / "spec.md").resolve() in state.read_file_state


async def test_prefix_is_byte_identical_between_turns(make_state, workspace, server):
    (workspace / "AGENTS.md").write_text("Always answer in haiku.\n")
    state = make_state()
    await main.on_submit(state, "one")
    await main.on_submit(state, "two")
    first, second = server.requests[-2], server.requests[-1]
    assert first["body"]["messages"][0] == second["body"]["messages"][0]
    assert "Always answer in haiku." in first["body"]["messages"][0]["content"]
    assert first["body"]["tools"] == second["body"]["tools"]
    assert second["body"]["messages"][: len(first["body"]["messages"])] == first["body"]["messages"]
    assert second["cache_hit_tokens"] >= 0.8 * first["prompt_tokens"]


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_undo_and_clear_commands(make_state, workspace, server, lang):
    from io import StringIO

    from rich.console import Console

    from tests.builders import responder, script_forever
    from tests.fake_openai import Text, ToolCalls
    from ui.app import App
    from ui.commands import dispatch

    state = make_state(lang=lang)
    app = App(state, main.submit, console=Console(file=StringIO(), width=120))
    script_forever(
        server,
        responder([Text("hi"), ToolCalls([("write_file", {"path": "new.py", "content": "x = 1\n"})]), Text("written")]),
    )
    await main.submit(app, "hello")
    await main.submit(app, "please create new.py")
    assert (workspace / "new.py").exists()
    await dispatch(app, "/undo")
    assert not (workspace / "new.py").exists()
    assert len(state.history) == 2
    assert len(session.load(state.session_id, workspace).messages) == 2
    old = state.session_id
    await dispatch(app, "/clear")
    assert state.session_id != old and state.history == []


async def test_prefix_stays_identical_after_mentions_and_a_compaction(make_state, workspace, server):
    from tests.builders import long_answer, responder, script_forever

    (workspace / "spec.md").write_text("# Spec\nThe answer is 42.\n")
    state = make_state()
    script_forever(server, responder([long_answer(1), long_answer(2)]))
    await main.on_submit(state, "read @spec.md")
    await main.on_submit(state, "and then?")
    first, second = server.requests[-2]["body"], server.requests[-1]["body"]
    assert second["messages"][: len(first["messages"])] == first["messages"]
    import compact

    await compact.run_compact(state)
    await main.on_submit(state, "after the summary")
    await main.on_submit(state, "and again")
    first, second = server.requests[-2]["body"], server.requests[-1]["body"]
    assert second["messages"][: len(first["messages"])] == first["messages"]


def test_the_prompt_is_drawn_before_pydantic_ai_is_imported(workspace, home, server):
    """pydantic-ai is the slowest import (bench/startup.py: about 1.2 s with openai): the REPL's first
    paint must not wait for it; the warm-up imports it after. A check of --allowed-tools made without
    the flag imported it first, and start-up went from 0.31 s to 0.96 s."""
    code = (
        "import sys\n"
        "import main, ui.app\n"
        "async def first_paint(self, on_first_paint=None):\n"
        "    print('pydantic_ai imported:', 'pydantic_ai' in sys.modules)\n"
        "ui.app.App.run = first_paint\n"
        f"sys.exit(main.main(['--base-url', {server.base_url!r}]))\n"
    )
    env = {**os.environ, "CODING_AGENT_HOME": str(home), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=workspace, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "pydantic_ai imported: False" in done.stdout, done.stdout + done.stderr
