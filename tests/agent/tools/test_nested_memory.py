"""A subfolder's AGENTS.md / CLAUDE.md, loaded when the model reads a file below it (as Claude Code
does), sent once, and kept by a compaction (summary or cleared results) and across --continue: real
files, the emulator's requests, the session file."""

from __future__ import annotations

import json
import os

import compact
import session
from agent.events import Notice
from agent.tools import nested_memory
from agent.turn.loop import run_turn
from tests.builders import chat, long_answer, responder, script_forever
from tests.fake_openai import Text, ToolCalls

RULE = "In pkg, every function has a docstring."


def _project(workspace):
    (workspace / "AGENTS.md").write_text("Top rules.")
    pkg = workspace / "pkg"
    (pkg / "deep").mkdir(parents=True)
    (pkg / "CLAUDE.md").write_text(RULE + " See @style.md")
    (pkg / "style.md").write_text("Tabs in pkg.")
    (pkg / "deep" / "a.py").write_text("def a():\n    pass\n")
    (pkg / "deep" / "b.py").write_text("def b():\n    pass\n")
    (workspace / "top.py").write_text("x = 1\n")


def _sent(server) -> str:
    return json.dumps(server.requests[-1]["body"]["messages"], ensure_ascii=False)


async def test_a_read_below_a_folder_brings_its_memory_once(make_state, server, workspace):
    _project(workspace)
    state = make_state()
    server.script(ToolCalls([("read_file", {"path": "top.py"})]), Text("top read"))
    await run_turn(state, "read the top")
    assert RULE not in _sent(server) and "Top rules." in _sent(server)  # the workspace's own: in the instructions
    server.script(ToolCalls([("read_file", {"path": "pkg/deep/a.py"})]), Text("a read"))
    await run_turn(state, "read a")
    sent = _sent(server)
    assert sent.count(RULE) == 1 and "Tabs in pkg." in sent
    assert '<memory-file path=\\"pkg/CLAUDE.md\\">' in sent
    assert [n.text for n in state.emit.of(Notice) if "Loaded" in n.text] == [
        "Loaded pkg/CLAUDE.md: the instructions for the files in its folder",
        "Loaded pkg/style.md: the instructions for the files in its folder",
    ]
    server.script(ToolCalls([("read_file", {"path": "pkg/deep/b.py"})]), Text("b read"))
    await run_turn(state, "read b")
    assert _sent(server).count(RULE) == 1  # loaded already: the history holds it
    # The instructions never changed: every request's system prompt is the same bytes.
    systems = {r["body"]["messages"][0]["content"] for r in server.requests}
    assert len(systems) == 1


async def test_two_reads_side_by_side_load_it_once(make_state, server, workspace):
    _project(workspace)
    state = make_state()
    server.script(
        ToolCalls([("read_file", {"path": "pkg/deep/a.py"}), ("read_file", {"path": "pkg/deep/b.py"})]),
        Text("both read"),
    )
    await run_turn(state, "read both")
    assert _sent(server).count(RULE) == 1


async def test_kept_after_a_summary(make_state, server, workspace):
    _project(workspace)
    state = make_state()
    script_forever(
        server,
        responder(
            [ToolCalls([("read_file", {"path": "pkg/deep/a.py"})]), Text("read"), *[long_answer(n) for n in range(4)]]
        ),
    )
    await chat(state, ["read a", "one", "two", "three"])
    assert nested_memory.present(state.history) == {"pkg/CLAUDE.md", "pkg/style.md"}
    result = await compact.run_compact(state)
    assert result.tier == "summary"
    assert nested_memory.present(state.history) == {"pkg/CLAUDE.md", "pkg/style.md"}
    await run_turn(state, "next")
    assert _sent(server).count(RULE) == 1
    # Compacted again: still once, and the same bytes (the provider's cache serves them).
    await compact.run_compact(state)
    await run_turn(state, "after")
    assert _sent(server).count(RULE) == 1


async def test_kept_when_the_cheap_tier_clears_the_read(make_state, server, workspace):
    from tests.builders import big_files

    _project(workspace)
    big_files(workspace, 5, lines=120)
    state = make_state(context_window=16_000)
    await chat(state, ["read pkg/deep/a.py", *[f"read big{i}.txt" for i in range(5)]])
    result = await compact.run_compact(state, trigger="auto")
    assert result.tier == "cheap"
    returns = [
        p.content
        for m in state.history
        if m.kind == "request"
        for p in m.parts
        if p.part_kind == "tool-return" and isinstance(p.content, str)
    ]
    assert "[Old tool result cleared" in returns[0] and RULE in returns[0]
    assert nested_memory.present(state.history) == {"pkg/CLAUDE.md", "pkg/style.md"}


async def test_kept_across_continue(make_state, server, workspace):
    _project(workspace)
    state = make_state()
    server.script(ToolCalls([("read_file", {"path": "pkg/deep/a.py"})]), Text("read"))
    await run_turn(state, "read a")
    messages = session.load(state.session_id, workspace).messages
    assert nested_memory.present(messages) == {"pkg/CLAUDE.md", "pkg/style.md"}


async def test_a_subfolders_file_that_leads_out_or_blocks_is_not_read(make_state, server, workspace, tmp_path):
    secret = tmp_path / "secret.md"
    secret.write_text("SECRET")
    for name, make in (("out", lambda p: p.symlink_to(secret)), ("fifo", os.mkfifo)):
        (workspace / name).mkdir()
        make(workspace / name / "AGENTS.md")
        (workspace / name / "f.txt").write_text("file")
    state = make_state()
    server.script(
        ToolCalls([("read_file", {"path": "out/f.txt"}), ("read_file", {"path": "fifo/f.txt"})]), Text("read")
    )
    await run_turn(state, "read them")
    assert "SECRET" not in _sent(server) and "memory-file" not in _sent(server)
