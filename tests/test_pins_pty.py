"""Pins in a real terminal: /pin text, /pin @path, /pin #N (as /rewind numbers the messages), /pin
and /context list them, /unpin N removes one; after /compact each is carried verbatim (the file read
again from disk) after the summary; --continue keeps them; no tool lets the model pin."""

from __future__ import annotations

import json

import pexpect

from tests.builders import is_compaction, long_answer, responder, script_forever
from tests.test_claude_habits_pty import screen_of, shown
from tests.test_repl_pty import live_server, spawn, type_line, wait_prompt  # noqa: F401 - fixture

RULE = "never edit the generated files under gen/"


def _sent(server) -> str:
    last = [r for r in server.requests if not is_compaction(r["body"])][-1]
    return json.dumps(last["body"]["messages"], ensure_ascii=False)


def test_pins_are_kept_through_compaction_and_continue(workspace, home, live_server):  # noqa: F811
    (workspace / "spec.md").write_text("the spec, first version\n")
    script_forever(live_server, responder([long_answer(1), long_answer(2)]))
    child = spawn(workspace, home, live_server)
    screen = screen_of(child)
    wait_prompt(child)
    for text, answer in (("the API must stay backward compatible", "Answer 1"), ("second task", "Answer 2")):
        type_line(child, text)
        child.expect(answer)
        wait_prompt(child)
    for command, said in ((f"/pin {RULE}", "Pinned #1"), ("/pin @spec.md", "Pinned #2"), ("/pin #1", "Pinned #3"),
                          ("/pin a pin to drop", "Pinned #4")):
        type_line(child, command)
        child.expect(said)
        wait_prompt(child)
    type_line(child, "/unpin 4")
    child.expect("Unpinned: a pin to drop")
    wait_prompt(child)
    type_line(child, "/pin")
    child.expect("3. the API must stay backward compatible")
    wait_prompt(child)
    assert shown(screen, "2. @spec.md") and not shown(screen, "4. a pin")
    (workspace / "spec.md").write_text("the spec, second version\n")
    type_line(child, "/compact")
    child.expect("Compacted:")
    wait_prompt(child)
    type_line(child, "/context")
    child.expect("Pinned by you")
    wait_prompt(child)
    type_line(child, "go on")
    child.expect("Echo: go on")
    wait_prompt(child)
    type_line(child, "/exit")
    child.expect(pexpect.EOF)

    sent = _sent(live_server)
    assert RULE in sent and "the spec, second version" in sent and "the spec, first version" not in sent
    assert "a pin to drop" not in sent.split("Pinned")[-1]
    assert sent.index("The user pinned these") > sent.index("summary")  # after the summary
    tools = [tool["function"]["name"] for tool in live_server.requests[-1]["body"].get("tools", [])]
    assert tools and not any("pin" in name for name in tools)

    again = spawn(workspace, home, live_server, "--continue")
    wait_prompt(again)
    type_line(again, "/pin")
    again.expect("1. " + RULE)
    again.expect("2. @spec.md")
    wait_prompt(again)
    type_line(again, "/exit")
    again.expect(pexpect.EOF)
