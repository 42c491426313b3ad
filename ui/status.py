"""What /status shows: the session, the context gauge, what compaction did."""

from __future__ import annotations

from rich.text import Text

import session
from agent import cost, policy
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
    auto = ("开" if zh else "on") if cfg.auto_compact and not state.compaction.off_reason else (
        ("关" if zh else "off") + (f" ({state.compaction.off_reason})" if state.compaction.off_reason else ""))
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
    lines += money_lines(state)
    if stats.last_archive:
        lines.append(f"{'最近存档' if zh else 'Newest archive'}: {stats.last_archive}")
    if state.compaction.background is not None:
        lines.append("后台摘要进行中" if zh else "A background summary is being written")
    return lines


def money_lines(state: AppState) -> list[Text | str]:
    """What the session cost so far, the last request's cache share, the cheap tier's last choice."""
    stats, lang, model = state.stats, state.lang, state.config.model
    hit = stats.cache_hit_tokens
    miss = max(0, stats.input_tokens - hit)
    out = stats.output_tokens
    prices = policy.prices(state)
    if prices is None:
        lines: list[Text | str] = [t("cost_unknown", lang, model=model, hit=hit, miss=miss, out=out)]
    else:
        def fmt(h: int, m: int, o: int) -> str:
            return cost.format_money(cost.money(h, m, o, prices), prices.currency)

        lines = [t("cost_line", lang, total=fmt(hit, miss, out), hit=hit, hit_cost=fmt(hit, 0, 0), miss=miss,
                   miss_cost=fmt(0, miss, 0), out=out, out_cost=fmt(0, 0, out), model=model)]
    if stats.last_input_tokens:
        share = 100 * stats.last_cache_hit_tokens / stats.last_input_tokens
        lines.append(t("last_request", lang, tokens=stats.last_input_tokens, share=share))
    lines.append(tier_line(state))
    if stats.background_started:
        reasons = ", ".join(f"{why} {n}" for why, n in sorted(stats.background_discarded.items()))
        given_up = t("background_given_up", lang, reasons=reasons) if reasons else ""
        lines.append(t("background_counts", lang, started=stats.background_started, used=stats.background_used,
                       given_up=given_up))
    return lines


def tier_line(state: AppState) -> str:
    stats, lang = state.stats, state.lang
    mode = state.config.cheap_tier
    if not stats.tier_choice:
        return t("tier_none", lang, mode=mode)
    if stats.tier_reason == "cheaper" and stats.tier_clear_cost is not None and stats.tier_summary_cost is not None:
        why = t("tier_cheaper", lang, clear=cost.format_money(stats.tier_clear_cost, stats.tier_currency),
                summary=cost.format_money(stats.tier_summary_cost, stats.tier_currency))
    else:
        why = t(f"tier_{stats.tier_reason}", lang)
    return t("tier_line", lang, mode=stats.tier_mode or mode, choice=t(f"tier_{stats.tier_choice}", lang), why=why)
