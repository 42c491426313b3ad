"""Pins in a real terminal: /pin text, /pin @path, /pin #N (as /rewind numbers the messages), /pin
and /context list them, /unpin N removes one; after /compact each is carried verbatim (the file read
again from disk) after the summary; --continue keeps them; no tool lets the model pin."""

from __future__ import annotations

import json

from tests.builders import is_compaction, long_answer, responder, script_forever
from tests.pty_kit import ask, leave, screen_of, shown, spawn, type_line, wait_prompt

RULE = "never edit the generated files under gen/"


def _sent(server) -> str:
    last = [r for r in server.requests if not is_compaction(r["body"])][-1]
    return json.dumps(last["body"]["messages"], ensure_ascii=False)


def test_pins_are_kept_through_compaction_and_continue(workspace, home, live_server):
    (workspace / "spec.md").write_text("the spec, first version\n")
    script_forever(live_server, responder([long_answer(1), long_answer(2)]))
    child = spawn(workspace, home, live_server)
    screen = screen_of(child)
    wait_prompt(child)
    for text, answer in (("the API must stay backward compatible", "Answer 1"), ("second task", "Answer 2")):
        ask(child, text, answer)
    for command, said in (
        (f"/pin {RULE}", "Pinned #1"),
        ("/pin @spec.md", "Pinned #2"),
        ("/pin #1", "Pinned #3"),
        ("/pin a pin to drop", "Pinned #4"),
    ):
        ask(child, command, said)
    ask(child, "/unpin 4", "Unpinned: a pin to drop")
    ask(child, "/pin", "3. the API must stay backward compatible")
    assert shown(screen, "2. @spec.md") and not shown(screen, "4. a pin")
    (workspace / "spec.md").write_text("the spec, second version\n")
    ask(child, "/compact", "Compacted:")
    ask(child, "/context", "Pinned by you")
    ask(child, "go on", "Echo: go on")
    leave(child, "/exit")

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
    leave(again, "/exit")
