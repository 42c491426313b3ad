"""Texts of the compaction guarantees: the window margin, kept summaries, user messages
that are never left out, the thrash guard's back-off, /compact show, in English and Chinese."""

from __future__ import annotations

GUARD_TEXTS: dict[str, tuple[str, str]] = {
    # key: (en, zh)
    "thrash_raised": (
        "The context refills within two turns of every compaction: automatic compaction now waits until "
        "{limit:,} tokens, for {n} turns (until turn {turn}).",
        "每次压缩后不到两轮上下文又满了：接下来 {n} 轮（到第 {turn} 轮）自动压缩推迟到 {limit:,} tokens 才进行。",
    ),
    "thrash_paused": (
        "Still refilling at once: automatic compaction pauses for {n} turns (until turn {turn}); requests are "
        "still fitted to the window. /compact with instructions on what to keep may help.",
        "上下文仍然立刻就满：自动压缩暂停 {n} 轮（到第 {turn} 轮），请求仍会适配窗口。"
        "可以试试带说明的 /compact。",
    ),
    "attachment_shortened": (
        "To fit the window, this turn's attachments were cut further: {paths}.",
        "为了放进窗口，本轮的附件又被截短了：{paths}。",
    ),
    "overflow_note_users": (
        "The user's own messages among them, verbatim (the newest; a long one cut where marked):",
        "其中用户本人的消息（原文；按新近顺序保留，过长的在标记处截断）：",
    ),
    "overflow_note_older": (
        "{n} older user message(s) did not fit here; they are in {archive}.",
        "另有 {n} 条更早的用户消息放不下，见 {archive}。",
    ),
    "attachments_too_large": (
        "Not sent: the mentioned files ({files:,} tokens, those too large cut to a share of the window) and the "
        "message ({tokens:,}) do not fit the window with the instructions and tools, even with everything "
        "before compacted ({fixed:,} of {threshold:,}). Mention fewer files, or ask the agent to read them in parts.",
        "没有发送：提及的文件（{files:,} tokens，过大的已截到窗口的一部分）加上消息（{tokens:,}），连同指令和工具"
        "（{fixed:,}），即使把之前的对话全部压缩也放不进窗口（{threshold:,}）。请少提及几个文件，或让助手分段读取。",
    ),
    "no_summary": ("The history holds no summary (nothing was compacted, or it was undone).",
                   "历史里没有摘要（还没有压缩过，或已撤销）。"),
    "undo_done_which": (
        "Restored the history from before that compaction ({n} messages), from {archive}. The compacted "
        "history you undid is saved in {saved}; /compact {undo} again goes back one compaction further.",
        "已恢复那次压缩之前的历史（{n} 条消息），来自 {archive}。被撤销的压缩后历史保存在 {saved}；"
        "再次 /compact {undo} 会再往前撤销一次压缩。",
    ),
    "status_troubles": (
        "Compaction failures: {failures} · messages left out to fit: {left_out} · requests refused as too long: "
        "{refused} · learned margin: +{margin:.1f}%",
        "压缩失败：{failures} 次 · 为放进窗口略去的消息：{left_out} 条 · 因过长被拒的请求：{refused} 次 · "
        "学到的余量：+{margin:.1f}%",
    ),
    "status_last_undo": ("Last /compact {undo} restored: {path}", "上次 /compact {undo} 恢复自：{path}"),
    "thrash_paused_print": (
        "Still refilling at once: automatic compaction pauses for {n} turns (until turn {turn}); requests are "
        "still fitted to the window.",
        "上下文仍然立刻就满：自动压缩暂停 {n} 轮（到第 {turn} 轮），请求仍会适配窗口。",
    ),
    "auto_compact_off_print": (
        "Automatic compaction failed {n} times in a row and is off for this run; requests are still fitted "
        "to the window (the oldest turns' results left out, the user's messages kept).",
        "自动压缩连续失败 {n} 次，本次运行不再自动压缩；请求仍会适配窗口（略去最早几轮的结果，保留用户消息）。",
    ),
    "thrash_rearmed": ("Automatic compaction is back at its usual threshold.", "自动压缩已恢复到平常的阈值。"),
    "status_thrash_raised": (
        "backed off: compacts at {limit:,} tokens until turn {turn}",
        "已退让：到第 {turn} 轮前在 {limit:,} tokens 时才压缩",
    ),
    "status_thrash_paused": ("paused until turn {turn} (thrashing)", "暂停到第 {turn} 轮（频繁压缩）"),
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
