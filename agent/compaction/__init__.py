"""Compaction: the watermark, and when the history is over it, a plan, one await and a commit.

Read flow.py first: it tells one compaction top to bottom. Its callers are in checks.py (before a
turn, before each request inside one) and compact.py (/compact). Behind them, each module has one
job: the sizes, the threshold and the learned margin (watermark), clearing or a summary by
cost (policy), the rebuilt history and the summary's text (rebuild, summary: pure), the summary
request (request), the fit to the window (fit), the summary written in the background (background)
and /compact undo (undo). Outside this package, import only the names below (a test holds it).
May import agent/tools/ and every part below it; never agent/turn/.
"""

from agent.compaction.background import cancel_background
from agent.compaction.checks import (
    MAX_COMPACT_FAILURES,
    REARM_TURNS,
    Refit,
    auto_limit,
    backoff_text,
    before_request,
    before_turn,
    failed,
)
from agent.compaction.flow import Plan, Review, compact, plan
from agent.compaction.rebuild import cheap_tier
from agent.compaction.summary import files_touched, head_end
from agent.compaction.undo import UndoPlan, last_summary, plan_undo, undo_compaction
from agent.compaction.watermark import (
    CompactAtOutOfRange,
    Figures,
    ceiling,
    compact_at_range,
    compact_threshold,
    context_tokens,
    figures,
    fits,
    fixed_prefix_tokens,
    history_tokens,
    lower_mark,
    measured,
    next_head,
    output_reserve,
    prefix_tokens,
    ratio,
    refused,
    safe,
    threshold,
)
