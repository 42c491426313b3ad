"""The task survives a compaction, checked mechanically before the swap: the newest request, the
open items of the task list and the files edited since the previous compaction are held by the
rebuilt history, added after the summary when it left them out; a summary that is empty, cut off at
max_tokens or without section 6 is asked for once more, then the compaction fails and changes
nothing. Through the REPL in a pseudo-terminal against the emulator."""

from __future__ import annotations

from pydantic_ai.messages import ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart, UserPromptPart

import session
from agent.compaction.rebuild import task_gaps, task_section
from tests.builders import is_compaction, long_answer, responder, script_forever
from tests.fake_openai import Text
from tests.pty_kit import ask, leave, spawn, type_line, wait_prompt

OLD, NEW = "rename the parser module to reader", "now fix the off-by-one in lex.py line 40"


def _two_tasks(child) -> None:
    for text, answer in ((OLD, "Answer 1"), (NEW, "Answer 2")):
        ask(child, text, answer)


def _sent_after(server) -> str:
    last = [r for r in server.requests if not is_compaction(r["body"])][-1]
    return "\n".join(str(m.get("content")) for m in last["body"]["messages"])


def test_a_summary_of_the_old_task_gets_the_newest_request_after_it(workspace, home, live_server):
    stale = f"<summary>1. The user asked to {OLD}.\n6. Current work: renaming the parser.</summary>"
    script_forever(live_server, responder([long_answer(1), long_answer(2)], summary=stale))
    child = spawn(workspace, home, live_server)
    wait_prompt(child)
    _two_tasks(child)
    ask(child, "/compact", "Compacted:")
    ask(child, "go on", "Echo: go on")
    leave(child, "/exit")
    sent = _sent_after(live_server)
    assert sent.index("Current work: renaming the parser.") < sent.index("Where the task stands") < sent.rindex(NEW)


def test_an_empty_summary_is_asked_again_then_fails_and_changes_nothing(workspace, home, live_server):
    script_forever(live_server, responder([long_answer(1), long_answer(2)], summary="<summary> </summary>"))
    child = spawn(workspace, home, live_server)
    wait_prompt(child)
    _two_tasks(child)
    path = session.session_file(child.session_id, workspace)
    before, asked = path.read_bytes(), len(live_server.requests)
    type_line(child, "/compact")
    child.expect("Compaction failed")
    child.expect("empty summary")
    wait_prompt(child)
    assert path.read_bytes() == before
    assert [is_compaction(r["body"]) for r in live_server.requests[asked:]] == [True, True]
    leave(child, "/exit")


def test_a_summary_cut_mid_sentence_is_asked_again_and_the_whole_one_kept(workspace, home, live_server):
    replies = iter(
        [
            Text("<analysis>x</analysis><summary>1. The user asked to rename the par", finish="length"),
            Text(f"<summary>1. Two tasks.\n6. Current work: {NEW}</summary>"),
        ]
    )

    def reply(body: dict):
        if is_compaction(body):
            return next(replies)
        return turns.pop(0) if turns else Text("Echo: fine")

    turns = [long_answer(1), long_answer(2)]
    script_forever(live_server, reply)
    child = spawn(workspace, home, live_server)
    wait_prompt(child)
    _two_tasks(child)
    ask(child, "/compact", "Compacted:")
    leave(child, "/exit")
    asks = [r["body"]["messages"][-1]["content"] for r in live_server.requests if is_compaction(r["body"])]
    assert len(asks) == 2 and "briefly enough to finish" in asks[1] and "briefly" not in asks[0]
    messages = session.load(session.latest_session(workspace), workspace).messages
    text = "\n".join(str(p.content) for m in messages for p in m.parts)
    assert "Current work: " + NEW in text and "rename the par\n" not in text and "Where the task stands" not in text


def test_open_items_and_edited_files_the_summary_left_out_are_added():
    history = [
        ModelRequest(parts=[UserPromptPart(content="make the tests pass")]),
        ModelResponse(parts=[ToolCallPart("edit_file", {"path": "src/a.py"}, tool_call_id="e1")]),
        ModelRequest(parts=[ToolReturnPart("edit_file", "Edited src/a.py", tool_call_id="e1")]),
    ]
    gaps = task_gaps(
        history, "1. Tests. 6. Current work: make the tests pass", [], ["fix b.py", "check the tests"], ["src/a.py"]
    )
    assert (gaps.request, gaps.todos, gaps.files) == ("", ["fix b.py", "check the tests"], ["src/a.py"])
    assert not task_gaps(history, "make the tests pass; src/a.py; fix b.py", [], ["fix b.py"], ["src/a.py"])
    zh = task_section(gaps, "zh")
    assert zh.startswith("## 任务进展") and "- fix b.py" in zh and "- src/a.py" in zh
