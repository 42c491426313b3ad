"""User-facing texts of the REPL's views and slash commands (/help, /status, /context, the
renderer's labels), in English and Chinese; agent.text.i18n merges them into its table, so `t` finds them.

No inline `lang == "zh"` branch anywhere: tests/test_i18n_only.py keeps it so."""

from __future__ import annotations

UI_TEXTS: dict[str, tuple[str, str]] = {
    # key: (en, zh)
    "spin_compacting": ("Compacting the conversation", "压缩上下文"),
    "preview_summary": ("Summary", "摘要"),
    "preview_reasoning": ("Reasoning", "推理"),
    "list_separator": (", ", "、"),
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
        "Compact the conversation now; 'preview' shows the summary first; '/compact {undo}' restores the last archive",
        "立即压缩对话；加 preview 先看摘要；'/compact {undo}' 从最近的存档恢复",
    ),
    "cmd_compact_args": (
        "[instructions|preview [instructions]|{undo}|{show}]",
        "[补充说明|preview [补充说明]|{undo}|{show}]",
    ),
    "preview_title": ("The summary that would replace the conversation:", "将替换当前对话的摘要："),
    "preview_question": ("[a]pply, [e]dit or [c]ancel? ", "[a] 应用、[e] 编辑，还是 [c] 取消？"),
    "preview_no_editor": (
        "Set $EDITOR (or $VISUAL) to edit the summary in your editor.",
        "设置 `$EDITOR`（或 `$VISUAL`）后即可在编辑器里修改摘要。",
    ),
    "preview_editor_failed": ("The editor exited with {code}; the summary is unchanged.",
                              "编辑器以 {code} 退出；摘要未改动。"),
    "compact_preview_cancelled": (
        "Cancelled: the conversation and the session file are unchanged (only the summary request was spent).",
        "已取消：对话和会话文件都没有改动（只花费了一次摘要请求）。",
    ),
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
    "ctx_pins": ("Pinned by you (/pin)", "你固定的内容（/pin）"),
    "cmd_pin": (
        "Keep text, a file (@path) or your message #N verbatim through every compaction; alone, list the pins",
        "把一段文字、一个文件（@路径）或你的第 N 条消息在每次压缩后原样保留；不带参数则列出",
    ),
    "cmd_pin_args": ("[text|@path|#N]", "[文字|@路径|#N]"),
    "cmd_unpin": ("Remove pin N (as /pin lists them)", "移除第 N 个固定项（按 /pin 列出的编号）"),
    "cmd_unpin_args": ("N", "N"),
    "pins_title": ("Pinned (kept verbatim through every compaction):", "已固定（每次压缩后原样保留）："),
    "pins_none": ("Nothing is pinned. /pin <text>, /pin @path or /pin #N pins.",
                  "没有固定项。用 /pin <文字>、/pin @路径 或 /pin #N 固定。"),
    "pin_added": ("Pinned #{n}: {text}", "已固定 #{n}：{text}"),
    "pin_removed": ("Unpinned: {text}", "已取消固定：{text}"),
    "pin_bad_number": ("No pin {n}: /pin lists them.", "没有第 {n} 个固定项：用 /pin 查看。"),
    "pin_bad_message": ("No message #{n}: /rewind numbers your messages 1 to {last}.",
                        "没有第 {n} 条消息：/rewind 把你的消息编为 1 到 {last}。"),
    "pin_bad_file": ("Cannot pin {path}: {why}", "无法固定 {path}：{why}"),
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
