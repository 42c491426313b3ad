"""User-facing short texts in English and Chinese. Long prompt texts live in prompts/."""

from __future__ import annotations

import locale
import os

TEXTS: dict[str, tuple[str, str]] = {
    # key: (en, zh)
    "err_auth": (
        "The endpoint refused the API key (HTTP {status}). Set API_KEY or DEEPSEEK_API_KEY "
        "(OPENAI_API_KEY with --base-url) to a valid key.",
        "接口拒绝了 API Key（HTTP {status}）。请把 API_KEY 或 DEEPSEEK_API_KEY"
        "（用 --base-url 时也可用 OPENAI_API_KEY）设为有效的 Key。",
    ),
    "err_forbidden": (
        "The endpoint refused access (HTTP 403): the key may lack permission for this model.",
        "接口拒绝访问（HTTP 403）：这个 Key 可能没有该模型的权限。",
    ),
    "err_model": (
        "The endpoint does not know the model '{model}'. Choose another with --model.",
        "接口不认识模型 '{model}'，请用 --model 换一个。",
    ),
    "err_context": (
        "The request was longer than the model's context window; run /compact and try again.",
        "请求超出了模型的上下文窗口；请先 /compact 再重试。",
    ),
    "err_http": ("The endpoint answered HTTP {status}: {detail}", "接口返回 HTTP {status}：{detail}"),
    "err_api": ("Could not reach the model at {url}: {detail}", "无法连接模型接口 {url}：{detail}"),
    "err_behaviour": ("The model's answer could not be used: {detail}", "模型的回答无法使用：{detail}"),
    "err_other": ("The turn failed: {detail}", "本轮失败：{detail}"),
    "err_broken_stream": (
        "The connection to the model broke off mid-answer ({detail}); the partial answer was not kept.",
        "与模型的连接在回答中途断开（{detail}）；不完整的回答没有保存。",
    ),
    "err_bad_json": (
        "The endpoint {url} sent a reply that is not valid JSON: {detail}",
        "接口 {url} 返回的内容不是有效的 JSON：{detail}",
    ),
    "save_failed": (
        "Could not write the session file ({error}); the conversation goes on in memory and is saved "
        "once writing works again.",
        "无法写入会话文件（{error}）；对话继续保存在内存中，等写入恢复后再存盘。",
    ),
    "auto_compact": (
        "Context is nearly full ({used:,} / {threshold:,} tokens), compacting automatically",
        "上下文接近上限（{used:,} / {threshold:,} tokens），自动压缩中",
    ),
    "mid_turn_compact": (
        "Context filled up during this turn ({used:,} / {threshold:,} tokens), compacting and continuing",
        "本轮执行中上下文接近上限（{used:,} / {threshold:,} tokens），压缩后继续",
    ),
    "auto_compact_failed": ("Automatic compaction failed: {reason}", "自动压缩失败：{reason}"),
    "auto_compact_off": (
        "Automatic compaction failed {n} times in a row and is now off; use /compact to try by hand.",
        "自动压缩连续失败 {n} 次，已停止自动压缩；可以用 /compact 手动压缩。",
    ),
    "thrashing": (
        "The context refills within two turns of every compaction, so automatic compaction is now off. "
        "Try /compact with instructions on what to keep, a larger --context-window, or --compact-at.",
        "每次压缩后不到两轮上下文又满了，已停止自动压缩。"
        "可以试试带说明的 /compact、更大的 --context-window 或 --compact-at。",
    ),
    "nothing_to_compact": ("Nothing to compact.", "没有可压缩的内容。"),
    "compact_empty": ("the model returned an empty summary", "模型返回了空摘要"),
    "compact_tool_call": (
        "the model tried to call a tool instead of writing a summary",
        "模型试图调用工具而不是写摘要",
    ),
    "compact_no_archive": (
        "cannot write the archive folder {path}: {error}; nothing was changed",
        "无法写入存档目录 {path}：{error}；没有做任何改动",
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
    "skipped_lines": (
        "Session file: skipped {n} unreadable line(s): {first}",
        "会话文件：跳过了 {n} 行无法读取的内容：{first}",
    ),
    "mention_notice": ("@{path}: {why}", "@{path}：{why}"),
    # --- cost (issue 14) ---
    "cost_line": (
        "Cost so far: {total} (cache hits {hit:,} tokens {hit_cost}, misses {miss:,} {miss_cost}, "
        "output {out:,} {out_cost}; {model} prices)",
        "累计费用：{total}（缓存命中 {hit:,} tokens {hit_cost}，未命中 {miss:,} {miss_cost}，"
        "输出 {out:,} {out_cost}；按 {model} 价格）",
    ),
    "cost_unknown": (
        "Cost: no prices known for {model} (cache hits {hit:,}, misses {miss:,}, output {out:,} tokens)",
        "费用：不知道 {model} 的价格（缓存命中 {hit:,}，未命中 {miss:,}，输出 {out:,} tokens）",
    ),
    "last_request": (
        "Last request: {tokens:,} prompt tokens, {share:.0f}% served from the prefix cache",
        "上一次请求：输入 {tokens:,} tokens，其中 {share:.0f}% 来自前缀缓存",
    ),
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
    "tier_forced_on": ("--cheap-tier on", "--cheap-tier on"),
    "tier_forced_off": ("--cheap-tier off", "--cheap-tier off"),
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
        "Left out the {n} oldest messages so the request fits the window; the full transcript is archived "
        "at {archive}",
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
}


def t(key: str, lang: str, **values: object) -> str:
    en, zh = TEXTS[key]
    return (zh if lang == "zh" else en).format(**values)


def default_lang() -> str:
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(name)
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    code = (locale.getlocale()[0] or "").lower()
    return "zh" if code.startswith("zh") else "en"
