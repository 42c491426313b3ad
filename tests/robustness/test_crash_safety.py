"""1. Crash safety: SIGKILL at every step of a compaction and at random moments of ordinary turns.

After each kill the agent is restarted with --continue: the session loads, it is the pre- or the
post-compaction version (never a mix), no line written before the kill is missing, every archive
that exists is the complete transcript, and the next request is one the API accepts.
"""

from __future__ import annotations

import pytest

from tests.robustness.harness import COMPACTION_POINTS, compaction_kill, turn_kill

# Seeded: the same "random" moments on every run, so a failure can be replayed.
TURN_KILLS = [("stream", 11), ("stream", 12), ("tool", 21), ("tool", 22), ("append", 0)]


@pytest.mark.parametrize("point", COMPACTION_POINTS)
def test_kill_during_compaction(point, tmp_path):
    outcome = compaction_kill(point, tmp_path)
    assert not outcome.crashes, outcome.crashes
    assert not outcome.problems, outcome.problems


@pytest.mark.parametrize(("kind", "seed"), TURN_KILLS, ids=[f"{k}-{s}" for k, s in TURN_KILLS])
def test_kill_during_a_turn(kind, seed, tmp_path):
    outcome = turn_kill(kind, seed, tmp_path)
    assert not outcome.crashes, outcome.crashes
    assert not outcome.problems, outcome.problems
