"""/context: what fills the window, by kind, as a bar and a table (en and zh)."""

from __future__ import annotations

import io

from rich.console import Console

import compact
from agent import compaction
from tests.builders import big_files, chat, responder, script_forever
from ui.context_view import breakdown, render, scaled


def _text(state) -> str:
    out = io.StringIO()
    console = Console(file=out, width=120, color_system=None)
    for renderable in render(state):
        console.print(renderable)
    return out.getvalue()


async def test_breakdown_by_kind_and_tool(make_state, workspace, server):
    state = make_state(context_window=32_000)
    big_files(workspace, 3, lines=80)
    await chat(state, ["read big0.txt", "read big1.txt", "run echo hello", "just chatting"])
    rows = {(kind, name): n for kind, name, n in breakdown(state)}
    assert rows[("tool", "read_file")] > rows[("tool", "run_command")] > 0
    assert rows[("fixed", "")] > 0 and rows[("user", "")] > 0 and rows[("assistant", "")] > 0
    assert ("summary", "") not in rows and ("restored", "") not in rows
    # The parts add up to about what the provider counted for the next request.
    total = sum(rows.values())
    assert abs(total - compaction.context_tokens(state)) <= 0.05 * total
    text = _text(state)
    assert "Tool results: read_file" in text and "Instructions + tools" in text and "Free" in text
    # Shown scaled to the gauge's figure (the server's count): one total on the screen.
    gauge = compaction.context_tokens(state)
    shown = {(kind, name): n for kind, name, n in scaled(breakdown(state), gauge)}
    assert sum(shown.values()) == gauge and f"Context: {gauge:,} /" in text
    assert f"{shown[('tool', 'read_file')]:,}" in text


def test_scaled_rows_keep_their_order_and_sum_to_the_total():
    rows = [("fixed", "", 1000), ("user", "", 240), ("tool", "read_file", 3000)]
    shown = scaled(rows, 5057)
    assert sum(n for *_, n in shown) == 5057
    assert shown[2][2] > shown[0][2] > shown[1][2] and [r[:2] for r in shown] == [r[:2] for r in rows]
    assert scaled(rows, 0) == rows


async def test_after_a_compaction_summary_and_restored_files(make_state, workspace, server):
    state = make_state(context_window=32_000, lang="zh")
    # Enough read that the rebuilt history (summary plus the files that fit) is smaller than before.
    big_files(workspace, 5, lines=80)
    await chat(state, [f"read big{i}.txt" for i in range(5)] + ["now summarise"])
    script_forever(server, responder([]))
    await compact.run_compact(state)
    kinds = {kind for kind, _name, _n in breakdown(state)}
    assert {"summary", "restored"} <= kinds and "tool" not in kinds
    text = _text(state)
    assert "摘要" in text and "恢复的文件" in text and "空闲" in text


def test_context_is_a_registered_command():
    from ui.commands import COMMANDS

    assert COMMANDS["context"].describe("zh").startswith("上下文")
