"""Issue 24, part 6: memory files (AGENTS.md, CLAUDE.md) from the repository's root down, and the
user's, in every request's instructions; /memory and /init."""

from __future__ import annotations

import json

import compact
from agent.events import EventLog, Listing
from agent.tools import memory_files
from agent.turn.loop import run_turn
from tests.builders import chat, long_answer, responder, script_forever
from tests.fake_openai import Text
from ui.commands import dispatch
from ui.registry import CommandHost


def system_prompt_of(server) -> str:
    return server.requests[-1]["body"]["messages"][0]["content"]


def test_root_down_to_cwd_with_claude_md_where_there_is_no_agents_md(tmp_path, home, monkeypatch):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "AGENTS.md").write_text("root rules")
    (repo / "CLAUDE.md").write_text("not read: the folder has an AGENTS.md")
    (repo / "pkg").mkdir()
    (repo / "pkg" / "CLAUDE.md").write_text("package rules")
    (repo / "pkg" / "deep").mkdir()
    home.mkdir()
    (home / "AGENTS.md").write_text("my own rules")
    found = memory_files.load(repo / "pkg" / "deep")
    assert [(m.path, m.text, m.scope) for m in found] == [
        (home / "AGENTS.md", "my own rules", "user"),
        (repo / "AGENTS.md", "root rules", "project"),
        (repo / "pkg" / "CLAUDE.md", "package rules", "project"),
    ]


def test_a_symlink_out_of_the_repository_is_not_followed_and_size_is_capped(tmp_path, home):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    secret = tmp_path / "secret.txt"
    secret.write_text("SSH KEY")
    (repo / "AGENTS.md").symlink_to(secret)
    assert memory_files.load(repo) == []
    (repo / "AGENTS.md").unlink()
    (repo / "AGENTS.md").write_text("x" * (memory_files.MEMORY_LIMIT + 500))
    [memory] = memory_files.load(repo)
    assert len(memory.text) == memory_files.MEMORY_LIMIT


async def test_the_memory_stays_in_the_instructions_after_a_compaction(make_state, server, workspace):
    (workspace / "AGENTS.md").write_text("Always run the linter before you finish.")
    script_forever(server, responder([long_answer(n) for n in range(4)]))
    state = make_state()
    await chat(state, ["one", "two", "three"])
    assert "Always run the linter" in system_prompt_of(server)
    await compact.run_compact(state)
    await run_turn(state, "next")
    assert "Always run the linter" in system_prompt_of(server)


async def test_memory_lists_the_files_with_their_tokens(state, workspace, home):
    (workspace / "AGENTS.md").write_text("Use tabs. " * 20)
    state.emit = log = EventLog()
    await dispatch(CommandHost(state), "/memory")
    [listing] = log.of(Listing)
    assert str(workspace / "AGENTS.md") in listing.lines[1] and "tokens" in listing.lines[1]


async def test_init_asks_the_model_for_a_starter_agents_md(make_state, server, workspace):
    from io import StringIO

    from rich.console import Console

    import main
    from ui.app import App

    state = make_state()
    app = App(state, main.submit, console=Console(file=StringIO()))
    server.script(Text("Wrote it."))
    await main.submit(app, "/init")  # typed at the prompt
    assert "AGENTS.md" in json.dumps(server.requests[-1]["body"]["messages"][-1])
