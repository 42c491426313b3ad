"""What /status shows: the session, the context gauge, what compaction did."""

from __future__ import annotations

from rich.text import Text

import session
from agent.gauge import gauge_text, read_gauge
from agent.i18n import t
from agent.state import AppState

BAR_WIDTH = 30


def _bar(used: int, limit: int, window: int) -> Text:
    filled = min(BAR_WIDTH, round(BAR_WIDTH * used / window)) if window else 0
    mark = min(BAR_WIDTH - 1, round(BAR_WIDTH * limit / window)) if window else 0
    bar = Text("[")
    for i in range(BAR_WIDTH):
        char = "|" if i == mark else ("█" if i < filled else "·")
        bar.append(char, style="red" if i < filled and used >= limit else ("green" if i < filled else "dim"))
    bar.append("]")
    return bar


def thinking_mode(state: AppState) -> str:
    cfg = state.config
    zh = state.lang == "zh"
    if not cfg.thinks:
        return "关" if zh else "off"
    if cfg.reasoning_effort:
        return f"开，深度 {cfg.reasoning_effort}" if zh else f"on, effort {cfg.reasoning_effort}"
    if cfg.thinking is None:
        return "开（接口默认）" if zh else "on (the API's default)"
    return "开" if zh else "on"


def status_lines(state: AppState) -> list[Text | str]:
    zh = state.lang == "zh"
    cfg = state.config
    stats = state.stats
    gauge = read_gauge(state)
    used, limit, window = gauge.used or 0, gauge.threshold, gauge.window
    left = max(0.0, 100 * (limit - used) / limit) if limit else 0.0
    known = ("已知" if zh else "known") if cfg.window_known else ("假定" if zh else "assumed")
    hit_pct = 100 * stats.cache_hit_tokens / stats.input_tokens if stats.input_tokens else 0.0
    auto = ("开" if zh else "on") if cfg.auto_compact and not state.auto_compact_off_reason else (
        ("关" if zh else "off") + (f" ({state.auto_compact_off_reason})" if state.auto_compact_off_reason else ""))
    where = (f"自动压缩阈值 {limit:,} · 窗口大小{known} " if zh
             else f"auto-compact at {limit:,} · window size {known} ")
    line = Text(f"{'上下文' if zh else 'Context'}: {gauge_text(gauge, state.lang)} · " + where)
    line.append_text(_bar(used, limit, window))
    session_path = session.session_file(state.session_id, state.workspace)
    lines: list[Text | str] = [
        f"{'模型' if zh else 'Model'}: {cfg.model}   Base URL: {cfg.endpoint}",
        t("status_thinking", state.lang, mode=thinking_mode(state)),
        f"{'会话' if zh else 'Session'}: {state.session_id}   {session_path}",
        f"{'消息' if zh else 'Messages'}: {len(state.history):,}",
        line,
        *([t("status_estimated", state.lang)] if stats.usage_missing else []),
        (f"距离自动压缩还剩 {left:.0f}%（自动压缩：{auto}）" if zh
         else f"{left:.0f}% left until auto-compact (auto-compact: {auto})"),
        (f"Token 用量：{stats.requests} 次请求，输入 {stats.input_tokens:,}（缓存命中 {stats.cache_hit_tokens:,}，"
         f"{hit_pct:.0f}%），输出 {stats.output_tokens:,}" if zh else
         f"Tokens used: {stats.requests} requests, input {stats.input_tokens:,} (prefix-cache hits "
         f"{stats.cache_hit_tokens:,}, {hit_pct:.0f}%), output {stats.output_tokens:,}"),
        (f"压缩：{stats.compactions} 次；摘要花费 {stats.compaction_tokens:,} tokens" if zh
         else f"Compactions: {stats.compactions} (summary requests used {stats.compaction_tokens:,} tokens)"),
        (f"  清理旧工具结果节省 {stats.cheap_tier_saved:,} tokens，{stats.cheap_tier_spared_calls} 次免去了摘要调用；"
         f"摘要节省 {stats.summary_tier_saved:,} tokens" if zh else
         f"  cheap tier (old tool results cleared) saved {stats.cheap_tier_saved:,} tokens and spared "
         f"{stats.cheap_tier_spared_calls} summary call(s); summaries saved {stats.summary_tier_saved:,} tokens"),
    ]
    if stats.last_archive:
        lines.append(f"{'最近存档' if zh else 'Newest archive'}: {stats.last_archive}")
    if state.background is not None:
        lines.append("后台摘要进行中" if zh else "A background summary is being written")
    return lines
