"""What each compaction dropped: one line after it in the REPL, whole in /compact show, the same
figures in the PostCompact hook's input and in -p's JSON. Through the real path: the REPL in a
pseudo-terminal read off a pyte screen, a real hook script, main.py -p in a subprocess."""

from __future__ import annotations

import json

import compact
from tests.agent.tools.test_hooks import hook, use_hooks  # noqa: F401 - fixture
from tests.builders import big_files, chat, responder, script_forever
from tests.fake_openai import Text, ToolCalls
from tests.pty_kit import ask, leave, screen_of, shown, spawn, type_line, wait_prompt
from tests.test_main import run_main


def _reads(names: list[str], answer: str) -> list:
    return [ToolCalls([("read_file", {"path": name})]) for name in names] + [Text(answer)]


def test_the_repl_says_what_was_dropped_and_compact_show_says_it_whole(workspace, home, live_server):
    big_files(workspace, 7, lines=60)
    names = [f"big{i}.txt" for i in range(7)]
    turns = [*_reads(names, "All seven read."), ToolCalls([("grep", {"pattern": "line 5"})]), Text("Grepped.")]
    script_forever(live_server, responder(turns))
    child = spawn(workspace, home, live_server)
    screen = screen_of(child)
    wait_prompt(child)
    ask(child, "read the seven files", "All seven read.")
    ask(child, "grep for line 5", "Grepped.")
    type_line(child, "/compact")
    child.expect("Compacted:")
    child.expect("dropped: ")
    wait_prompt(child)
    # Five files come back; the two read first do not. Three tools named at most on the line.
    assert shown(screen, "dropped: 8 tool result(s) (read_file 7, grep 1;")
    assert shown(screen, "2 file(s) not restored (big0.txt, big1.txt)")
    ask(child, "/compact show", "not restored")
    leave(child, "/exit")


async def test_the_post_compact_hook_gets_the_figures(make_state, server, home, workspace, hook):  # noqa: F811
    big_files(workspace, 2, lines=60)
    from tests.builders import long_answer

    script_forever(server, responder([*_reads(["big0.txt", "big1.txt"], "Read both."), long_answer(1), long_answer(2)]))
    state = make_state()
    await chat(state, ["read both files", "and say more", "and more"])
    use_hooks(state, home, {"PostCompact": [{"hooks": [{"command": hook()}]}]})
    result = await compact.run_compact(state)
    from agent.tools import hooks

    await hooks.settled(state)
    [post] = hook.seen()
    assert (post["tokens_before"], post["tokens_after"]) == (result.tokens_before, result.tokens_after)
    assert post["dropped"] == result.dropped and post["dropped"]["tool_results"] == {"read_file": 2}
    assert post["dropped"]["tool_result_tokens"] > 500 and post["dropped"]["files_not_restored"] == []


def test_print_json_reports_each_compaction(workspace, home, server):
    big_files(workspace, 6, lines=120)
    server.script(*_reads([f"big{i}.txt" for i in range(6)], "Reviewed all six."))
    result = run_main(
        [
            "--base-url",
            server.base_url,
            "--lang",
            "en",
            "-p",
            "review the six files",
            "--output-format",
            "json",
            "--context-window",
            "12000",
        ],
        workspace,
        home,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    record = json.loads(result.stdout)
    assert record["compactions"] >= 1 and len(record["compaction_reports"]) == record["compactions"]
    report = record["compaction_reports"][0]
    assert report["tokens_before"] > report["tokens_after"]
    assert sum(report["dropped"]["tool_results"].values()) >= 1 and report["dropped"]["tool_result_tokens"] > 0
    assert "dropped: " in result.stderr  # the line a person watching sees
