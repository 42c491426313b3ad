"""Texts of the workspace trust: the question about a project's grants, what was used or skipped, /config's
lines, in English and Chinese; agent.text.i18n merges them into its table."""

from __future__ import annotations

TRUST_TEXTS: dict[str, tuple[str, str]] = {
    # key: (en, zh)
    "trust_intro": (
        "This project ({path}) asks for what its files would run, and where they would send traffic:",
        "这个项目（{path}）的文件要求运行以下内容，或把流量发往以下地址：",
    ),
    "trust_question": (
        "Use them? They can run code on this machine and read what you send (asked again when they change)",
        "是否启用？它们可以在本机运行代码，并读取你发送的内容（内容变化后会再次询问）",
    ),
    "trust_declined": (
        "Not used in this session (the project was not approved): {what}",
        "本次会话不使用（项目未获批准）：{what}",
    ),
    "trust_skipped_print": (
        "Not used: the project's {what} (not approved: approve them once in the REPL, or pass --trust-project)",
        "未使用项目的 {what}（未获批准：请先在交互模式中批准一次，或加 --trust-project）",
    ),
    "trust_by_flag": (
        "Using the project's {what} without asking (--trust-project)",
        "未经询问即使用项目的 {what}（--trust-project）",
    ),
    "trust_key_withheld": (
        "The project's baseUrl {url} gets no key: your {name} goes only where a question "
        "named it (approve the project once in the REPL)",
        "项目的 `baseUrl` {url} 不会收到 Key：你的 {name} 只发往在询问中列出并获批准的地址"
        "（请先在交互模式中批准一次该项目）",
    ),
    "trust_not_saved": (
        "Approved for this session only: the approval could not be saved ({error})",
        "仅本次会话有效：无法保存这次批准（{error}）",
    ),
    # --- one grant in a few words ---
    "grant_key_sent": ("your {name} is sent there", "你的 {name} 会发往这里"),
    "grant_no_key": ("no key is sent", "不发送 Key"),
    "grant_protected": ("changes how programs load or connect", "会改变程序的加载方式或连接地址"),
    "grant_env": ("env {names}", "环境变量 {names}"),
    "grant_base_url": ("baseUrl {url}", "`baseUrl` {url}"),
    "grant_allow": ("{n} allow rule(s)", "{n} 条允许规则"),
    "grant_mode": ("defaultMode {mode}", "`defaultMode` {mode}"),
    "grant_hooks": ("{n} hook(s)", "{n} 个钩子"),
    "grant_mcp": ("MCP servers {names}", "MCP 服务器 {names}"),
    "grant_commands": ("the allowed-tools of commands {names}", "命令 {names} 的 `allowed-tools`"),
    # --- /config ---
    "config_project_grants": ("  the project's {what}: {status}", "  项目的 {what}：{status}"),
    "config_grants_used": ("approved, in use", "已批准，正在使用"),
    "config_grants_waiting": ("not approved, not used", "未批准，未使用"),
    "config_env_refused": (
        "  env.{name} ({layer}): never taken from a project's file (it changes how programs load "
        "or connect, or it is a key)",
        "  环境变量 {name}（{layer}）：从不采用项目设置文件中的这一项（它会改变程序的加载方式或连接地址，或者是 Key）",
    ),
}
