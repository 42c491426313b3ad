"""Issue 20, cases 3 and 4: @-mentions count in the size check of a message (a file shown as
attached reaches the model, one that cannot fit is refused up front), and one read_file result
cannot fill the window."""

from __future__ import annotations

import json

from agent.events import Notice, ToolResult
from agent.tokens import count as tokens
from main import on_submit
from tests.builders import is_compaction
from tests.fake_openai import Text, ToolCalls
from tests.test_main import run_main

WINDOW = 16_000


def _code(name: str, lines: int) -> str:
    return "".join(
        f"def {name}_{n}(value):  # step {n} of the {name} module\n    return value + {n}\n" for n in range(lines)
    )


def _p(server, workspace, home, prompt: str, *more: str):
    return run_main(
        ["--base-url", server.base_url, "--context-window", str(WINDOW), *more, "-p", prompt],
        workspace,
        home,
        timeout=120,
    )


def test_attached_files_reach_the_model(workspace, home, server):
    """Case 3 through -p --continue: a read, a 3,000-token answer, then a message mentioning two files."""
    server.max_context = WINDOW
    (workspace / "notes.txt").write_text(_code("notes", 120))
    (workspace / "heapq.py").write_text(_code("heap", 200))
    (workspace / "pkg").mkdir()
    (workspace / "pkg" / "decoder.py").write_text(_code("decode", 200))
    server.script(
        ToolCalls([("read_file", {"path": "notes.txt"})]),
        Text("Answer: " + "a detailed explanation of the change " * 500),
    )
    first = _p(server, workspace, home, "read notes.txt and explain it")
    assert first.returncode == 0, first.stderr
    second = _p(server, workspace, home, "what do @heapq.py and @pkg/decoder.py do?", "--continue")
    assert second.returncode == 0, second.stderr
    # Each is over the read cap at 16k (a share of the window), but the user asked for them and they
    # fit once what came before is compacted: both went whole.
    assert "Attached @heapq.py, @pkg/decoder.py" in second.stderr
    last = json.dumps([r for r in server.requests if not is_compaction(r["body"])][-1]["body"]["messages"])
    assert "def heap_199(value)" in last and "def decode_199(value)" in last
    assert all(r["prompt_tokens"] <= WINDOW for r in server.requests if r.get("billed"))


def test_an_attachment_that_cannot_fit_is_refused_up_front(workspace, home, server):
    for i in range(6):
        (workspace / f"m{i}.py").write_text(_code(f"m{i}", 300))
    before = len(server.requests)
    mentions = " ".join(f"@m{i}.py" for i in range(6))
    result = _p(server, workspace, home, f"compare {mentions}")
    assert result.returncode == 1
    assert "Not sent: the mentioned files" in result.stderr and "Attached" not in result.stderr
    assert len(server.requests) == before  # nothing was sent


async def test_one_read_cannot_fill_the_window(make_state, workspace, server):
    """Case 4: read_file of a 40 kB Chinese file at 16k."""
    from agent.tools.read_cap import read_token_cap

    server.max_context = WINDOW
    (workspace / "zh.txt").write_text("这是一个很长的中文句子，用来填满上下文窗口。\n" * 1_800)
    assert (workspace / "zh.txt").stat().st_size > 40_000
    state = make_state(context_window=WINDOW)
    server.script(ToolCalls([("read_file", {"path": "zh.txt"})]), Text("It is Chinese."))
    await on_submit(state, "read zh.txt")
    result = state.emit.of(ToolResult)[0].content
    assert tokens.count_text(result) <= read_token_cap(WINDOW) + 50
    assert "continue with offset=" in result
    assert [n.text for n in state.emit.of(Notice) if n.level == "error"] == []
    assert state.history[-1].parts[-1].content == "It is Chinese."


async def test_a_file_attached_in_parts_says_which_lines_went(make_state, workspace, server):
    """Issue 21, finding 3: a mention over the read cap is attached as its first part; the notice
    names the lines sent (it said "Attached @big.py" as if the model had the whole file)."""
    (workspace / "big.py").write_text(_code("big", 800))
    (workspace / "small.py").write_text(_code("small", 5))
    state = make_state(context_window=8_000, lang="zh")
    server.script(Text("ok"))
    await on_submit(state, "看看 @big.py 和 @small.py")
    attached = [n.text for n in state.emit.of(Notice) if n.text.startswith("已附上")]
    assert len(attached) == 1 and "@big.py（第 1–" in attached[0] and "@small.py（" not in attached[0], attached
    last = int(attached[0].split("（第 1–")[1].split(" ")[0].replace(",", ""))
    sent = json.dumps(server.requests[-1]["body"]["messages"], ensure_ascii=False)
    assert f"continue with offset={last + 1}]" in sent and "def small_4(value)" in sent
