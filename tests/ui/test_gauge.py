"""Issue 13, item 7: one figure for the context used, shown alike; session totals survive a resume."""

from __future__ import annotations

import dataclasses
import re

from prompt_toolkit.formatted_text import to_plain_text

import controller
import main
from agent.compaction.watermark import fixed_prefix_tokens
from agent.turn.loop import instructions
from ui.app import App
from ui.status import status_lines

FIGURE = re.compile(r"[0-9,]+ / [0-9,]+ \([0-9]+%\)")


def _status(state) -> str:
    return "\n".join(str(line) for line in status_lines(state))


async def test_toolbar_and_status_show_the_same_figure(make_state, server):
    state = make_state(context_window=8_000)
    app = App(state, main.submit)
    # Before the warm-up has measured the prefix the toolbar has no figure, and says so.
    assert state.scratch.fixed_prefix_tokens is None
    before = to_plain_text(app.toolbar())
    assert "0%" not in before and "…" in before

    instructions(state)  # what the warm-up does: it builds the agent, then measures its prefix
    fixed_prefix_tokens(state)
    shown = FIGURE.findall(to_plain_text(app.toolbar()))
    assert shown and shown == FIGURE.findall(_status(state))
    assert shown[0].startswith(f"{state.scratch.fixed_prefix_tokens:,} / 8,000")

    await main.on_submit(state, "hello there")
    assert FIGURE.findall(to_plain_text(app.toolbar())) == FIGURE.findall(_status(state))


async def test_session_totals_survive_a_resume(make_state, server, capsys):
    state = make_state()
    await main.print_mode(state, "hello")
    await main.print_mode(state, "and again")
    totals = dataclasses.asdict(state.stats)
    assert totals["requests"] == 2 and totals["input_tokens"] > 0

    resumed = controller.start_state(main.parse_args(["--continue"]), state.config)
    try:
        assert resumed.session_id == state.session_id
        assert dataclasses.asdict(resumed.stats) == totals
        await main.print_mode(resumed, "once more")
        assert resumed.stats.requests == 3
        assert resumed.stats.input_tokens > totals["input_tokens"]
    finally:
        resumed.transcript.close()
        if resumed.scratch.agent is not None:
            await resumed.scratch.agent.model.client.close()
    # A new session starts from zero.
    fresh = controller.start_state(main.parse_args([]), state.config)
    fresh.transcript.close()
    assert fresh.stats.requests == 0


def test_every_total_comes_back_from_the_stats_file_and_bad_values_are_left_out():
    from agent.state.app import Stats

    stats = Stats(
        requests=3,
        last_archive="a.jsonl",
        usage_missing=True,
        background_discarded={"stale": 2},
        tier_choice="summary",
        tier_clear_cost=0.0012,
        tier_summary_cost=3,
    )
    assert Stats.from_dict(stats.to_dict()) == stats
    damaged = {
        "requests": "3",
        "usage_missing": 1,
        "background_discarded": {"stale": "2"},
        "tier_clear_cost": "x",
        "last_archive": 5,
        "compactions": True,
    }
    assert Stats.from_dict(damaged) == Stats()


async def test_an_input_that_changed_no_total_writes_no_stats_file(make_state, server, monkeypatch):
    import session

    state = make_state()
    writes = []
    original = session.save_stats
    monkeypatch.setattr(session, "save_stats", lambda *a, **k: (writes.append(a), original(*a, **k)))
    await main.print_mode(state, "hello")
    assert len(writes) == 1
    main.save_stats(state)  # what /status or /help leaves behind: the same totals
    assert len(writes) == 1
    await main.print_mode(state, "and again")
    assert len(writes) == 2
