"""What one turn's run keeps while it runs: created by run_turn, shared with its guard, dropped with it.

pydantic-ai merges adjacent requests of the history it is given at the start of every run (a
normalisation for the provider). We keep our own unmerged copy instead: the session file then only
ever grows by appends, and our messages keep their metadata (the summary's). Our history is the
turn's `base` plus what the run produced from `offset` on; a compaction in the middle of the turn
(agent.turn.guard) moves both.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage


@dataclass
class Turn:
    start: list[ModelMessage]  # the history before the turn: what stays if nothing came back
    base: list[ModelMessage]  # our copy of the history the run was given (the turn's attachments included)
    # The base and the user's message: what stays after Ctrl-C before the run's first request.
    asked: list[ModelMessage] = field(default_factory=list)
    offset: int = -1  # where the run's own messages start in run.all_messages(); -1 until it started
    run: Any = None
    results: dict[str, Any] = field(default_factory=dict)  # tool results by call id
    partial: list[str] = field(default_factory=list)  # the text of the answer streaming now
    got_response: bool = False
    in_flight: bool = False  # a request sent and not answered yet: Ctrl-C then still counts it
    save_errors: list[str] = field(default_factory=list)

    def ours(self) -> list[ModelMessage]:
        """Our history: the base plus what the run produced since (its first request holds the user's
        message: until then, the base)."""
        if self.offset < 0:
            return list(self.base)
        return self.base + list(self.run.all_messages()[self.offset :])

    def moved(self, history: list[ModelMessage], run_messages: int) -> None:
        """A compaction replaced the history in the middle of the run: it goes on from `history`."""
        self.base, self.offset = list(history), run_messages
