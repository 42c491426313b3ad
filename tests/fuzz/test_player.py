"""The player does what a session says: tool calls on cue, Ctrl-C, /compact and its undo, --continue,
an @-mention; and the requests it checks are the ones the emulator received."""

from __future__ import annotations

from tests.fake_replies import Text, ToolCalls
from tests.fuzz.figures import Figures
from tests.fuzz.plan import Session, Step
from tests.fuzz.player import play

NOTES = "".join(f"L{n} the parser reads the header before the records\n" for n in range(1, 40))


def _session() -> Session:
    long_answer = Text("a long answer that streams in many pieces " * 200)
    steps = [
        Step("read", "[#1] Read docs/notes.md", [ToolCalls([("read_file", {"path": "docs/notes.md"})]), Text("ok")]),
        Step("answer", "[#2] Explain it at length", [long_answer], cancel_at=3),
        Step("compact", "/compact keep the file names"),
        Step("undo", "/compact undo"),
        Step("continue"),
        Step("mention", "[#3] Have a look at @docs/notes.md", [Text("seen")], mentions=["docs/notes.md"]),
    ]
    return Session(seed=0, window=32_768, lang="en", files={"docs/notes.md": NOTES}, steps=steps)


async def test_a_played_session_reaches_the_server_as_scripted():
    played = await play(_session())
    kinds = played.oracle.kinds
    assert played.interrupted == 1 and played.resumed == 1
    assert "summary" in kinds and kinds.count("turn") >= 3  # read (2 requests), the interrupted one, mention
    assert len(played.records) == len(kinds) and all("body" not in r for r in played.records)
    # The mention was attached and the oracle found the file in its turn request.
    assert played.oracle.violations["attachments"] == 0
    assert played.oracle.violations["crash"] == 0
    figures = Figures()
    figures.add(played)
    assert figures.turns == 3 and figures.dollars > 0 and figures.floor > 0
