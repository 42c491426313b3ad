"""A Claude Code user's memory files in a real terminal: their own `~/.claude/CLAUDE.md` (with an
import) in the instructions, a subfolder's AGENTS.md loaded when the model reads a file below it and
kept after /compact, and a subfolder's memory file that is a symlink leading out never read."""

from __future__ import annotations

import json
import os

from tests.fake_openai import Text
from tests.pty_kit import ask, leave, screen_of, shown, spawn, wait_prompt


def system_text(body: dict) -> str:
    return "\n".join(m["content"] for m in body["messages"] if m["role"] == "system")


def test_the_users_claude_md_is_in_the_instructions(workspace, home, live_server):
    claude = home.parent / "claude-home"  # CLAUDE_CONFIG_DIR, as the home fixture sets it
    claude.mkdir()
    (claude / "CLAUDE.md").write_text("Answer like a pirate.\n@style.md\n")
    (claude / "style.md").write_text("Indent with tabs.\n")
    child = spawn(workspace, home, live_server)
    screen = screen_of(child)
    wait_prompt(child)
    ask(child, "hello", "Echo: hello")
    system = system_text(live_server.requests[-1]["body"])
    assert "Answer like a pirate." in system and "Indent with tabs." in system
    ask(child, "/memory", "style.md", exact=True)
    assert shown(screen, f"{claude / 'CLAUDE.md'}")
    leave(child)


def test_a_subfolders_agents_md_comes_with_a_read_below_it_and_stays_after_compact(workspace, home, live_server):
    (workspace / "AGENTS.md").write_text("Top rule: write tests.\n")
    (workspace / "api").mkdir()
    (workspace / "api" / "AGENTS.md").write_text("Api rule: every handler returns JSON.\n")
    (workspace / "api" / "handlers.py").write_text("def get():\n    return {}\n")
    child = spawn(workspace, home, live_server)
    screen = screen_of(child)
    wait_prompt(child)
    # A long first answer: the summary is smaller than the history it replaces.
    live_server.script(Text("A long first answer. " + "Details of the plan, step by step. " * 400))
    ask(child, "hello", "A long first answer")
    first_system = system_text(live_server.requests[-1]["body"])
    assert "Top rule" in first_system and "Api rule" not in json.dumps(live_server.requests[-1]["body"])
    ask(child, "read api/handlers.py", "Done: read_file returned")
    assert shown(screen, "Loaded api/AGENTS.md")
    body = live_server.requests[-1]["body"]
    tool_answers = [m["content"] for m in body["messages"] if m["role"] == "tool"]
    assert any("Api rule: every handler returns JSON." in str(answer) for answer in tool_answers)
    assert system_text(body) == first_system  # the instructions keep their bytes (the prompt cache)
    ask(child, "/compact", "Compacted:")
    ask(child, "what now?", "Echo: what now")
    assert "Api rule: every handler returns JSON." in json.dumps(live_server.requests[-1]["body"])
    leave(child)


def test_a_subfolders_memory_file_that_links_out_is_not_read(workspace, home, live_server, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "AGENTS.md").write_text("LEAKED-INSTRUCTIONS\n")
    (workspace / "vendor").mkdir()
    os.symlink(outside / "AGENTS.md", workspace / "vendor" / "AGENTS.md")
    (workspace / "vendor" / "lib.py").write_text("x = 1\n")
    child = spawn(workspace, home, live_server)
    screen = screen_of(child)
    wait_prompt(child)
    ask(child, "read vendor/lib.py", "Done: read_file returned")
    assert "LEAKED-INSTRUCTIONS" not in json.dumps(live_server.requests[-1]["body"])
    assert not shown(screen, "Loaded vendor/AGENTS.md")
    leave(child)
