"""Texts of the compaction guarantees (issue 20): the window margin, kept summaries, user messages
that are never left out, the thrash guard's back-off, /compact show, in English and Chinese."""

from __future__ import annotations

GUARD_TEXTS: dict[str, tuple[str, str]] = {
    # key: (en, zh)
    "compact_over_target": (
        "The compacted history is over the compaction threshold ({after:,} of {threshold:,} tokens) but fits "
        "the window, so it was kept; the next compaction comes sooner.",
        "压缩后的历史超过了压缩阈值（{after:,} / {threshold:,} tokens），但放得进窗口，所以保留了；"
        "下次压缩会来得早一些。",
    ),
    "compact_over_window": (
        "the compacted history would not fit the window ({after:,} of {window:,} tokens); kept the history",
        "压缩后的历史放不进窗口（{after:,} / {window:,} tokens）；保留原历史",
    ),
}
