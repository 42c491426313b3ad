"""How a compaction shares out the room of the rebuilt history, scaled to the window.

The rebuilt history is the fixed prefix (instructions, tools), the summary message, the user
messages checked into it, the restored files and the kept tail. Fixed figures (20,000 tokens of
user messages, 50,000 of files) overflow a small window on their own; here every part is a share of
what is left under a target well below the threshold, so the rebuilt history fits whatever the
window (>= 4k), and the caps only bind on large windows. Pure: values in, values out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent.compaction.context import output_reserve

if TYPE_CHECKING:
    from agent.state.app import AppState

# The rebuilt history stays under this share of the threshold: room for work before the next one.
REBUILT_SHARE = 0.7
# The summary message's own text around the summary: the wrapper, section titles, archive paths.
SUMMARY_OVERHEAD = 300
# Codex CLI keeps up to 20,000 tokens of user messages; Claude Code restores up to 50,000 of files.
USER_MESSAGES_MAX = 20_000
RESTORE_MAX = 50_000
# Shares of the room left after the prefix and the summary.
USER_SHARE, RESTORE_SHARE, TAIL_SHARE = 0.3, 0.4, 0.3


@dataclass(frozen=True)
class Budgets:
    target: int  # the whole rebuilt history, prefix included, at most
    summary: int  # the summary the model writes, at most (its output reserve)
    user_messages: int
    restore: int
    tail: int  # messages kept verbatim after the summary (mid-turn)


def plan(window: int, threshold: int, fixed: int) -> Budgets:
    """The budgets for a window, its threshold and the measured fixed prefix (tokens)."""
    target = int(threshold * REBUILT_SHARE)
    available = max(0, target - fixed - SUMMARY_OVERHEAD)
    # On a small window the prefix and a full-size summary can take the whole target (4k: ~1.35k of
    # instructions and tools by DeepSeek's template, a 625-token summary): the summary then gets
    # half of what is left, so user messages, files and the tail still get some room.
    summary = min(output_reserve(window), available // 2)
    room = available - summary
    return Budgets(
        target=target,
        summary=summary,
        user_messages=min(USER_MESSAGES_MAX, int(room * USER_SHARE)),
        restore=min(RESTORE_MAX, int(room * RESTORE_SHARE)),
        tail=int(room * TAIL_SHARE),
    )


def restore_room(budgets: Budgets, fixed: int, used: int) -> int:
    """Tokens the restored files may take, given what the rebuilt history already holds (`used`:
    the summary message and the kept tail): never more than the plan, never past the target."""
    return max(0, min(budgets.restore, budgets.target - fixed - used))


def for_state(state: AppState) -> Budgets:
    from agent.compaction.context import fixed_prefix_tokens, threshold

    return plan(state.config.context_window, threshold(state), fixed_prefix_tokens(state))
