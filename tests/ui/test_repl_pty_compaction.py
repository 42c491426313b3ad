"""Issue 13's compaction holes as a user meets them: the REPL in a real pseudo-terminal."""

from __future__ import annotations

import session
from agent.compaction.rebuild import PLACEHOLDER
from tests.builders import is_compaction, long_answer, responder, script_forever
from tests.fake_openai import Text, ToolCalls
from tests.pty_kit import ask, leave, spawn, spread, type_line, wait_prompt

CLEARED = PLACEHOLDER.split(":")[0]


def _write(workspace, name: str, chars: int) -> None:
    line = f"a line of {name} with some words to fill the context window\n"
    (workspace / name).write_text(line * (chars // len(line)))


def _agent_requests(server, start: int = 0) -> list[list[dict]]:
    return [r["body"]["messages"] for r in server.requests[start:] if not is_compaction(r["body"])]


def _exit(child) -> None:
    leave(child, "/exit")


def test_three_big_reads_in_one_message_all_reach_the_model(workspace, home, live_server):
    for i in range(4):
        _write(workspace, f"old{i}.txt", 25_000)
    for i in range(3):
        _write(workspace, f"new{i}.txt", 25_000)
    child = spawn(workspace, home, live_server, "--context-window", "64000", "--compact-at", "40000")
    wait_prompt(child)
    for i in range(4):
        ask(child, f"read old{i}.txt", "Done: read_file")
    script_forever(
        live_server,
        responder([ToolCalls([("read_file", {"path": f"new{i}.txt"}) for i in range(3)]), Text("All three reviewed.")]),
    )
    start = len(live_server.requests)

    type_line(child, "review new0.txt, new1.txt and new2.txt")
    child.expect("Context filled up during this turn")
    child.expect(r"Cleared old tool results|Compacted:")
    child.expect("All three reviewed.")
    wait_prompt(child)
    _exit(child)

    results = [m["content"] for m in _agent_requests(live_server, start)[-1] if m["role"] == "tool"]
    for i in range(3):
        assert any(f"a line of new{i}.txt" in r for r in results), f"new{i}.txt was cleared before it was seen"
    assert sum(CLEARED in r for r in results) == 4


def test_a_user_message_outlives_two_compactions(workspace, home, live_server):
    precious = "never touch the vendored folder"
    script_forever(live_server, responder([long_answer(1)], summary=f"<summary>1. Rule: {precious}\n6. ok</summary>"))
    child = spawn(workspace, home, live_server)
    wait_prompt(child)
    ask(child, precious, "Answer 1")
    ask(child, "/compact", "Compacted:")
    # The second summary drops the message (the model cut quoted text).
    script_forever(live_server, responder([long_answer(2)], summary="<summary>1. Other work.\n6. ok</summary>"))
    ask(child, "now the second task", "Answer 2")
    ask(child, "/compact", "Compacted:")
    ask(child, "what were my rules?", "Echo: what were my rules")
    _exit(child)

    summary_message = "\n".join(str(m.get("content")) for m in _agent_requests(live_server)[-1][1:])
    assert "Other work." in summary_message and precious in summary_message


def test_a_message_larger_than_the_window_is_not_sent_unasked(workspace, home, live_server):
    paste = "".join(f"record {n}: lorem ipsum dolor sit amet, consectetur adipiscing\n" for n in range(450))
    assert len(paste) > 28_000
    child = spawn(workspace, home, live_server, "--context-window", "8000")
    wait_prompt(child)
    requests = len(live_server.requests)

    child.send("\x1b[200~" + paste + "\x1b[201~")  # a bracketed paste, as a terminal sends one
    child.send("\r")
    child.expect(spread("it does not fit under the auto-compact threshold"))
    child.expect(r"Attach it as a file")
    child.send("n\r")
    child.expect("Not sent")
    wait_prompt(child)
    assert len(live_server.requests) == requests

    child.send("\x1b[200~" + paste + "\x1b[201~")
    child.send("\r")
    child.expect(r"Attach it as a file")
    child.send("y\r")
    child.expect("Attached as")
    child.expect("Echo: My message was too long")
    wait_prompt(child)
    _exit(child)

    sent = _agent_requests(live_server, requests)
    assert len(sent) == 1 and not any(is_compaction(r["body"]) for r in live_server.requests[requests:])
    [attached] = list((session.archive_dir(workspace) / "attachments").iterdir())
    assert str(attached) in sent[0][-1]["content"] and len(sent[0][-1]["content"]) < 1_000
    assert attached.read_text() == paste.strip()  # as typed (the REPL strips the ends)


def test_compact_undo_keeps_the_turns_made_after_the_compaction(workspace, home, live_server):
    script_forever(live_server, responder([long_answer(1), long_answer(2)]))
    child = spawn(workspace, home, live_server)
    wait_prompt(child)
    for text, answer in (("first", "Answer 1"), ("second", "Answer 2")):
        ask(child, text, answer)
    ask(child, "/compact", "Compacted:")
    for text in ("third, after it", "fourth, after it"):
        ask(child, text, f"Echo: {text}")

    type_line(child, "/compact undo")
    child.expect(r"The 2 turn\(s\) made since that compaction will be kept")
    child.expect("newest archive")
    child.send("y\r")
    child.expect("Restored the history from")
    wait_prompt(child)
    ask(child, "and now?", "Echo: and now")
    _exit(child)

    sent = [m["content"] for m in _agent_requests(live_server)[-1] if m["role"] == "user"]
    assert sent[:2] == ["first", "second"] and sent[-3:] == ["third, after it", "fourth, after it", "and now?"]
    messages = session.load(session.latest_session(workspace), workspace).messages
    prompts = [p.content for m in messages if m.kind == "request" for p in m.parts if p.part_kind == "user-prompt"]
    assert prompts == ["first", "second", "third, after it", "fourth, after it", "and now?"]
