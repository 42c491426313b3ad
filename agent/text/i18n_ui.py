"""User-facing texts of the REPL's views and slash commands (/help, /status, /context, the
renderer's labels), in English and Chinese; agent.text.i18n merges them into its table, so `t` finds them.

They were inline `lang == "zh"` branches until issue 15; tests/test_i18n_only.py keeps it so."""

from __future__ import annotations

UI_TEXTS: dict[str, tuple[str, str]] = {
    # key: (en, zh)
    "spin_compacting": ("Compacting the conversation", "压缩上下文"),
    "preview_summary": ("Summary", "摘要"),
    "preview_reasoning": ("Reasoning", "推理"),
    "list_separator": (", ", "、"),
    "repaired_calls": (
        "Session file: closed {n} tool call(s) left without a result (the agent stopped mid-tool)",
        "会话文件：修复了 {n} 处没有结果的工具调用（上次在工具运行中退出）",
    ),
    "unknown_command": ("Unknown command /{name}. Type /help.", "未知命令 /{name}。 输入 /help 查看命令。"),
    "unknown_command_close": (
        "Unknown command /{name}. Did you mean /{close}?",
        "未知命令 /{name}。 你是不是想输入 /{close}？",
    ),
    "cmd_help": ("List the commands", "列出所有命令"),
    "cmd_status": ("Model, session, tokens and context used", "模型、会话、token 用量和上下文占用"),
    "cmd_context": ("What fills the context window, by kind", "上下文窗口里都装了什么（按类别）"),
    "cmd_clear": ("Start a new session", "开始新会话"),
    "cmd_resume": ("List this directory's sessions and pick one", "列出本目录的会话并选择一个"),
    "cmd_undo": ("Undo the last turn: files and conversation", "撤销上一轮：文件和对话"),
    "cmd_compact": (
        "Compact the conversation now; '/compact {undo}' restores the last archive",
        "立即压缩对话；'/compact {undo}' 从最近的存档恢复",
    ),
    "cmd_compact_args": ("[instructions|{undo}|{show}]", "[补充说明|{undo}|{show}]"),
    "cmd_exit": ("Leave the agent", "退出"),
    "help_mention": ("@path — include a file in your message", "@文件路径 — 把文件内容带进消息"),
    "help_keys": (
        "{newline} — new line · {interrupt} — interrupt · {leave} — exit",
        "{newline} — 换行 · {interrupt} — 中断 · {leave} — 退出",
    ),
    "new_session": ("New session: {id}", "新会话：{id}"),
    "no_other_sessions": ("No other sessions.", "没有其他会话。"),
    "resume_number": ("Number: ", "编号："),
    "resumed_session": ("Resumed session {id}", "已恢复会话 {id}"),
    "nothing_to_undo": ("Nothing to undo.", "没有可撤销的轮次。"),
    "undone": ("Undone: {words} ({n} file(s) restored)", "已撤销：{words}（恢复了 {n} 个文件）"),
    "ctx_fixed": ("Instructions + tools", "指令 + 工具定义"),
    "ctx_summary": ("Summary", "摘要"),
    "ctx_restored": ("Restored files", "恢复的文件"),
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
        "Tokens used: {requests} requests, input {input:,} (prefix-cache hits {hits:,}, {pct:.0f}%), "
        "output {output:,}",
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
    "approve_spaces": ("{n} spaces", "{n} 个空格"),
    "tool_failed": ("error", "出错"),
    "diff_more_lines": ("… {n} more lines", "…… 还有 {n} 行"),
}
