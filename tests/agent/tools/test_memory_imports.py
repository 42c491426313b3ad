"""`@path` imports in CLAUDE.md / AGENTS.md as Claude Code reads them, the user's ~/.claude/CLAUDE.md,
and what a project's file may not import: real files, and the system prompt the server receives."""

from __future__ import annotations

import os
import threading

from agent.events import EventLog, Listing
from agent.tools import memory_files
from agent.tools.memory_imports import MAX_HOPS, import_names
from agent.turn.loop import run_turn
from tests.fake_openai import Text
from ui.commands import dispatch
from ui.registry import CommandHost


def test_import_words_outside_code_only():
    text = (
        "See @README.md and @docs/git.md.\n"
        "Mail me at me@example.com; `@not/this.md` is code.\n"
        "```\n@nor/this.md\n```\n"
        "- @~/.claude/mine.md\n"
        "@first/word.md and @name\\ with\\ space.md\n"
    )
    assert import_names(text) == [
        "README.md",
        "docs/git.md.",
        "~/.claude/mine.md",
        "first/word.md",
        "name with space.md",
    ]


def test_imports_are_read_relative_to_their_file_and_listed_after_it(workspace, home):
    (workspace / "docs").mkdir()
    (workspace / "docs" / "style.md").write_text("Use four spaces. Also @rules/naming.md")
    (workspace / "docs" / "rules").mkdir()
    (workspace / "docs" / "rules" / "naming.md").write_text("Names in snake_case.")
    (workspace / "CLAUDE.md").write_text("Project rules; see @docs/style.md. Ask @maria about it.")
    found = memory_files.load(workspace)
    assert [(m.path.name, m.text, m.imported_by and m.imported_by.name) for m in found] == [
        ("CLAUDE.md", "Project rules; see @docs/style.md. Ask @maria about it.", None),
        ("style.md", "Use four spaces. Also @rules/naming.md", "CLAUDE.md"),
        ("naming.md", "Names in snake_case.", "style.md"),
    ]


def test_five_hops_deep_and_no_further(workspace, home):
    for n in range(MAX_HOPS + 2):
        (workspace / f"level{n}.md").write_text(f"level {n} @level{n + 1}.md")
    (workspace / "AGENTS.md").write_text("top @level0.md")
    memory = memory_files.scan(workspace)
    assert [m.path.name for m in memory.files] == ["AGENTS.md", *[f"level{n}.md" for n in range(MAX_HOPS)]]
    assert [(s.name, s.why) for s in memory.skipped] == [(f"level{MAX_HOPS}.md", "too_deep")]


def test_a_cycle_ends_where_it_closes(workspace, home):
    (workspace / "a.md").write_text("A @b.md")
    (workspace / "b.md").write_text("B @a.md @AGENTS.md")
    (workspace / "AGENTS.md").write_text("top @a.md")
    found = memory_files.load(workspace)
    assert [m.path.name for m in found] == ["AGENTS.md", "a.md", "b.md"]


def test_a_projects_file_imports_nothing_from_outside_the_workspace(workspace, home, tmp_path):
    secret = tmp_path / "id_rsa"
    secret.write_text("PRIVATE KEY")
    (workspace / "link.md").symlink_to(secret)
    os.mkfifo(workspace / "pipe.md")
    (workspace / "AGENTS.md").write_text(f"@../id_rsa @{secret} @link.md @pipe.md @~/.ssh/config")
    memory = memory_files.scan(workspace)
    assert [m.path.name for m in memory.files] == ["AGENTS.md"]
    assert "PRIVATE KEY" not in memory_files.instructions(workspace, "en")
    assert {(s.name, s.why) for s in memory.skipped} == {
        ("../id_rsa", "outside"),
        (str(secret), "outside"),
        ("link.md", "outside"),
        ("pipe.md", "not_regular"),
    }


def test_a_fifo_import_never_blocks(workspace, home):
    os.mkfifo(workspace / "pipe.md")
    (workspace / "AGENTS.md").write_text("@pipe.md")
    done = threading.Event()
    worker = threading.Thread(target=lambda: (memory_files.scan(workspace), done.set()), daemon=True)
    worker.start()
    assert done.wait(10), "reading the memory files blocked on a FIFO"


def test_the_users_claude_md_and_its_imports(workspace, home, tmp_path):
    claude = tmp_path / "claude-home"  # CLAUDE_CONFIG_DIR (tests/conftest.py), as Claude Code reads it
    claude.mkdir()
    (claude / "style.md").write_text("Answer tersely.")
    (claude / "CLAUDE.md").write_text("My rules @style.md and the project's @" + str(workspace / "team.md"))
    (workspace / "team.md").write_text("Team rules; and @" + str(claude / "secret.md"))
    (claude / "secret.md").write_text("not for the project to pull in")
    home.mkdir()
    (home / "AGENTS.md").write_text("Ours too.")
    memory = memory_files.scan(workspace)
    assert [(m.path.name, m.scope) for m in memory.files] == [
        ("CLAUDE.md", "user"),
        ("style.md", "user"),
        ("team.md", "project"),
        ("AGENTS.md", "user"),
    ]
    # team.md is the project's text whoever imports it: it may not reach into the user's folder.
    assert [(s.importer.name, s.why) for s in memory.skipped] == [("team.md", "outside")]


async def test_the_server_gets_the_imported_text(make_state, server, workspace):
    (workspace / "docs").mkdir()
    (workspace / "docs" / "testing.md").write_text("Run pytest -x before you finish.")
    (workspace / "CLAUDE.md").write_text("Read @docs/testing.md")
    server.script(Text("ok"))
    await run_turn(make_state(), "hello")
    system = server.requests[-1]["body"]["messages"][0]["content"]
    assert "Run pytest -x before you finish." in system
    assert f"# {workspace / 'docs' / 'testing.md'} (@-imported by {workspace / 'CLAUDE.md'})" in system


async def test_memory_lists_imports_and_what_was_not_read(state, workspace, home):
    (workspace / "notes.md").write_text("notes")
    (workspace / "AGENTS.md").write_text("@notes.md @../outside.md")
    (workspace.parent / "outside.md").write_text("x")
    state.emit = log = EventLog()
    await dispatch(CommandHost(state), "/memory")
    [listing] = log.of(Listing)
    text = "\n".join(listing.lines)
    assert f"{workspace / 'notes.md'} · 1 tokens · the project's · imported by {workspace / 'AGENTS.md'}" in text
    assert "Imports not read:" in text
    assert f"@../outside.md in {workspace / 'AGENTS.md'}: outside the workspace" in text
