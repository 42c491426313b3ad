"""Fixtures of the robustness tests: the agent started the way main() starts it."""

from __future__ import annotations

import pytest

import controller
import main
from agent.events import EventLog
from agent.state.app import AppState


@pytest.fixture
def resume(home, workspace, server):
    """Open a session as `main.py --resume <id>` does; the early notices stay in `state.emit`."""
    opened: list[AppState] = []

    def open_session(session_id: str, *flags: str) -> AppState:
        args = main.parse_args(["--base-url", server.base_url, "--lang", "en", "--yes", "--resume", session_id, *flags])
        state = controller.start_state(args, main.build_config(args))
        assert isinstance(state.emit, EventLog)
        opened.append(state)
        return state

    yield open_session
    for state in opened:
        state.transcript.close()
