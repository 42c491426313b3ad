"""Issue 15: the state split by owner; a session switch starts what belongs to the session afresh."""

from __future__ import annotations

import controller
from agent.config import Config
from agent.state.app import AppState, CompactionState
from agent.state.transcript import Transcript


def test_a_session_switch_starts_the_compaction_state_afresh_and_keeps_the_agents_scratch(workspace):
    state = AppState(config=Config(workspace=workspace), transcript=Transcript("", workspace))
    controller.switch_session(state, "one", [])
    state.compaction.failures, state.compaction.off_reason = 2, "thrashing"
    state.compaction.auto_turns, state.compaction.thrash_streak = [3, 4], 1
    state.compaction.running = True
    state.scratch.fixed_prefix_tokens, state.scratch.prefix_calibrated = 1234, True
    controller.switch_session(state, "two", [])
    try:
        # Every field, not a list of them kept by hand: a breaker of the old session never carries over.
        assert state.compaction == CompactionState()
        # The agent, its instructions and its measured prefix depend on the model, not the session.
        assert (state.scratch.fixed_prefix_tokens, state.scratch.prefix_calibrated) == (1234, True)
    finally:
        assert state.transcript._lock is not None  # switch_session took the new session's lock
        state.transcript.close()
