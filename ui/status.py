"""What /status shows: the session, the context gauge, what compaction did."""

from __future__ import annotations

from rich.text import Text

import session
from agent.compaction import backoff_text
from agent.provider import prices
from agent.state import billing
from agent.state.app import AppState
from agent.text.i18n import t
from agent.tools.sandbox.status import status_line as sandbox_status
from ui.gauge import gauge_text, read_gauge
from ui.registry import COMPACT_UNDO

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
    auto = (
        t("switch_on", lang)
        if cfg.auto_compact and not off_reason
        else (t("switch_off", lang) + (f" ({off_reason})" if off_reason else ""))
    )
    if cfg.auto_compact and not off_reason and (backed_off := backoff_text(state)):
        auto = f"{auto} ({backed_off})"
    line = Text(t("status_context", lang, gauge=gauge_text(gauge)) + t("status_where", lang, limit=limit, known=known))
    line.append_text(_bar(used, limit, window))
    session_path = session.session_file(state.session_id, state.workspace)
    lines: list[Text | str] = [
        t("status_model", lang, model=cfg.model, endpoint=cfg.endpoint) + served_text(state),
        t("status_thinking", lang, mode=thinking_mode(state)),
        *([sandbox] if (sandbox := sandbox_status(cfg, state.workspace, lang)) else []),
        t("status_session", lang, id=state.session_id, path=session_path),
        t("status_messages", lang, n=len(state.history)),
        line,
        *([t("status_estimated", lang)] if stats.usage_missing else []),
        t("status_left", lang, left=left, auto=auto),
        t(
            "status_tokens",
            lang,
            requests=stats.requests,
            input=stats.input_tokens,
            hits=stats.cache_hit_tokens,
            pct=hit_pct,
            output=stats.output_tokens,
        ),
        t("status_compactions", lang, n=stats.compactions, tokens=stats.compaction_tokens),
        t(
            "status_tiers",
            lang,
            cheap=stats.cheap_tier_saved,
            spared=stats.cheap_tier_spared_calls,
            summary=stats.summary_tier_saved,
        ),
    ]
    lines.append(
        t(
            "status_troubles",
            lang,
            failures=stats.compaction_failures,
            left_out=stats.left_out_messages,
            refused=stats.refused_requests,
            margin=100 * (max(1.0, stats.count_ratio) - 1),
        )
    )
    lines += money_lines(state)
    if stats.last_archive:
        lines.append(t("status_archive", lang, path=stats.last_archive))
    if stats.last_undo:
        lines.append(t("status_last_undo", lang, path=stats.last_undo, undo=COMPACT_UNDO))
    if state.compaction.background is not None:
        lines.append(t("status_background", lang))
    return lines


def served_text(state: AppState) -> str:
    """The model version the API reports having answered with, when it is not the name asked for."""
    served = state.stats.served_model
    return t("status_served", state.lang, served=served) if served and served != state.config.model else ""


def money_lines(state: AppState) -> list[Text | str]:
    """What the session cost so far (each request at its time's prices), the prices now and whether
    this is a peak hour, the last request's cache share, the cheap tier's last choice."""
    stats, lang, model = state.stats, state.lang, state.config.model
    hit = stats.cache_hit_tokens
    miss = max(0, stats.input_tokens - hit)
    out = stats.output_tokens
    now = billing.prices_now_line(state.config, lang)
    if now is None and not stats.priced_requests:
        lines: list[Text | str] = [t("cost_unknown", lang, model=model, hit=hit, miss=miss, out=out)]
    else:
        price = prices.now(state.config)
        currency = stats.cost_currency or (price.currency if price else "")

        def fmt(amount: float) -> str:
            return prices.format_money(amount, currency)

        total = stats.cost_hit + stats.cost_miss + stats.cost_output
        lines = [
            t(
                "cost_line",
                lang,
                total=fmt(total),
                hit=hit,
                hit_cost=fmt(stats.cost_hit),
                miss=miss,
                miss_cost=fmt(stats.cost_miss),
                out=out,
                out_cost=fmt(stats.cost_output),
                model=model,
            )
        ]
    if now is not None:
        lines.append(now)
    if stats.last_input_tokens:
        share = 100 * stats.last_cache_hit_tokens / stats.last_input_tokens
        lines.append(t("last_request", lang, tokens=stats.last_input_tokens, share=share))
    if stats.subagent_runs:
        lines.append(subagent_line(state))
    lines.append(tier_line(state))
    if stats.background_started:
        reasons = ", ".join(f"{why} {n}" for why, n in sorted(stats.background_discarded.items()))
        given_up = t("background_given_up", lang, reasons=reasons) if reasons else ""
        lines.append(
            t(
                "background_counts",
                lang,
                started=stats.background_started,
                used=stats.background_used,
                given_up=given_up,
            )
        )
    return lines


def subagent_line(state: AppState) -> str:
    """The sub-agents' requests and tokens (agent.tools.subagent), priced like the agent's own."""
    stats, price = state.stats, prices.now(state.config)
    hit, out = stats.subagent_cache_hit_tokens, stats.subagent_output_tokens
    miss = max(0, stats.subagent_input_tokens - hit)
    amount = f" · {prices.format_money(prices.money(hit, miss, out, price), price.currency)}" if price else ""
    return t(
        "subagent_line",
        state.lang,
        runs=stats.subagent_runs,
        requests=stats.subagent_requests,
        input=stats.subagent_input_tokens,
        hit=hit,
        out=out,
        cost=amount,
    )


def tier_line(state: AppState) -> str:
    stats, lang = state.stats, state.lang
    mode = state.config.cheap_tier
    if not stats.tier_choice:
        return t("tier_none", lang, mode=mode)
    if stats.tier_reason == "cheaper" and stats.tier_clear_cost is not None and stats.tier_summary_cost is not None:
        why = t(
            "tier_cheaper",
            lang,
            clear=prices.format_money(stats.tier_clear_cost, stats.tier_currency),
            summary=prices.format_money(stats.tier_summary_cost, stats.tier_currency),
        )
    else:
        why = t(f"tier_{stats.tier_reason}", lang)
    return t("tier_line", lang, mode=stats.tier_mode or mode, choice=t(f"tier_{stats.tier_choice}", lang), why=why)
