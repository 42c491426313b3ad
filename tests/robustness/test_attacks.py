"""11. The attacks of issue 11 (tests/robustness/attacks.py), each one held: no command runs without
the user's consent, nothing is read or written outside the workspace, a failure damages nothing."""

from __future__ import annotations

import pytest

from tests.robustness.attacks import ROUND_TWO, ROUNDS, SCENARIOS


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_attack_is_held(name, tmp_path, home):
    assert SCENARIOS[name](tmp_path) == []


@pytest.mark.parametrize("name", list(ROUND_TWO))
def test_round_two_attack_is_held(name, tmp_path, home):
    """Issue 19's attacks (attacks_19.py)."""
    assert ROUND_TWO[name](tmp_path) == []


@pytest.mark.parametrize("name", [f"{r}: {n}" for r, scenarios in ROUNDS.items() for n in scenarios])
def test_later_round_attack_is_held(name, tmp_path, home):
    """Each later review's attacks (attack_kit.attack_round)."""
    round_name, label = name.split(": ", 1)
    assert ROUNDS[round_name][label](tmp_path) == []
