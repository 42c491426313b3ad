"""Clear old tool results or write a summary: the session's figures fed to agent.compaction.cost.

`figures` reads what the decision needs from the session once; `choose` and `outlook` work on those
values alone. `decide` is called at the one decision point of compact.run_compact; what it chose,
and why, is kept in Stats for /status.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent import debuglog
from agent.compaction import budgets, cost
from agent.compaction.context import fixed_prefix_tokens, output_reserve, threshold
from agent.config import Prices
from agent.provider import prices
from agent.tokens import count as tokens

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

    from agent.state.app import AppState

MODES = ("auto", "on", "off")
# A summary's length when there is no earlier one to go by; the rebuilt history's wrapper text.
DEFAULT_SUMMARY_TOKENS = 3_000
WRAPPER_TOKENS = 600
BYTES_PER_TOKEN = 3.5
MIN_GROWTH = 200


@dataclass(frozen=True)
class Figures:
    """What the decision needs of a session, as values: `choose` and `outlook` take these, not AppState."""

    mode: str  # --cheap-tier: "auto", "on", "off"
    fixed: int  # tokens of the instructions and tool definitions
    window: int
    threshold: int
    budgets: budgets.Budgets
    restored: int  # tokens of the files a summary would restore (an estimate from their sizes)
    prices: Prices | None
    caches: bool  # the provider caches prefixes (known prices say so, or the server reported hits)


def figures(state: AppState) -> Figures:
    """The session's figures for the decision (the one place that reads them from the state)."""
    # The next requests are made now; peak hours scale every price alike.
    known = prices.now(state.config)
    return Figures(
        mode=state.config.cheap_tier, fixed=fixed_prefix_tokens(state), window=state.config.context_window,
        threshold=threshold(state), budgets=budgets.for_state(state), restored=_restored_estimate(state),
        prices=known, caches=(known is not None and known.caches_prefixes) or state.stats.cache_hit_tokens > 0,
    )


def outlook(
    figs: Figures, history: Sequence[ModelMessage], cleared: Sequence[ModelMessage], before: int,
    clear_after: int, keep: Sequence[ModelMessage] = (),
) -> cost.Outlook:
    """What each action leaves and what the next requests would carry after it (values in, values out)."""
    from agent.compaction.summary import head_end, is_summary, previous_summary, summary_text

    fixed = figs.fixed
    first = next((i for i, (a, b) in enumerate(zip(history, cleared, strict=False)) if a is not b), len(cleared))
    unchanged = fixed + tokens.count_messages(history[:first])
    earlier = previous_summary(history)
    earlier_text = summary_text(earlier) if earlier is not None else None
    summary_out = tokens.count_text(earlier_text) if earlier_text else DEFAULT_SUMMARY_TOKENS
    summary_out = min(summary_out, output_reserve(figs.window))
    # The summary carries the user messages too (agent.compaction.budgets), within their budget.
    plan = figs.budgets
    restored = min(plan.restore, figs.restored) + min(plan.user_messages, _user_estimate(history))
    after = fixed + WRAPPER_TOKENS + summary_out + restored + tokens.count_messages(keep)
    responses = sum(1 for m in history if m.kind == "response")
    # The compaction's own messages (the summary, the user messages carried before it).
    head = tokens.count_messages([m for m in history[: head_end(history)] if is_summary(m)])
    growth = max(MIN_GROWTH, (before - fixed - head) / max(1, responses))
    return cost.Outlook(
        before=before, threshold=figs.threshold, fixed=fixed, growth=growth,
        clear_after=clear_after, clear_unchanged=unchanged,
        summary_cached=_last_request_tokens(history), summary_output=summary_out, summary_after=after,
    )


def choose(
    figs: Figures, history: Sequence[ModelMessage], cleared: Sequence[ModelMessage], before: int,
    clear_after: int, clear_enough: bool, keep: Sequence[ModelMessage] = (),
) -> cost.Choice:
    """Clear or summarize (values in, values out: agent.compaction.cost's model over these figures)."""
    seen = outlook(figs, history, cleared, before, clear_after, keep) if clear_enough else None
    return cost.choose(figs.mode, clear_enough, seen, figs.prices, figs.caches)


def _user_estimate(history: Sequence[ModelMessage]) -> int:
    from agent.compaction.summary import earlier_user_messages, previous_summary, user_messages

    texts = earlier_user_messages(previous_summary(history)) + user_messages(history)
    return sum(tokens.count_text(text) for text in texts)


def _restored_estimate(state: AppState) -> int:
    from agent.compaction.rebuild import RESTORE_MAX_FILES

    total = 0
    for path in state.read_file_state.paths()[-RESTORE_MAX_FILES:]:
        try:
            total += int(path.stat().st_size / BYTES_PER_TOKEN)
        except OSError:
            continue
    return total


def _last_request_tokens(history: Sequence[ModelMessage]) -> int:
    """The prompt of the newest request: what the provider has cached of this history."""
    for message in reversed(history):
        if message.kind == "response" and message.usage.input_tokens:
            return message.usage.input_tokens
    return 0


def decide(
    state: AppState, history: Sequence[ModelMessage], cleared: Sequence[ModelMessage], before: int,
    clear_after: int, clear_enough: bool, keep: Sequence[ModelMessage] = (),
) -> cost.Choice:
    """The one decision point (compact.run_compact): `choose` over the session's figures, recorded in
    Stats for /status and in the debug log."""
    mode = state.config.cheap_tier
    choice = choose(figures(state), history, cleared, before, clear_after, clear_enough, keep)
    stats = state.stats
    stats.tier_mode, stats.tier_choice, stats.tier_reason = mode, choice.action, choice.reason
    stats.tier_clear_cost, stats.tier_summary_cost = choice.clear_cost, choice.summary_cost
    stats.tier_currency = choice.currency
    debuglog.log("cheap_tier_decision", mode=mode, action=choice.action, reason=choice.reason,
                 clear=choice.clear_cost, summary=choice.summary_cost)
    return choice


def summary_expected(state: AppState, used: int, history: Sequence[ModelMessage] | None = None) -> bool:
    """Under --cheap-tier auto: would the compaction coming up write a summary? A background summary
    is started only then: where clearing will be chosen, one written ahead would be paid for and
    thrown away (or, swapped in first, cost more than the clearing)."""
    from agent.compaction.context import history_tokens
    from agent.compaction.rebuild import cheap_tier, cheap_tier_enough

    history = list(state.history if history is None else history)
    cleared, saved = cheap_tier(history, threshold(state))
    after = history_tokens(state, cleared)
    if not cheap_tier_enough(saved, used, after, threshold(state)):
        return True
    auto = dataclasses.replace(figures(state), mode="auto")
    return choose(auto, history, cleared, used, after, True).action == "summary"
