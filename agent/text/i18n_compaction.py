"""Texts of compaction: the automatic and manual compaction, its preview, undo, cost tiers, background
summaries, the guarantees (thrash, over the target) and what is left out to fit the window, in English and
Chinese; agent.text.i18n merges them into its table."""

from __future__ import annotations

COMPACTION_TEXTS: dict[str, tuple[str, str]] = {
    # key: (en, zh)
    "auto_compact": (
        "Context is nearly full ({used:,} / {threshold:,} tokens), compacting automatically",
        "上下文接近上限（{used:,} / {threshold:,} tokens），自动压缩中",
    ),
    "mid_turn_compact": (
        "Context filled up during this turn ({used:,} / {threshold:,} tokens), compacting and continuing",
        "本轮执行中上下文接近上限（{used:,} / {threshold:,} tokens），压缩后继续",
    ),
    "auto_compact_failed": (
        "Automatic compaction failed: {reason}. Nothing was changed.",
        "自动压缩失败：{reason}。没有做任何改动。",
    ),
    "auto_compact_off": (
        "Automatic compaction failed {n} times in a row and is now off; use /compact to try by hand.",
        "自动压缩连续失败 {n} 次，已停止自动压缩；可以用 /compact 手动压缩。",
    ),
    "nothing_to_compact": ("Nothing to compact.", "没有可压缩的内容。"),
    "compact_empty": ("the model returned an empty summary", "模型返回了空摘要"),
    "compact_tool_call": (
        "the model tried to call a tool instead of writing a summary",
        "模型试图调用工具而不是写摘要",
    ),
    "compact_no_archive": (
        "cannot write the archive folder {path}: {error}",
        "无法写入存档目录 {path}：{error}",
    ),
    "compact_not_smaller": (
        "the summary was not smaller than the history ({before:,} → {after:,} tokens); kept the history",
        "摘要并不比原历史小（{before:,} → {after:,} tokens）；保留原历史",
    ),
    "compact_cancelled": ("Compaction cancelled; nothing was changed.", "压缩已取消，没有做任何改动。"),
    "compact_failed": ("Compaction failed: {reason}. Nothing was changed.", "压缩失败：{reason}。没有做任何改动。"),
    "compact_done": (
        "Compacted: {before:,} → {after:,} tokens. Full transcript archived at {archive}",
        "压缩完成：{before:,} → {after:,} tokens。完整对话已存档到 {archive}",
    ),
    "compact_cheap_done": (
        "Cleared old tool results: {before:,} → {after:,} tokens (no summary needed). Archived at {archive}",
        "清理了旧的工具结果：{before:,} → {after:,} tokens（无需摘要）。已存档到 {archive}",
    ),
    "compact_left_out": (
        "{n} oldest messages did not fit in the compaction request and were left out (they are in the archive).",
        "最早的 {n} 条消息放不进压缩请求，已略去（存档里都有）。",
    ),
    "background_started": ("Writing a summary in the background…", "正在后台写摘要……"),
    "undo_nothing": ("No compaction to undo.", "没有可以撤销的压缩。"),
    "undo_done": (
        "Restored the history from {archive} ({n} messages); the compacted history was archived at {saved}.",
        "已从 {archive} 恢复历史（{n} 条消息）；压缩后的历史已存档到 {saved}。",
    ),
    "undo_question": (
        "Replace the current history with the newest archive?",
        "用最近的存档替换当前历史？",
    ),
    "undo_keeps_later": (
        "The {n} turn(s) made since that compaction will be kept, after the restored history.",
        "压缩之后的 {n} 轮对话会保留，接在恢复的历史后面。",
    ),
    "undo_later_unknown": (
        "This archive does not record where its compaction ended: the current history ({n} messages) "
        "will be archived and replaced, and turns made since the compaction will not be kept.",
        "这个存档没有记录压缩在哪里结束：当前历史（{n} 条消息）会被存档并替换，压缩之后的对话不会保留。",
    ),
    "compact_over_threshold": (
        "the compacted history would still be over the threshold ({after:,} of {threshold:,} tokens); kept the history",
        "压缩后的历史仍超过阈值（{after:,} / {threshold:,} tokens）；保留原历史",
    ),
    "compact_at_range": (
        "--compact-at {value} is outside what a {window:,}-token window allows: give {low:,} to {high:,} tokens "
        "({low_pct}% to {high_pct}% of the window)",
        "--compact-at {value} 超出了 {window:,} tokens 窗口允许的范围：请给 {low:,} 到 {high:,} tokens"
        "（窗口的 {low_pct}% 到 {high_pct}%）",
    ),
    "bad_compact_at": (
        "--compact-at takes N tokens, Nk or P% of the window, not {value}",
        "--compact-at 的写法是 N（tokens）、Nk 或窗口的 P%，而不是 {value}",
    ),
    "preview": ("▸ {label} ({n:,} chars): {first}…", "▸ {label}（{n:,} 字）：{first}…"),
    # --- today's DeepSeek API and local servers ---
    "compact_cut_short": (
        "the summary was cut short at the output limit ({tokens:,} tokens, reasoning included). Try /compact "
        "with instructions to be briefer, or --thinking off",
        "摘要在输出上限处被截断（{tokens:,} tokens，含思考）。可以试试带“写简短些”说明的 /compact，或 `--thinking off`",
    ),
    "compact_tools_off": (
        "Tools are off during compaction: this call was not run. Write the summary now, as asked, "
        "without calling any tool.",
        "压缩期间工具已关闭：这次调用没有执行。请现在按要求写出摘要，不要调用任何工具。",
    ),
    "compact_kept_calling": (
        "the model kept calling tools instead of writing the summary ({n} rounds); asked again without tools",
        "模型连续 {n} 轮调用工具而不写摘要；已改为不带工具再请求一次",
    ),
    # --- cost ---
    "tier_none": (
        "Cheap tier (--cheap-tier {mode}): not needed yet",
        "清理旧工具结果（--cheap-tier {mode}）：尚未用到",
    ),
    "tier_line": (
        "Cheap tier (--cheap-tier {mode}): last compaction chose {choice} — {why}",
        "清理旧工具结果（--cheap-tier {mode}）：上次压缩选择了{choice}——{why}",
    ),
    "tier_clear": ("clearing old tool results", "清理旧工具结果"),
    "tier_summary": ("a summary", "写摘要"),
    "tier_cheaper": (
        "estimated {clear} per request after clearing vs {summary} after a summary",
        "估计清理后每次请求 {clear}，摘要后每次请求 {summary}",
    ),
    "tier_no_cache_no_prices": (
        "no prices known and no prefix cache seen: clearing spares the wait for a summary call",
        "不知道价格且未见前缀缓存：清理可免去等待摘要调用",
    ),
    "tier_forced_on": ("--cheap-tier on", "`--cheap-tier on`"),
    "tier_forced_off": ("--cheap-tier off", "`--cheap-tier off`"),
    "tier_clear_not_enough": (
        "clearing old tool results alone would not bring the context low enough",
        "仅清理旧工具结果不足以让上下文降到足够低",
    ),
    "background_counts": (
        "Background summaries: {started} started, {used} used{given_up}",
        "后台摘要：开始 {started} 次，用上 {used} 次{given_up}",
    ),
    "background_given_up": ("; given up: {reasons}", "；放弃：{reasons}"),
    "overflow_fitting": (
        "The next request ({used:,} tokens) would not fit the window (at most {limit:,}); making it fit",
        "下一次请求（{used:,} tokens）超出窗口（最多 {limit:,}）；正在让它放得下",
    ),
    "overflow_left_out": (
        "Left out the {n} oldest messages so the request fits the window; the full transcript is archived at {archive}",
        "为了放进窗口，略去了最早的 {n} 条消息；完整对话已存档到 {archive}",
    ),
    "overflow_note": (
        "[{n} earlier messages were left out to fit the context window. The full transcript is in {archive}; "
        "read it if you need them.]",
        "[为了放进上下文窗口，略去了之前的 {n} 条消息。完整对话在 {archive}，需要时可以读取。]",
    ),
    "overflow_nothing_fits": (
        "This request cannot fit the context window: its newest part alone is {needed:,} tokens (at most "
        "{limit:,}). Nothing was changed; send something shorter or use a model with a larger window.",
        "这次请求放不进上下文窗口：仅最新部分就有 {needed:,} tokens（最多 {limit:,}）。"
        "没有做任何改动；请发送更短的内容，或换用窗口更大的模型。",
    ),
    "thrash_raised": (
        "The context refills within two turns of every compaction: automatic compaction now waits until "
        "{limit:,} tokens, for {n} turns (until turn {turn}).",
        "每次压缩后不到两轮上下文又满了：接下来 {n} 轮（到第 {turn} 轮）自动压缩推迟到 {limit:,} tokens 才进行。",
    ),
    "thrash_paused": (
        "Still refilling at once: automatic compaction pauses for {n} turns (until turn {turn}); requests are "
        "still fitted to the window. /compact with instructions on what to keep may help.",
        "上下文仍然立刻就满：自动压缩暂停 {n} 轮（到第 {turn} 轮），请求仍会适配窗口。可以试试带说明的 /compact。",
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
    "no_summary": (
        "The history holds no summary (nothing was compacted, or it was undone).",
        "历史里没有摘要（还没有压缩过，或已撤销）。",
    ),
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
    "compact_cut_short_plain": (
        "the summary was cut short at the output limit ({tokens:,} tokens). Try /compact with instructions to "
        "be briefer",
        "摘要在输出上限处被截断（{tokens:,} tokens）。可以试试带“写简短些”说明的 /compact",
    ),
    "compact_no_next_step": (
        "the summary had no section 6 (current work and next step), twice",
        "摘要两次都没有第 6 节（当前工作与下一步）",
    ),
    "compact_not_a_summary": (
        "the model's reply was not a summary ({chars:,} characters, none of its sections), twice",
        "模型的回复不是摘要（{chars:,} 个字符，没有任何一个小节），两次都是",
    ),
    "spin_compacting": ("Compacting the conversation", "压缩上下文"),
    "preview_summary": ("Summary", "摘要"),
    "preview_reasoning": ("Reasoning", "推理"),
    "dropped_line": ("dropped: {parts}", "丢弃：{parts}"),
    "dropped_nothing": ("dropped: nothing", "丢弃：无"),
    "dropped_parts_sep": (", ", "，"),
    "dropped_tools": (
        "{n} tool result(s) ({tools}; {tokens:,} tokens)",
        "{n} 个工具结果（{tools}；{tokens:,} tokens）",
    ),
    "dropped_tools_sep": (", ", "、"),
    "dropped_files": ("{n} file(s) not restored ({files})", "{n} 个文件未恢复（{files}）"),
    "dropped_users": ("{n} user message(s) kept only in the archive", "{n} 条用户消息只保留在存档里"),
    "dropped_more": ("{n} more", "另 {n} 个"),
    "repaired_calls": (
        "Session file: closed {n} tool call(s) left without a result (the agent stopped mid-tool)",
        "会话文件：修复了 {n} 处没有结果的工具调用（上次在工具运行中退出）",
    ),
    "preview_title": ("The summary that would replace the conversation:", "将替换当前对话的摘要："),
    "preview_question": ("[a]pply, [e]dit or [c]ancel? ", "[a] 应用、[e] 编辑，还是 [c] 取消？"),
    "preview_edit_here": (
        "Edit the summary here ($EDITOR or $VISUAL would open your editor instead):",
        "在这里修改摘要（设置 `$EDITOR` 或 `$VISUAL` 则改用你的编辑器）：",
    ),
    "preview_editor_failed": (
        "The editor exited with {code}; the summary is unchanged.",
        "编辑器以 {code} 退出；摘要未改动。",
    ),
    "compact_preview_cancelled": (
        "Cancelled: the conversation and the session file are unchanged (only the summary request was spent).",
        "已取消：对话和会话文件都没有改动（只花费了一次摘要请求）。",
    ),
}
