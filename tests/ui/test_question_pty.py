"""The REPL's [y/N] question in a real terminal: another line is not a silent "no" (issue 21)."""

from __future__ import annotations

from tests.pty_kit import ask, leave, spawn, type_line, wait_prompt


def test_a_command_typed_at_the_yes_no_question_is_asked_again(workspace, home, live_server):
    child = spawn(workspace, home, live_server, "--context-window", "8000")
    wait_prompt(child)
    # Long enough that a summary is smaller than the history it replaces, which carries every user
    # message verbatim (issue 20): more messages, each shorter, and their echoes are what it saves.
    for n in range(6):
        ask(child, f"message {n} " + "some words about the parser and the lexer " * 20, f"Echo: message {n}")
    ask(child, "/compact", "Compacted")
    type_line(child, "/compact undo")
    child.expect(r"\[y/N\]")
    child.send("/context\r")
    child.expect("'/context' is not an answer")
    child.expect(r"\[y/N\]")
    child.send("n\r")
    wait_prompt(child)
    assert "Restored the history" not in child.before
    leave(child, "/exit")
