"""User-facing texts of the security rules (escaping, approvals, confinement), in English and
Chinese; agent.text.i18n merges them into its table, so `t` finds them."""

from __future__ import annotations

SECURITY_TEXTS: dict[str, tuple[str, str]] = {
    # key: (en, zh)
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
}
