"""Texts of the approval question and the permission rules and modes (what runs, what is written, what a rule
asks), and /permissions, in English and Chinese; agent.text.i18n merges them into its table."""

from __future__ import annotations

APPROVAL_TEXTS: dict[str, tuple[str, str]] = {
    # key: (en, zh)
    "approve_run": ("Run command", "运行命令"),
    "approve_write": ("Write to this file, {why}", "写入这个文件，{why}"),
    "approve_lines": ("{n} line(s), shown whole", "共 {n} 行，完整显示"),
    "approve_blank_lines": ("{n} empty lines", "{n} 个空行"),
    "approve_question": (
        "Allow? (the {n} line(s) above) [y]es / [n]o / [a]lways this session / always for this [p]roject: ",
        "允许？（上面 {n} 行）[y]是 / [n]否 / [a]本会话一直允许 / [p]本项目一直允许: ",
    ),
    "write_reason_git": (
        "a file under .git/ (git runs the programs its config and hooks name)",
        "这是 `.git/` 下的文件（`git` 会运行其配置和钩子指定的程序）",
    ),
    "write_reason_links": (
        "a file with {n} hard links (another name may be outside the workspace); "
        "this name gets the new content, the other names keep the old",
        "这个文件有 {n} 个硬链接（别的名字可能在工作区之外）；新内容只写到这个名字，其他名字保留旧内容",
    ),
    "diff_too_large": (
        "[no line-by-line diff: {old} old and {new} new lines differ in too many places to compare quickly. "
        "Listed instead: every line the new file adds (+) and every line it drops (-), each after its line number; "
        "lines that only moved are not listed]",
        "[没有逐行差异：旧的 {old} 行与新的 {new} 行差别太多，无法快速比较。改为列出：新文件增加的每一行（+）"
        "和删去的每一行（-），每行前附行号；只是移动位置的行不列出]",
    ),
    "approve_lines_cut": (
        "{n} line(s) shown, its middle cut: NOT shown whole",
        "显示 {n} 行，中间已截去：并非完整显示",
    ),
    # --- /permissions ---
    "cmd_permissions": (
        "List the permission rules; add or remove one (in your settings or the project's local file)",
        "列出权限规则；添加或删除一条（写入你的设置文件或项目的本地设置文件）",
    ),
    "cmd_permissions_args": (
        "[add allow|ask|deny RULE | remove N|RULE]",
        "[`add allow|ask|deny` 规则 | `remove` 编号|规则]",
    ),
    "permissions_title": (
        "Permission rules (mode: {mode}; deny first, then ask, then allow):",
        "权限规则（模式：{mode}；先看 `deny`，再看 `ask`，最后 `allow`）：",
    ),
    "permissions_none": ("  no rules", "  没有规则"),
    "permissions_session": ("this session only", "仅本会话"),
    "permissions_waiting": ("waits for your approval of the project", "等待你批准该项目"),
    "permissions_usage": (
        "/permissions add allow|ask|deny RULE · /permissions remove N|RULE (e.g. /permissions add deny Read(./.env))",
        "`/permissions add allow|ask|deny` 规则 · `/permissions remove` 编号|规则（例如 "
        "`/permissions add deny Read(./.env)`）",
    ),
    "permissions_bad_rule": ("Not a rule this agent can read: {rule}", "无法识别的规则：{rule}"),
    "permissions_where": (
        "Save it where? [l] the project's local file ({local}) · [u] yours ({user}) · anything else: nowhere ",
        "保存到哪里？[l] 项目的本地文件（{local}）· [u] 你自己的（{user}）· 其他任意键：不保存 ",
    ),
    "permissions_not_added": ("Not added", "未添加"),
    "permissions_added": (
        "Added {kind} {rule} to {path}: it counts from now on",
        "已把 {kind} {rule} 加入 {path}：从现在起生效",
    ),
    "permissions_not_saved": ("Could not write {path}: {error}", "无法写入 {path}：{error}"),
    "permissions_no_such": (
        "No rule {which}: /permissions lists them with their numbers",
        "没有规则 {which}：/permissions 会列出规则及其编号",
    ),
    "permissions_removed": ("Removed {kind} {rule} (from {path})", "已删除 {kind} {rule}（来自 {path}）"),
    "permissions_still_in_file": (
        "It is also written in {path}, which /permissions does not edit: the next "
        "session reads it again unless you take it out there",
        "它也写在 {path} 中，/permissions 不修改该文件：除非你在那里删除，下一个会话还会读到它",
    ),
    "answer_y_or_n": (
        "'{answer}' is not an answer: type y or n (Enter: n).",
        "“{answer}”不是回答：请输入 y 或 n（回车：n）。",
    ),
    "answer_taken_as_no": ("Taken as no.", "按“否”处理。"),
    "approve_change": ("The change", "改动"),
    "write_reason_git_shape": (
        "a file that makes a git repository here, or points git at one (git runs the programs its config "
        "names when anyone runs git in this folder)",
        "这个文件会在此处构成一个 git 仓库，或让 git 指向一个仓库（任何人在这个文件夹里运行 git 时，"
        "git 会运行其配置指定的程序）",
    ),
    "write_reason_instructions": (
        "an instructions file (the next session reads its text as rules for the model)",
        "这是指令文件（下一个会话会把其内容当作给模型的规则）",
    ),
    # --- permissions ---
    "rule_bad": (
        "Settings {path}: the permission rule {rule!r} is not one this agent knows; it is ignored",
        "设置文件 {path}：无法识别的权限规则 {rule!r}，已忽略",
    ),
    "rule_bypass_refused": (
        "Settings {path}: a project's file may not set bypassPermissions; the mode stays as it was",
        "设置文件 {path}：项目的设置文件不能设置 `bypassPermissions`，模式保持不变",
    ),
    "rule_saved": ("Saved for this project: {rule} (in {path})", "已为本项目保存：{rule}（在 {path}）"),
    "write_reason_mode": (
        "an edit (permission mode 'default' asks before every edit; Shift+Tab changes it)",
        "一次编辑（权限模式 `default` 每次编辑前都会询问；Shift+Tab 可切换）",
    ),
    "approve_tool": ("Call this tool", "调用这个工具"),
    "approve_read": ("Read this (a permission rule asks before it)", "读取它（有权限规则要求先询问）"),
    "mode_default": ("ask before edits", "编辑前询问"),
    "mode_acceptEdits": ("accept edits", "自动接受编辑"),
    "mode_plan": ("plan mode: read only", "计划模式：只读"),
    "mode_bypassPermissions": ("ask nothing", "不再询问"),
    "mode_changed": ("Permission mode: {mode} ({what})", "权限模式：{mode}（{what}）"),
    "approve_spaces": ("{n} spaces", "{n} 个空格"),
    "diff_more_lines": ("… {n} more lines", "…… 还有 {n} 行"),
}
