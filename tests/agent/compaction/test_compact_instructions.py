"""Standing compaction instructions: a memory file's `## Compact Instructions` (or `## 压缩说明`)
section and the settings key `compactInstructions` reach every compaction prompt, after the
built-in text and before what /compact itself was given. Checked on the request the emulator got."""

from __future__ import annotations

import json

from agent.tools.memory_files import compact_instructions
from tests.builders import is_compaction, long_answer, responder, script_forever
from tests.pty_kit import ask, leave, spawn, wait_prompt


def test_the_section_is_found_in_agents_md_and_claude_md_in_either_language(workspace, home):
    (workspace / ".git").mkdir()
    (workspace / "AGENTS.md").write_text(
        "# Rules\nUse tabs.\n\n## Compact Instructions\nKeep every SQL query.\n\n## Style\nNot this one.\n"
    )
    sub = workspace / "pkg"
    sub.mkdir()
    (sub / "CLAUDE.md").write_text("## 压缩说明\n保留所有接口名。\n")
    text = compact_instructions(sub)
    assert text == "Keep every SQL query.\n\n保留所有接口名。"
    (workspace / "AGENTS.md").write_text("# Rules\nUse tabs.\n")
    assert compact_instructions(workspace) == ""


def test_every_compaction_prompt_has_them_in_order(workspace, home, live_server):
    (workspace / "AGENTS.md").write_text("Be brief.\n\n## Compact Instructions\nKeep the migration ids.\n")
    home.mkdir(exist_ok=True)
    (home / "settings.json").write_text(json.dumps({"compactInstructions": "Name every test that failed."}))
    script_forever(live_server, responder([long_answer(1), long_answer(2)]))
    child = spawn(workspace, home, live_server)
    wait_prompt(child)
    for text, answer in (("first", "Answer 1"), ("second", "Answer 2")):
        ask(child, text, answer)
    ask(child, "/compact focus on the parser", "Compacted:")
    leave(child, "/exit")

    [request] = [r["body"] for r in live_server.requests if is_compaction(r["body"])]
    prompt = request["messages"][-1]["content"]
    built_in = prompt.index("<summary>")
    memory, settings, own = (
        prompt.index(s) for s in ("Keep the migration ids.", "Name every test that failed.", "focus on the parser")
    )
    assert built_in < memory < settings < own
