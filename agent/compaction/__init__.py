"""Compaction: the watermark and gauge (context, gauge), the decision (budgets, cost, policy), the pure
rebuild (rebuild, tiers, summary), the summary request (summarizer), fitting the window (overflow,
oversize), the summary written in the background (background) and /compact undo (undo).
May import agent/tools/ and every part below it; never agent/turn/."""
