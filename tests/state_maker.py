"""AppStates for a test, built one way and closed at its end: the suite's `make_state` fixture (the
emulator, tests/conftest.py) and the llama.cpp lane's `local_state` (tests/local_model/conftest.py)."""

from __future__ import annotations

from typing import Any

import session
from agent.config import Config
from agent.events import EventLog
from agent.state.app import AppState
from agent.state.transcript import Transcript


class StateMaker:
    """`maker(**config)` -> an AppState of a new session in `workspace`, its `emit` an EventLog to
    assert on; `config` overrides `defaults`. `await maker.close()` at the test's end."""

    def __init__(self, **defaults: Any) -> None:
        self.defaults = {"lang": "en", "yes": True, **defaults}
        self.made: list[AppState] = []

    def __call__(self, **config: Any) -> AppState:
        options = {**self.defaults, **config}
        state = AppState(
            config=Config(**options),
            transcript=Transcript(session.new_session_id(), options["workspace"]),
            emit=EventLog(),
        )
        self.made.append(state)
        return state

    async def close(self) -> None:
        # Close the HTTP clients inside the test's event loop, not at garbage collection after it.
        for state in self.made:
            if state.compaction.background is not None:
                state.compaction.background.task.cancel()
            # A scripted model (tests/scripted_model.py) has no client.
            client = getattr(state.scratch.agent and state.scratch.agent.model, "client", None)
            if client is not None:
                await client.close()
