"""11. The attacks of issue 11 (tests/robustness/attacks.py), each one held: no command runs without
the user's consent, nothing is read or written outside the workspace, a failure damages nothing."""

from __future__ import annotations

import pytest

from tests.robustness.attacks import SCENARIOS


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_attack_is_held(name, tmp_path, home):
    assert SCENARIOS[name](tmp_path) == []
