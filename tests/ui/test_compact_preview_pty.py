"""/compact preview in a real terminal: the summary and what would be dropped are shown, then cancel
leaves the history and the session file byte-identical (only the summary request spent, and /status
counts it), and edit opens $EDITOR on the summary before it is applied, or a field in place without one."""

from __future__ import annotations

import re
import sys

import session
from tests.builders import is_compaction, long_answer, responder, script_forever
from tests.pty_kit import ask, leave, screen_of, shown, spawn, type_line, wait_prompt

SUMMARY = "<summary>1. The user asked twice.\n6. Current work: PREVIEWED SUMMARY</summary>"
EDITOR = "import sys, pathlib; p = pathlib.Path(sys.argv[1]); p.write_text(p.read_text() + '\\nKEEP THE PARSER NOTES')"


def test_preview_then_cancel_changes_nothing_then_edit_and_apply(workspace, home, live_server, tmp_path):
    editor = tmp_path / "editor.py"
    editor.write_text(EDITOR)
    script_forever(live_server, responder([long_answer(1), long_answer(2)], summary=SUMMARY))
    child = spawn(workspace, home, live_server, env_extra={"EDITOR": f"{sys.executable} {editor}"})
    screen = screen_of(child)
    wait_prompt(child)
    for text, answer in (("first", "Answer 1"), ("second", "Answer 2")):
        ask(child, text, answer)
    path = session.session_file(child.session_id, workspace)
    before = path.read_bytes()

    type_line(child, "/compact preview keep the parser notes")
    child.expect(r"\[c\]ancel\?")
    assert shown(screen, "PREVIEWED SUMMARY") and shown(screen, "dropped:")
    ask(child, "c", "Cancelled: the conversation and the session file are unchanged")
    assert path.read_bytes() == before
    asks = [r for r in live_server.requests if is_compaction(r["body"])]
    assert len(asks) == 1 and "keep the parser notes" in asks[0]["body"]["messages"][-1]["content"]
    type_line(child, "/status")
    child.expect(r"Compactions: 0 \(summary requests used ([\d,]+) tokens\)")
    assert int(child.match.group(1).replace(",", "")) > 0

    type_line(child, "/compact preview")
    child.expect(r"\[c\]ancel\?")
    type_line(child, "e")
    child.expect("KEEP THE PARSER NOTES")
    child.expect(r"\[c\]ancel\?")
    ask(child, "a", "Compacted:")
    leave(child, "/exit")
    text = re.sub(r"\s+", " ", path.read_text())
    assert "PREVIEWED SUMMARY KEEP THE PARSER NOTES" in text.replace("\\n", " ")


def test_without_an_editor_the_summary_is_edited_in_place(workspace, home, live_server):  # noqa: F811
    """No $EDITOR or $VISUAL: `e` opens the summary in a multi-line field; a line typed at its end and
    Esc then Enter gives it back, and `a` applies the edited text."""
    script_forever(live_server, responder([long_answer(1)], summary=SUMMARY))
    child = spawn(workspace, home, live_server, env_extra={"EDITOR": "", "VISUAL": ""})
    screen = screen_of(child)
    wait_prompt(child)
    type_line(child, "first")
    child.expect("Answer 1")
    wait_prompt(child)
    type_line(child, "/compact preview")
    child.expect(r"\[c\]ancel\?")
    type_line(child, "e")
    child.expect("Esc then Enter: done")
    child.send("\rINLINE NOTE ONE\rINLINE NOTE TWO")
    child.expect("INLINE NOTE TWO")
    child.send("\x1b\r")
    child.expect(r"\[c\]ancel\?")
    assert shown(screen, "INLINE NOTE ONE")
    type_line(child, "a")
    child.expect("Compacted:")
    wait_prompt(child)
    leave(child, "/exit")
    text = session.session_file(child.session_id, workspace).read_text()
    assert "INLINE NOTE ONE\\nINLINE NOTE TWO" in text, text[-2000:]
