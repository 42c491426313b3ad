"""Texts of the settings files, permissions, hooks, MCP servers, custom commands and memory files
(issue 24), in English and Chinese; agent.text.i18n merges them into its table."""

from __future__ import annotations

SETUP_TEXTS: dict[str, tuple[str, str]] = {
    # key: (en, zh)
    # --- settings files ---
    "settings_unreadable": ("Settings {path}: cannot read it ({error}); it is skipped",
                            "设置文件 {path}：无法读取（{error}），已跳过"),
    "settings_bad_json": ("Settings {path}: not valid JSON (line {line}: {error}); it is skipped",
                          "设置文件 {path}：不是有效的 JSON（第 {line} 行：{error}），已跳过"),
    "settings_not_object": ("Settings {path}: the file must hold a JSON object; it is skipped",
                            "设置文件 {path}：内容必须是一个 JSON 对象，已跳过"),
    "settings_unknown_key": ("Settings {path}: unknown key '{name}' is ignored",
                             "设置文件 {path}：未知的键 '{name}'，已忽略"),
    "settings_bad_value": ("Settings {path}: '{name}' takes {takes}; it is ignored",
                           "设置文件 {path}：'{name}' 应为{takes}，已忽略"),
    "settings_key_refused": (
        "Settings {path}: '{name}' is an API key; a project's file may not set one (use the environment)",
        "设置文件 {path}：'{name}' 是 API Key；项目的设置文件不能设置它（请用环境变量）"),
    "takes_text": ("a non-empty string", "非空字符串"),
    "takes_whole": ("a whole number, {low} or more", "不小于 {low} 的整数"),
    "takes_flag": ("true or false", "`true` 或 `false`"),
    "takes_choice": ("one of {choices}", "以下之一：{choices}"),
    "takes_env": ("an object of NAME: value", "形如 `NAME: 值` 的对象"),
    "takes_prices": ("an object of model: {{price: number}}", "形如 模型: {{价格: 数字}} 的对象"),
    "takes_object": ("an object", "一个对象"),
    "takes_rules": ("a list of rules", "规则列表"),
    "takes_mode": ("one of default / acceptEdits / plan / bypassPermissions",
                   "以下之一：`default` / `acceptEdits` / `plan` / `bypassPermissions`"),
    "cmd_config": ("Show the effective settings and where each came from",
                   "显示生效的设置及每一项的来源"),
    "config_title": ("Settings (a flag beats the environment, which beats local > project > user files):",
                     "设置（命令行参数优先于环境变量，其次是本地 > 项目 > 用户设置文件）："),
    "config_files": ("Files:", "设置文件："),
    "config_permissions": (
        "  permission mode {mode} · rules: {allow} allow, {ask} ask, {deny} deny ({waiting} allow waiting for the "
        "project's approval)",
        "  权限模式 {mode} · 规则：允许 {allow} 条、询问 {ask} 条、拒绝 {deny} 条"
        "（另有 {waiting} 条允许规则等待批准项目）"),
    "config_file_found": ("  {layer:<14} {path}", "  {layer:<8} {path}"),
    "config_file_missing": ("  {layer:<14} {path} (none)", "  {layer:<8} {path}（不存在）"),
    "config_source_default": ("default", "默认"),
    "config_source_flag": ("flag", "命令行参数"),
    "config_source_env": ("environment", "环境变量"),
    "config_source_user": ("user file", "用户设置"),
    "config_source_project": ("project file", "项目设置"),
    "config_source_local": ("local file", "本地设置"),
    "config_unset": ("(not set)", "（未设置）"),
}
SETUP_TEXTS.update({
    # --- permissions ---
    "rule_bad": ("Settings {path}: the permission rule {rule!r} is not one this agent knows; it is ignored",
                 "设置文件 {path}：无法识别的权限规则 {rule!r}，已忽略"),
    "rule_bypass_refused": (
        "Settings {path}: a project's file may not set bypassPermissions; the mode stays as it was",
        "设置文件 {path}：项目的设置文件不能设置 `bypassPermissions`，模式保持不变"),
    "rule_saved": ("Saved for this project: {rule} (in {path})", "已为本项目保存：{rule}（在 {path}）"),
    "write_reason_mode": ("an edit (permission mode 'default' asks before every edit; Shift+Tab changes it)",
                          "一次编辑（权限模式 `default` 每次编辑前都会询问；Shift+Tab 可切换）"),
    "approve_tool": ("Call this MCP tool", "调用这个 MCP 工具"),
    "approve_read": ("Read this (a permission rule asks before it)", "读取它（有权限规则要求先询问）"),
    "mode_default": ("ask before edits", "编辑前询问"),
    "mode_acceptEdits": ("accept edits", "自动接受编辑"),
    "mode_plan": ("plan mode: read only", "计划模式：只读"),
    "mode_bypassPermissions": ("ask nothing", "不再询问"),
    "mode_changed": ("Permission mode: {mode} ({what})", "权限模式：{mode}（{what}）"),
})
SETUP_TEXTS.update({
    # --- a project's grants ---
    "trust_intro": ("This project ({path}) asks for what its files would let run:",
                    "这个项目（{path}）的文件要求允许运行以下内容："),
    "trust_question": ("Use them? They can run code on this machine (asked again when they change)",
                       "是否启用？它们可以在本机运行代码（内容变化后会再次询问）"),
    "trust_declined": ("The project's allow rules, hooks and MCP servers are not used in this session",
                       "本次会话不使用该项目的允许规则、钩子和 MCP 服务器"),
    "trust_not_saved": ("Approved for this session only: the approval could not be saved ({error})",
                        "仅本次会话有效：无法保存这次批准（{error}）"),
})
SETUP_TEXTS.update({
    # --- hooks ---
    "hook_unknown_event": ("Settings {path}: hooks for an unknown event '{event}' are ignored",
                           "设置文件 {path}：未知事件 '{event}' 的钩子已忽略"),
    "hook_bad": ("Settings {path}: a hook of {event} is not {{\"matcher\", \"hooks\": [{{\"type\": \"command\", "
                 "\"command\", \"timeout\"}}]}}; it is ignored",
                 "设置文件 {path}：{event} 的一个钩子格式不对（应为 `{{\"matcher\", \"hooks\": [{{\"type\": "
                 "\"command\", \"command\", \"timeout\"}}]}}`），已忽略"),
    "hook_failed": ("Hook {event} failed ({why}): {command}", "{event} 钩子失败（{why}）：{command}"),
    "hook_timed_out": ("timed out after {seconds} s", "{seconds} 秒后超时"),
    "hook_exit": ("exit code {code}: {text}", "退出码 {code}：{text}"),
    "hook_no_reason": ("no reason given", "未给出原因"),
    "hook_blocked_prompt": ("A UserPromptSubmit hook blocked this message (it was not sent): {reason}",
                            "`UserPromptSubmit` 钩子拦下了这条消息（未发送）：{reason}"),
    "hook_blocked_compact": ("a PreCompact hook blocked the compaction: {reason}",
                             "`PreCompact` 钩子阻止了压缩：{reason}"),
    "hook_stopped": ("A hook ended the turn: {reason}", "钩子结束了本轮：{reason}"),
    "hook_stop_continues": ("A Stop hook asks the model to go on: {reason}", "`Stop` 钩子要求模型继续：{reason}"),
})
SETUP_TEXTS.update({
    # --- custom commands, memory files ---
    "custom_command": ("Your command ({path})", "自定义命令（{path}）"),
    "custom_command_args": ("[arguments]", "[参数]"),
    "custom_command_shadowed": ("The command file {path} is not used: /{name} is a built-in command",
                                "命令文件 {path} 未使用：/{name} 是内置命令"),
    "cmd_memory": ("List the memory files (AGENTS.md, CLAUDE.md) in the instructions, with their sizes",
                   "列出指令中包含的记忆文件（`AGENTS.md`、`CLAUDE.md`）及其大小"),
    "cmd_init": ("Ask the model to write a starter AGENTS.md for this repository",
                 "让模型为这个仓库写一份 `AGENTS.md` 初稿"),
    "memory_title": ("Memory files in every request's instructions (compaction never drops them):",
                     "每次请求的指令中都包含这些记忆文件（压缩不会丢掉它们）："),
    "memory_line": ("  {path} · {n:,} tokens · {scope}", "  {path} · {n:,} tokens · {scope}"),
    "memory_scope_user": ("yours", "用户"),
    "memory_scope_project": ("the project's", "项目"),
    "memory_none": ("No memory files: none of AGENTS.md or CLAUDE.md from the repository's root down to here, "
                    "nor ~/.claude/CLAUDE.md or ~/.coding-agent/AGENTS.md. /init writes a starter one.",
                    "没有记忆文件：从仓库根目录到当前目录都没有 `AGENTS.md` 或 `CLAUDE.md`，也没有 "
                    "`~/.claude/CLAUDE.md` 或 `~/.coding-agent/AGENTS.md`。可用 /init 生成一份。"),
    "init_exists": ("AGENTS.md exists already: the model is asked to improve it",
                    "`AGENTS.md` 已存在：将让模型在其基础上改进"),
})
SETUP_TEXTS.update({
    # --- MCP servers ---
    "mcp_bad": ("MCP config {path}: server '{name}' is not {{\"command\", \"args\", \"env\"}} or "
                "{{\"type\": \"http\", \"url\", \"headers\"}}; it is skipped",
                "MCP 配置 {path}：服务器 '{name}' 的格式不对（应为 `{{\"command\", \"args\", \"env\"}}` 或 "
                "`{{\"type\": \"http\", \"url\", \"headers\"}}`），已跳过"),
    "mcp_failed": ("MCP server {name} stopped working ({error}); the session goes on without its tools",
                   "MCP 服务器 {name} 无法工作（{error}）；会话继续，但没有它的工具"),
    "mcp_slow": ("MCP server {name} has not started after {seconds} s; this turn goes on without it",
                 "MCP 服务器 {name} 在 {seconds} 秒内没有启动；本轮先不使用它"),
    "cmd_mcp": ("List the MCP servers, their state and tools", "列出 MCP 服务器及其状态和工具"),
    "mcp_none": ("No MCP servers: add them to .mcp.json or under mcpServers in a settings file",
                 "没有 MCP 服务器：可在 `.mcp.json` 或设置文件的 `mcpServers` 中添加"),
    "mcp_title": ("MCP servers:", "MCP 服务器："),
    "mcp_state_waiting": ("not started (the project's servers wait for your approval)",
                          "未启动（项目的服务器需要你批准）"),
    "mcp_state_starting": ("starting", "启动中"),
    "mcp_state_ready": ("ready", "就绪"),
    "mcp_state_failed": ("failed", "失败"),
    "mcp_state_stopped": ("stopped", "已停止"),
})
