"""Issue 20's CI gate: a short fuzz sweep at every window, skewed counting, and no violation of the
invariants (tests/fuzz/oracle.py) in any request. `python bench/fuzz.py` runs the long version."""

from __future__ import annotations

import pytest

from tests.fuzz.figures import Figures
from tests.fuzz.plan import generate
from tests.fuzz.player import play

WINDOWS = [4_096, 8_192, 16_384, 32_768, 131_072, 1_000_000]
SEEDS = (1, 2)
# Short sessions at the small windows (they compact within a few turns); longer at the large ones,
# where the first compaction comes later. About a minute of CPU for the module.
TURNS = {4_096: 12, 8_192: 12, 16_384: 12, 32_768: 14, 131_072: 24, 1_000_000: 24}


@pytest.mark.parametrize("window", WINDOWS, ids=lambda w: f"{w // 1000}k" if w < 1_000_000 else "1m")
async def test_no_violation_in_a_short_sweep(window):
    figures = Figures()
    for seed in SEEDS:
        figures.add(await play(generate(seed, window, TURNS[window])))
    assert figures.sessions == len(SEEDS) and figures.requests > figures.sessions * TURNS[window] // 2  # it played
    found = {name: n for name, n in figures.violations.items() if n}
    examples = "\n".join(
        f"  {name} (seeds {figures.failing_seeds[name]}): {figures.examples[name][0]}" for name in found
    )
    seeds = ",".join(str(s) for s in sorted({s for v in figures.failing_seeds.values() for s in v}))
    assert not found, (
        f"window {window}: violations {found}; reproduce with python bench/fuzz.py "
        f"--windows {window} --seeds {seeds} --turns {TURNS[window]}\n{examples}"
    )
