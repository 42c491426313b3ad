"""Texts about models and prices (agent.state.billing, ui.status), merged into agent.text.i18n.TEXTS."""

from __future__ import annotations

PRICE_TEXTS: dict[str, tuple[str, str]] = {
    # key: (en, zh)
    "legacy_model": (
        "{model} is a legacy name: DeepSeek serves it with {served} and bills it at {served}'s prices "
        "(now {prices} per 1M tokens: cache hit/miss/output).",
        "{model} 是旧名称：DeepSeek 用 {served} 提供服务，并按 {served} 的价格计费"
        "（当前每百万 tokens：缓存命中/未命中/输出 {prices}）。",
    ),
    "prices_none": ("unknown", "未知"),
    "prices_now": (
        "Prices now: {prices} per 1M tokens (cache hit/miss/output), {where}",
        "当前价格：每百万 tokens {prices}（缓存命中/未命中/输出），{where}",
    ),
    "prices_peak": ("peak hours", "高峰时段"),
    "prices_off_peak": ("off-peak hours", "闲时时段"),
    "prices_flat": ("the same at every hour", "全天同价"),
    "prices_yours": ("your own prices (--prices)", "你自己设定的价格（--prices）"),
    "status_served": (" (the API answers as {served})", "（接口答复的模型：{served}）"),
    "prices_not_object": (
        "a JSON object of model names, each with hit, miss and output prices per million tokens",
        "应为一个 JSON 对象：以模型名为键，各含每百万 tokens 的 `hit`、`miss`、`output` 价格",
    ),
    "prices_unreadable": ("cannot read {path}: {error}", "无法读取 {path}：{error}"),
    "prices_not_json": ("not valid JSON: {error}", "不是有效的 JSON：{error}"),
    "prices_entry": (
        "{model}: an object with hit, miss and output prices per million tokens",
        "{model}：应为含每百万 tokens 的 `hit`、`miss`、`output` 价格的对象",
    ),
    "prices_unknown_field": (
        "{model}: unknown field(s) {fields} (hit, miss, output, currency)",
        "{model}：未知字段 {fields}（可用 `hit`、`miss`、`output`、`currency`）",
    ),
    "prices_currency": ("{model}: `currency` must be a name such as `USD` or `CNY`",
                        "{model}：`currency` 应为货币名，如 `USD`、`CNY`"),
    "prices_figure": (
        "{model}: {name} must be a price per million tokens (a number ≥ 0), not {value}",
        "{model}：{name} 应为每百万 tokens 的价格（不小于 0 的数），而不是 {value}",
    ),
    "bad_prices": ("--prices / `CODING_AGENT_PRICES`: {error}", "--prices / `CODING_AGENT_PRICES`：{error}"),
}
