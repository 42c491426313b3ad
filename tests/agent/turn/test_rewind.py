"""/rewind (issue 25, part 6): every turn listed, across a compaction; the conversation, the files or
both put back to before one; nothing lost (the later history is in the archive, `back` restores it)."""

from __future__ import annotations

import asyncio

import compact
import main
import session
from agent.events import Listing, Question
from agent.turn import rewind
from controller import undo_turn
from tests.builders import long_answer, responder, script_forever
from ui.commands import dispatch
from ui.registry import CommandHost


class Host(CommandHost):
    """The commands' host with a user who answers the questions from `answers`, in order."""

    def __init__(self, state, answers: list[str]) -> None:
        super().__init__(state)
        self.answers, self.events = answers, []
        state.emit = self.emit

    def emit(self, event):
        self.events.append(event)
        if isinstance(event, Question):
            future = asyncio.get_running_loop().create_future()
            future.set_result(self.answers.pop(0))
            return future
        return None

    def listing(self) -> list[str]:
        return [e for e in self.events if isinstance(e, Listing)][-1].lines


def prompts(messages) -> list[str]:
    return [turn.text for turn in rewind.turns_of(messages, None)]


async def test_rewind_across_a_compaction_and_back(make_state, server, workspace):
    state = make_state()
    script_forever(server, responder([long_answer(1), long_answer(2)]))
    for text in ("first question", "second question", "third question"):
        await main.on_submit(state, text)
    await compact.run_compact(state)
    await main.on_submit(state, "after the compaction")
    before = list(state.history)
    host = Host(state, ["2"])
    await dispatch(host, "/rewind")
    lines = host.listing()
    assert [line.split(". ", 1)[1][:15] for line in lines] == [
        "first question ",
        "second question",
        "third question ",
        "after the compa",
    ]
    assert "compacted" in lines[1] and "compacted" not in lines[3]
    # Before the second turn: the first one, as it was before any summary.
    assert prompts(state.history) == ["first question"]
    assert prompts(session.load(state.session_id, workspace).messages) == ["first question"]
    # The later history went to the archive: still listed, and `back` restores it whole.
    host = Host(state, ["b"])
    await dispatch(host, "/rewind")
    assert len(host.listing()) == 5 and host.listing()[-1].startswith("b. ")
    assert [m.parts for m in state.history] == [m.parts for m in before]
    await main.on_submit(state, "and on")  # a valid history: the strict emulator takes it
    assert server.requests[-1].get("billed")


async def test_rewind_files_and_conversation_then_undo_puts_the_files_back(make_state, server, workspace):
    state = make_state()
    for name in ("a", "b", "c"):
        await main.on_submit(state, f"write {name}.txt {name}-text")
    host = Host(state, ["2", "b"])
    await dispatch(host, "/rewind")
    assert "[files: b.txt]" in host.listing()[1]
    assert (workspace / "a.txt").exists() and not (workspace / "b.txt").exists() and not (workspace / "c.txt").exists()
    assert prompts(state.history) == ["write a.txt a-text"]
    undo_turn(state)  # /undo: the files as they were before the rewind
    assert (workspace / "b.txt").read_text() == "b-text" and (workspace / "c.txt").read_text() == "c-text"


async def test_rewind_files_only_keeps_the_conversation(make_state, server, workspace):
    state = make_state()
    for name in ("a", "b"):
        await main.on_submit(state, f"write {name}.txt {name}-text")
    length = len(state.history)
    await dispatch(Host(state, ["1", "f"]), "/rewind")
    assert not (workspace / "a.txt").exists() and not (workspace / "b.txt").exists()
    assert len(state.history) == length


async def test_nothing_to_rewind_and_a_cancelled_pick(make_state, server):
    state = make_state()
    host = Host(state, [])
    await dispatch(host, "/rewind")
    assert "No turns" in host.events[-1].text
    await main.on_submit(state, "hello")
    await dispatch(Host(state, [""]), "/rewind")
    assert prompts(state.history) == ["hello"]
