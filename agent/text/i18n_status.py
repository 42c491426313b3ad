"""Texts of /status, /cost, /context and the toolbar: tokens, the context, models and prices, in English and
Chinese; agent.text.i18n merges them into its table."""

from __future__ import annotations

STATUS_TEXTS: dict[str, tuple[str, str]] = {
    # key: (en, zh)
    "bad_window": (
        "--context-window must be a positive number of tokens, not {value}",
        "--context-window 必须是正的 token 数，而不是 {value}",
    ),
    "toolbar_context": ("context {gauge}", "上下文 {gauge}"),
    "window_known": ("window {n:,}", "窗口 {n:,}"),
    "window_assumed": ("window {n:,} (assumed)", "窗口 {n:,}（假定）"),
    # --- today's DeepSeek API and local servers ---
    "status_thinking": ("Thinking: {mode}", "思考模式：{mode}"),
    "status_estimated": (
        "  (estimated: the server reports no token usage; counted with the DeepSeek tokenizer)",
        "  （估算值：服务器没有返回 token 用量，用 DeepSeek 分词器计数）",
    ),
    # --- cost ---
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
    # --- /cost ---
    "cmd_cost": ("What this session has used and cost so far", "本会话到目前为止的用量和花费"),
    "cost_title": ("This session:", "本会话："),
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
    "prices_currency": (
        "{model}: `currency` must be a name such as `USD` or `CNY`",
        "{model}：`currency` 应为货币名，如 `USD`、`CNY`",
    ),
    "prices_figure": (
        "{model}: {name} must be a price per million tokens (a number ≥ 0), not {value}",
        "{model}：{name} 应为每百万 tokens 的价格（不小于 0 的数），而不是 {value}",
    ),
    "bad_prices": ("--prices / `CODING_AGENT_PRICES`: {error}", "--prices / `CODING_AGENT_PRICES`：{error}"),
    "ctx_fixed": ("Instructions + tools", "指令 + 工具定义"),
    "ctx_summary": ("Summary", "摘要"),
    "ctx_restored": ("Restored files", "恢复的文件"),
    "ctx_pins": ("Pinned by you (/pin)", "你固定的内容（/pin）"),
    "ctx_user": ("User messages", "用户消息"),
    "ctx_assistant": ("Assistant (text, thinking, tool calls)", "助手（文本、思考、工具调用）"),
    "ctx_tool": ("Tool results: {name}", "工具结果：{name}"),
    "ctx_free": ("Free", "空闲"),
    "ctx_head": (
        "Context: {used:,} / {window:,} tokens ({pct:.1f}%; auto-compact at {limit:,}) ",
        "上下文: {used:,} / {window:,} tokens ({pct:.1f}%; 自动压缩阈值 {limit:,}) ",
    ),
    "ctx_tokens_column": ("Tokens", "token 数"),
    "ctx_share_column": ("% of window", "% 占窗口"),
    "switch_on": ("on", "开"),
    "switch_off": ("off", "关"),
    "thinking_effort": ("on, effort {effort}", "开，深度 {effort}"),
    "thinking_api_default": ("on (the API's default)", "开（接口默认）"),
    "window_size_known": ("known", "已知"),
    "window_size_assumed": ("assumed", "假定"),
    "status_where": (
        "auto-compact at {limit:,} · window size {known} ",
        "自动压缩阈值 {limit:,} · 窗口大小{known} ",
    ),
    "status_context": ("Context: {gauge} · ", "上下文: {gauge} · "),
    "status_model": ("Model: {model}   Base URL: {endpoint}", "模型: {model}   接口地址: {endpoint}"),
    "status_session": ("Session: {id}   {path}", "会话: {id}   {path}"),
    "status_messages": ("Messages: {n:,}", "消息: {n:,}"),
    "status_left": (
        "{left:.0f}% left until auto-compact (auto-compact: {auto})",
        "距离自动压缩还剩 {left:.0f}%（自动压缩：{auto}）",
    ),
    "status_tokens": (
        "Tokens used: {requests} requests, input {input:,} (prefix-cache hits {hits:,}, {pct:.0f}%), output {output:,}",
        "token 用量：{requests} 次请求，输入 {input:,}（缓存命中 {hits:,}，{pct:.0f}%），输出 {output:,}",
    ),
    "status_compactions": (
        "Compactions: {n} (summary requests used {tokens:,} tokens)",
        "压缩：{n} 次；摘要花费 {tokens:,} tokens",
    ),
    "status_tiers": (
        "  cheap tier (old tool results cleared) saved {cheap:,} tokens and spared {spared} summary call(s); "
        "summaries saved {summary:,} tokens",
        "  清理旧工具结果节省 {cheap:,} tokens，{spared} 次免去了摘要调用；摘要节省 {summary:,} tokens",
    ),
    "status_archive": ("Newest archive: {path}", "最近存档: {path}"),
    "status_background": ("A background summary is being written", "后台摘要进行中"),
}
