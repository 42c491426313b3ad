"""Texts of the settings files, permissions, hooks, MCP servers, custom commands and memory files
in English and Chinese; agent.text.i18n merges them into its table."""

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
    "settings_env_refused": (
        "Settings {path}: '{name}' changes how programs load code or where they connect; a project's file may "
        "never set it, approved or not (set it in your own settings or environment)",
        "设置文件 {path}：'{name}' 会改变程序加载代码的方式或连接的地址；项目的设置文件无论是否被信任都不能设置它"
        "（请在你自己的设置文件或环境变量中设置）"),
    "settings_user_only": ("Settings {path}: '{name}' is read from your own settings file only; it is ignored",
                           "设置文件 {path}：'{name}' 只能写在你自己的设置文件中，已忽略"),
    "settings_key_refused": (
        "Settings {path}: '{name}' is an API key; a project's file may not set one (use the environment)",
        "设置文件 {path}：'{name}' 是 API Key；项目的设置文件不能设置它（请用环境变量）"),
    "takes_text": ("a non-empty string", "非空字符串"),
    "takes_whole": ("a whole number, {low} or more", "不小于 {low} 的整数"),
    "takes_flag": ("true or false", "`true` 或 `false`"),
    "takes_choice": ("one of {choices}", "以下之一：{choices}"),
    "takes_env": ("an object of NAME: value", "形如 `NAME: 值` 的对象"),
    "takes_prices": ('an object of model: {{"hit": n, "miss": n, "output": n}} (per 1M tokens, as --prices)',
                     '形如 模型: {{"hit": 数, "miss": 数, "output": 数}} 的对象（每百万词元，同 --prices）'),
    "takes_object": ("an object", "一个对象"),
    "takes_rules": ("a list of rules", "规则列表"),
    "takes_mode": ("one of default / acceptEdits / plan / bypassPermissions",
                   "以下之一：`default` / `acceptEdits` / `plan` / `bypassPermissions`"),
    "cmd_config": ("Show the effective settings and where each came from",
                   "显示生效的设置及每一项的来源"),
    "config_title": ("Settings (a flag beats the environment, which beats local > project > user files; each of "
                     "ours beats Claude Code's of the same place):",
                     "设置（命令行参数优先于环境变量，其次是本地 > 项目 > 用户设置文件；同一位置上本程序的文件"
                     "优先于 Claude Code 的）："),
    "config_files": ("Files:", "设置文件："),
    "config_permissions": (
        "  permission mode {mode} · rules: {allow} allow, {ask} ask, {deny} deny ({waiting} allow waiting for the "
        "project's approval)",
        "  权限模式 {mode} · 规则：允许 {allow} 条、询问 {ask} 条、拒绝 {deny} 条"
        "（另有 {waiting} 条允许规则等待批准项目）"),
    "config_file_found": ("  {layer:<24} {path}", "  {layer:<16} {path}"),
    "config_file_missing": ("  {layer:<24} {path} (none)", "  {layer:<16} {path}（不存在）"),
    "config_source_default": ("default", "默认"),
    "config_source_flag": ("flag", "命令行参数"),
    "config_source_env": ("environment", "环境变量"),
    "config_source_user": ("user file", "用户设置"),
    "config_source_project": ("project file", "项目设置"),
    "config_source_local": ("local file", "本地设置"),
    "config_source_claude-user": ("Claude Code user file", "Claude Code 用户设置"),
    "config_source_claude-project": ("Claude Code project file", "Claude Code 项目设置"),
    "config_source_claude-local": ("Claude Code local file", "Claude Code 本地设置"),
    "config_ignored": ("Not applied here (read, but they mean nothing to this agent or something else):",
                       "未采用（已读取，但对本程序没有意义或含义不同）："),
    "config_ignored_line": ("  {name} ({layer}): {why}", "  {name}（{layer}）：{why}"),
    "ignored_claude_only": ("Claude Code's own setting; nothing here uses it", "Claude Code 自己的设置，本程序不使用"),
    "ignored_model": ("names Claude Code's model; ours comes from --model or .coding-agent/settings.json",
                      "指定的是 Claude Code 的模型；本程序的模型来自 --model 或 `.coding-agent/settings.json`"),
    "ignored_sandbox": ("Claude Code's sandbox settings; ours are `sandbox` in .coding-agent/settings.json and "
                        "--sandbox",
                        "Claude Code 的沙箱设置；本程序的沙箱由 `.coding-agent/settings.json` 的 `sandbox` 和 "
                        "--sandbox 设置"),
    "ignored_language": ("this agent speaks English and Chinese only (en / zh)",
                         "本程序只支持英文和中文（`en` / `zh`）"),
    "ignored_key_helper": ("would run a program for a key; keys come from the environment here",
                           "会运行一个程序来取 Key；本程序的 Key 只来自环境变量"),
    "ignored_mcp_choice": ("a project's MCP servers wait for the one trust question here",
                           "本程序中项目的 MCP 服务器统一由项目信任询问决定是否启用"),
    "ignored_claude_env": ("a variable of Claude Code itself (a key or a switch); not passed to what this agent "
                           "runs",
                           "Claude Code 自己的变量（Key 或开关）；不会传给本程序启动的任何程序"),
    "ignored_no_tool": ("this agent has no {tool} tool; the rule has nothing to apply to",
                        "本程序没有 {tool} 工具，这条规则无处可用"),
    "ignored_hook_event": ("this agent has no such hook event; the hooks do not run",
                           "本程序没有这个钩子事件，这些钩子不会运行"),
    "claude_settings_read": ("Read Claude Code's settings ({files}); {n} setting(s) there mean nothing here and are "
                             "not applied: /config lists them",
                             "已读取 Claude Code 的设置（{files}）；其中 {n} 项对本程序没有意义，未采用："
                             "/config 列出它们"),
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
    "approve_tool": ("Call this tool", "调用这个工具"),
    "approve_read": ("Read this (a permission rule asks before it)", "读取它（有权限规则要求先询问）"),
    "mode_default": ("ask before edits", "编辑前询问"),
    "mode_acceptEdits": ("accept edits", "自动接受编辑"),
    "mode_plan": ("plan mode: read only", "计划模式：只读"),
    "mode_bypassPermissions": ("ask nothing", "不再询问"),
    "mode_changed": ("Permission mode: {mode} ({what})", "权限模式：{mode}（{what}）"),
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
    # --- memory files (custom commands: agent.text.i18n_commands) ---
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
                    "nor ~/.coding-agent/AGENTS.md. /init writes a starter one.",
                    "没有记忆文件：从仓库根目录到当前目录都没有 `AGENTS.md` 或 `CLAUDE.md`，也没有 "
                    "`~/.coding-agent/AGENTS.md`。可用 /init 生成一份。"),
    "init_exists": ("AGENTS.md exists already: the model is asked to improve it",
                    "`AGENTS.md` 已存在：将让模型在其基础上改进"),
})
SETUP_TEXTS.update({
    # --- MCP servers ---
    "mcp_bad": ("MCP config {path}: server '{name}' is not {{\"command\", \"args\", \"env\"}} or "
                "{{\"type\": \"http\", \"url\", \"headers\"}}; it is skipped",
                "MCP 配置 {path}：服务器 '{name}' 的格式不对（应为 `{{\"command\", \"args\", \"env\"}}` 或 "
                "`{{\"type\": \"http\", \"url\", \"headers\"}}`），已跳过"),
    "mcp_failed": ("MCP server {name} stopped working ({error}); the session goes on without its tools. "
                   "/mcp log {name} shows its log, /mcp retry {name} starts it again",
                   "MCP 服务器 {name} 无法工作（{error}）；会话继续，但没有它的工具。"
                   "`/mcp log {name}` 查看它的日志，`/mcp retry {name}` 重新启动它"),
    "mcp_start_timeout": ("MCP server {name} did not start within {seconds} s and is marked failed; turns no "
                          "longer wait for it. /mcp log {name} shows its log, /mcp retry {name} tries again "
                          "(MCP_TIMEOUT sets the wait, in milliseconds)",
                          "MCP 服务器 {name} 在 {seconds} 秒内没有启动，已标记为失败，之后的对话轮次不再等它。"
                          "`/mcp log {name}` 查看它的日志，`/mcp retry {name}` 重试"
                          "（等待时间由 `MCP_TIMEOUT` 设置，单位毫秒）"),
    "mcp_bad_timeout": ("{name}={value} is not a number of milliseconds above 0; the default is used",
                        "{name}={value} 不是大于 0 的毫秒数；使用默认值"),
    "mcp_output_tokens_ignored": ("MAX_MCP_OUTPUT_TOKENS is not read here: an MCP answer is cut like a read_file "
                                  "answer, to a share of the context window, and the whole of it saved for "
                                  "read_file (docs/settings.md)",
                                  "这里不读取 `MAX_MCP_OUTPUT_TOKENS`：MCP 的回答与 `read_file` 的回答一样按"
                                  "上下文窗口的一定比例截断，完整内容另存，可用 `read_file` 分段读取"
                                  "（见 `docs/settings.md`）"),
    "spin_mcp_starting": ("Starting MCP server {names}", "正在启动 MCP 服务器 {names}"),
    "cmd_mcp": ("List the MCP servers, their state and tools; `log NAME` shows a server's log, `retry NAME` "
                "starts it again",
                "列出 MCP 服务器及其状态和工具；`log 名称` 查看某个服务器的日志，`retry 名称` 重新启动它"),
    "cmd_mcp_args": ("[log NAME | retry NAME]", "[`log` 名称 | `retry` 名称]"),
    "mcp_hint_failed": ("    /mcp log {name} shows its log, /mcp retry {name} starts it again",
                        "    `/mcp log {name}` 查看日志，`/mcp retry {name}` 重新启动"),
    "mcp_log_title": ("The last {n} lines of {name}'s log ({path}):", "{name} 的日志最后 {n} 行（{path}）："),
    "mcp_log_none": ("{name} has written nothing yet ({path})", "{name} 还没有写过日志（{path}）"),
    "mcp_unknown": ("No MCP server is named {name}; /mcp lists them", "没有名为 {name} 的 MCP 服务器；/mcp 列出全部"),
    "mcp_usage": ("Usage: /mcp, /mcp log NAME or /mcp retry NAME",
                  "用法：`/mcp`、`/mcp log` 名称 或 `/mcp retry` 名称"),
    "mcp_retry_waiting": ("{name} is the project's and waits for your approval of the project; it starts once "
                          "you approve it (restart the agent to be asked again)",
                          "{name} 属于项目，需要你先批准该项目；批准后才会启动（重新启动本程序会再次询问）"),
    "mcp_retry_starting": ("{name} is starting already", "{name} 已在启动中"),
    "mcp_retry_ready": ("MCP server {name} is ready: {n} tools", "MCP 服务器 {name} 已就绪：{n} 个工具"),
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
