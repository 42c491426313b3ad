"""Texts of /doctor: one verdict per part the session runs on, in English and Chinese; agent.text.i18n merges
them into its table."""

from __future__ import annotations

DOCTOR_TEXTS: dict[str, tuple[str, str]] = {
    # key: (en, zh)
    # --- /doctor ---
    "cmd_doctor": (
        "Check the key, endpoint, window, MCP servers, sandbox and settings files",
        "检查密钥、接口地址、窗口、MCP 服务器、沙箱和设置文件",
    ),
    "doctor_title": ("What this session runs on:", "本会话的运行环境："),
    "doctor_verdict_ok": ("ok", "正常"),
    "doctor_verdict_warn": ("check", "注意"),
    "doctor_verdict_error": ("problem", "有问题"),
    "doctor_verdict_info": ("note", "说明"),
    "doctor_key": ("API key", "API 密钥"),
    "doctor_key_set": (
        "set (held in memory, never written or given to commands)",
        "已设置（只保存在内存中，不写盘，不传给命令）",
    ),
    "doctor_key_missing": ("missing: set DEEPSEEK_API_KEY (or API_KEY)", "缺失：请设置 DEEPSEEK_API_KEY（或 API_KEY）"),
    "doctor_key_none": (
        "none (this endpoint is not DeepSeek's; a local server needs none)",
        "无（该接口不是 DeepSeek 的；本地服务器不需要密钥）",
    ),
    "doctor_endpoint": ("Endpoint", "接口地址"),
    "doctor_endpoint_ok": ("{url} (its host answers)", "{url}（其主机可以连接）"),
    "doctor_endpoint_no": ("{url}: cannot connect: {why}", "{url}：无法连接：{why}"),
    "doctor_window_label": ("Context window", "上下文窗口"),
    "doctor_window": ("{n:,} tokens", "{n:,} 个 token"),
    "doctor_window_guessed": (
        "{n:,} tokens, assumed (the model is not in the price table and the server did not say): set --context-window",
        "{n:,} 个 token，为推测值（价格表中没有该模型，服务器也未告知）：请设置 --context-window",
    ),
    "doctor_mcp_none": (
        "no servers (settings files' mcpServers, .mcp.json)",
        "没有服务器（设置文件的 `mcpServers`、`.mcp.json`）",
    ),
    "doctor_sandbox": ("Sandbox", "沙箱"),
    "doctor_sandbox_none": ("no policy: commands run as they are", "没有策略：命令直接运行"),
    "doctor_settings_read": ("read", "已读取"),
    "doctor_settings_absent": ("not there (nothing to read)", "不存在（无需读取）"),
    "doctor_settings_other": (
        "Claude Code's file: not read by this agent (docs/settings.md says what maps where)",
        "`Claude Code` 的文件：本工具不读取（`docs/settings.md` 说明了对应关系）",
    ),
    "doctor_summary": ("{n} problem(s) above", "以上有 {n} 个问题"),
    "doctor_all_well": ("No problems found", "没有发现问题"),
    "doctor_to_check": ("No problems found; {n} thing(s) to check above", "没有发现问题；以上有 {n} 项需要留意"),
    "doctor_colon": (": ", "："),
}
