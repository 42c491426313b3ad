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
    cfg, lang = state.config, state.lang
    if not cfg.thinks:
        return t("switch_off", lang)
    if cfg.reasoning_effort:
        return t("thinking_effort", lang, effort=cfg.reasoning_effort)
    if cfg.thinking is None:
        return t("thinking_api_default", lang)
    return t("switch_on", lang)


def status_lines(state: AppState) -> list[Text | str]:
    cfg, stats, lang = state.config, state.stats, state.lang
    gauge = read_gauge(state)
    used, limit, window = gauge.used or 0, gauge.threshold, gauge.window
    left = max(0.0, 100 * (limit - used) / limit) if limit else 0.0
    known = t("window_size_known" if cfg.window_known else "window_size_assumed", lang)
    hit_pct = 100 * stats.cache_hit_tokens / stats.input_tokens if stats.input_tokens else 0.0
    off_reason = state.compaction.off_reason
    auto = t("switch_on", lang) if cfg.auto_compact and not off_reason else (
        t("switch_off", lang) + (f" ({off_reason})" if off_reason else ""))
    line = Text(t("status_context", lang, gauge=gauge_text(gauge)) + t("status_where", lang, limit=limit,
                                                                                known=known))
    line.append_text(_bar(used, limit, window))
    session_path = session.session_file(state.session_id, state.workspace)
    lines: list[Text | str] = [
        t("status_model", lang, model=cfg.model, endpoint=cfg.endpoint),
        t("status_thinking", lang, mode=thinking_mode(state)),
        t("status_session", lang, id=state.session_id, path=session_path),
        t("status_messages", lang, n=len(state.history)),
        line,
        *([t("status_estimated", lang)] if stats.usage_missing else []),
        t("status_left", lang, left=left, auto=auto),
        t("status_tokens", lang, requests=stats.requests, input=stats.input_tokens, hits=stats.cache_hit_tokens,
          pct=hit_pct, output=stats.output_tokens),
        t("status_compactions", lang, n=stats.compactions, tokens=stats.compaction_tokens),
        t("status_tiers", lang, cheap=stats.cheap_tier_saved, spared=stats.cheap_tier_spared_calls,
          summary=stats.summary_tier_saved),
    ]
    lines += money_lines(state)
    if stats.last_archive:
        lines.append(t("status_archive", lang, path=stats.last_archive))
    if state.compaction.background is not None:
        lines.append(t("status_background", lang))
    return lines


def money_lines(state: AppState) -> list[Text | str]:
    """What the session cost so far, the last request's cache share, the cheap tier's last choice."""
    stats, lang, model = state.stats, state.lang, state.config.model
    # Since the last /model: what came before is priced at its own model's prices (cost_before_switch).
    hit = stats.cache_hit_tokens - stats.hit_at_switch
    miss = max(0, stats.input_tokens - stats.input_at_switch - hit)
    out = stats.output_tokens - stats.output_at_switch
    prices = policy.prices(state)
    if prices is None:
        lines: list[Text | str] = [t("cost_unknown", lang, model=model, hit=hit, miss=miss, out=out)]
    else:
        def fmt(h: int, m: int, o: int) -> str:
            return cost.format_money(cost.money(h, m, o, prices), prices.currency)

        lines = [t("cost_line", lang, total=fmt(hit, miss, out), hit=hit, hit_cost=fmt(hit, 0, 0), miss=miss,
                   miss_cost=fmt(0, miss, 0), out=out, out_cost=fmt(0, 0, out), model=model)]
    if stats.cost_before_switch:
        lines.append(t("cost_before_switch", lang, amount=cost.format_money(stats.cost_before_switch)))
    if stats.last_input_tokens:
        share = 100 * stats.last_cache_hit_tokens / stats.last_input_tokens
        lines.append(t("last_request", lang, tokens=stats.last_input_tokens, share=share))
    if stats.subagent_runs:
        lines.append(subagent_line(state))
    lines.append(tier_line(state))
    if stats.background_started:
        reasons = ", ".join(f"{why} {n}" for why, n in sorted(stats.background_discarded.items()))
        given_up = t("background_given_up", lang, reasons=reasons) if reasons else ""
        lines.append(t("background_counts", lang, started=stats.background_started, used=stats.background_used,
                       given_up=given_up))
    return lines


def subagent_line(state: AppState) -> str:
    """The sub-agents' requests and tokens (agent.subagent), priced like the agent's own."""
    stats, prices = state.stats, policy.prices(state)
    hit, out = stats.subagent_cache_hit_tokens, stats.subagent_output_tokens
    miss = max(0, stats.subagent_input_tokens - hit)
    amount = f" · {cost.format_money(cost.money(hit, miss, out, prices), prices.currency)}" if prices else ""
    return t("subagent_line", state.lang, runs=stats.subagent_runs, requests=stats.subagent_requests,
             input=stats.subagent_input_tokens, hit=hit, out=out, cost=amount)


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
