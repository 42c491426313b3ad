"""Texts of the settings files, /config, hooks (/hooks) and /add-dir, in English and Chinese; agent.text.i18n
merges them into its table."""

from __future__ import annotations

SETTINGS_TEXTS: dict[str, tuple[str, str]] = {
    # key: (en, zh)
    # --- /hooks ---
    "cmd_hooks": ("List the hooks of the settings files", "列出设置文件中的钩子"),
    "hooks_none": (
        'No hooks: they are set in the settings files\' "hooks" (docs/settings.md)',
        "没有钩子：钩子写在设置文件的 `hooks` 中（见 `docs/settings.md`）",
    ),
    "hooks_title": ("Hooks (event [matcher] · file · command):", "钩子（事件 [匹配] · 文件 · 命令）："),
    # --- /add-dir ---
    "cmd_add-dir": (
        "Add a folder the tools may read and write as the workspace (no argument: list them)",
        "添加一个工具可以像工作区一样读写的文件夹（不带参数：列出已添加的）",
    ),
    "cmd_add-dir_args": ("[FOLDER]", "[文件夹]"),
    "add_dir_title": ("Folders added to the workspace:", "已加入工作区的文件夹："),
    "add_dir_none": ("No folder added: /add-dir FOLDER adds one", "没有添加文件夹：/add-dir 文件夹 可以添加"),
    "add_dir_done": (
        "Added {folder}: the tools and the sandboxed commands may read and write there, with "
        ".git and the instruction files kept as in the workspace",
        "已添加 {folder}：工具和沙箱中的命令可以读写那里，.git 和指令文件与工作区中一样受保护",
    ),
    "add_dir_refused": ("Not added: {folder}: {why}", "未添加 {folder}：{why}"),
    "add_dir_not_folder": ("not a folder", "不是文件夹"),
    "add_dir_data": (
        "inside the agent's own data folder, which is never writable",
        "位于本工具自己的数据文件夹内，该文件夹永远不可写",
    ),
    "add_dir_everything": ("the whole file system is not a folder to add", "不能把整个文件系统加入"),
    # --- settings files ---
    "settings_unreadable": (
        "Settings {path}: cannot read it ({error}); it is skipped",
        "设置文件 {path}：无法读取（{error}），已跳过",
    ),
    "settings_bad_json": (
        "Settings {path}: not valid JSON (line {line}: {error}); it is skipped",
        "设置文件 {path}：不是有效的 JSON（第 {line} 行：{error}），已跳过",
    ),
    "settings_not_object": (
        "Settings {path}: the file must hold a JSON object; it is skipped",
        "设置文件 {path}：内容必须是一个 JSON 对象，已跳过",
    ),
    "settings_unknown_key": (
        "Settings {path}: unknown key '{name}' is ignored",
        "设置文件 {path}：未知的键 '{name}'，已忽略",
    ),
    "settings_bad_value": (
        "Settings {path}: '{name}' takes {takes}; it is ignored",
        "设置文件 {path}：'{name}' 应为{takes}，已忽略",
    ),
    "settings_env_refused": (
        "Settings {path}: '{name}' changes how programs load code or where they connect; a project's file may "
        "never set it, approved or not (set it in your own settings or environment)",
        "设置文件 {path}：'{name}' 会改变程序加载代码的方式或连接的地址；项目的设置文件无论是否被信任都不能设置它"
        "（请在你自己的设置文件或环境变量中设置）",
    ),
    "settings_user_only": (
        "Settings {path}: '{name}' is read from your own settings file only; it is ignored",
        "设置文件 {path}：'{name}' 只能写在你自己的设置文件中，已忽略",
    ),
    "settings_key_refused": (
        "Settings {path}: '{name}' is an API key; a project's file may not set one (use the environment)",
        "设置文件 {path}：'{name}' 是 API Key；项目的设置文件不能设置它（请用环境变量）",
    ),
    "takes_text": ("a non-empty string", "非空字符串"),
    "takes_whole": ("a whole number, {low} or more", "不小于 {low} 的整数"),
    "takes_flag": ("true or false", "`true` 或 `false`"),
    "takes_choice": ("one of {choices}", "以下之一：{choices}"),
    "takes_env": ("an object of NAME: value", "形如 `NAME: 值` 的对象"),
    "takes_prices": (
        'an object of model: {{"hit": n, "miss": n, "output": n}} (per 1M tokens, as --prices)',
        '形如 模型: {{"hit": 数, "miss": 数, "output": 数}} 的对象（每百万词元，同 --prices）',
    ),
    "takes_object": ("an object", "一个对象"),
    "takes_rules": ("a list of rules", "规则列表"),
    "takes_mode": (
        "one of default / acceptEdits / plan / bypassPermissions",
        "以下之一：`default` / `acceptEdits` / `plan` / `bypassPermissions`",
    ),
    "cmd_config": ("Show the effective settings and where each came from", "显示生效的设置及每一项的来源"),
    "config_title": (
        "Settings (a flag beats the environment, which beats local > project > user files; each of "
        "ours beats Claude Code's of the same place):",
        "设置（命令行参数优先于环境变量，其次是本地 > 项目 > 用户设置文件；同一位置上本程序的文件"
        "优先于 Claude Code 的）：",
    ),
    "config_files": ("Files:", "设置文件："),
    "config_permissions": (
        "  permission mode {mode} · rules: {allow} allow, {ask} ask, {deny} deny ({waiting} allow waiting for the "
        "project's approval)",
        "  权限模式 {mode} · 规则：允许 {allow} 条、询问 {ask} 条、拒绝 {deny} 条"
        "（另有 {waiting} 条允许规则等待批准项目）",
    ),
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
    "config_ignored": (
        "Not applied here (read, but they mean nothing to this agent or something else):",
        "未采用（已读取，但对本程序没有意义或含义不同）：",
    ),
    "config_ignored_line": ("  {name} ({layer}): {why}", "  {name}（{layer}）：{why}"),
    "ignored_claude_only": ("Claude Code's own setting; nothing here uses it", "Claude Code 自己的设置，本程序不使用"),
    "ignored_model": (
        "names Claude Code's model; ours comes from --model or .coding-agent/settings.json",
        "指定的是 Claude Code 的模型；本程序的模型来自 --model 或 `.coding-agent/settings.json`",
    ),
    "ignored_sandbox": (
        "Claude Code's sandbox settings; ours are `sandbox` in .coding-agent/settings.json and --sandbox",
        "Claude Code 的沙箱设置；本程序的沙箱由 `.coding-agent/settings.json` 的 `sandbox` 和 --sandbox 设置",
    ),
    "ignored_language": (
        "this agent speaks English and Chinese only (en / zh)",
        "本程序只支持英文和中文（`en` / `zh`）",
    ),
    "ignored_key_helper": (
        "would run a program for a key; keys come from the environment here",
        "会运行一个程序来取 Key；本程序的 Key 只来自环境变量",
    ),
    "ignored_mcp_choice": (
        "a project's MCP servers wait for the one trust question here",
        "本程序中项目的 MCP 服务器统一由项目信任询问决定是否启用",
    ),
    "ignored_claude_env": (
        "a variable of Claude Code itself (a key or a switch); not passed to what this agent runs",
        "Claude Code 自己的变量（Key 或开关）；不会传给本程序启动的任何程序",
    ),
    "ignored_no_tool": (
        "this agent has no {tool} tool; the rule has nothing to apply to",
        "本程序没有 {tool} 工具，这条规则无处可用",
    ),
    "ignored_hook_event": (
        "this agent has no such hook event; the hooks do not run",
        "本程序没有这个钩子事件，这些钩子不会运行",
    ),
    "claude_settings_read": (
        "Read Claude Code's settings ({files}); {n} setting(s) there mean nothing here and are "
        "not applied: /config lists them",
        "已读取 Claude Code 的设置（{files}）；其中 {n} 项对本程序没有意义，未采用：/config 列出它们",
    ),
    "config_unset": ("(not set)", "（未设置）"),
    # --- hooks ---
    "hook_unknown_event": (
        "Settings {path}: hooks for an unknown event '{event}' are ignored",
        "设置文件 {path}：未知事件 '{event}' 的钩子已忽略",
    ),
    "hook_bad": (
        'Settings {path}: a hook of {event} is not {{"matcher", "hooks": [{{"type": "command", '
        '"command", "timeout"}}]}}; it is ignored',
        '设置文件 {path}：{event} 的一个钩子格式不对（应为 `{{"matcher", "hooks": [{{"type": '
        '"command", "command", "timeout"}}]}}`），已忽略',
    ),
    "hook_failed": ("Hook {event} failed ({why}): {command}", "{event} 钩子失败（{why}）：{command}"),
    "hook_timed_out": ("timed out after {seconds} s", "{seconds} 秒后超时"),
    "hook_exit": ("exit code {code}: {text}", "退出码 {code}：{text}"),
    "hook_no_reason": ("no reason given", "未给出原因"),
    "hook_blocked_prompt": (
        "A UserPromptSubmit hook blocked this message (it was not sent): {reason}",
        "`UserPromptSubmit` 钩子拦下了这条消息（未发送）：{reason}",
    ),
    "hook_blocked_compact": (
        "a PreCompact hook blocked the compaction: {reason}",
        "`PreCompact` 钩子阻止了压缩：{reason}",
    ),
    "hook_stopped": ("A hook ended the turn: {reason}", "钩子结束了本轮：{reason}"),
    "hook_stop_continues": ("A Stop hook asks the model to go on: {reason}", "`Stop` 钩子要求模型继续：{reason}"),
}
