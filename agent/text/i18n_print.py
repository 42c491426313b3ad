"""Texts of -p mode: scripts, Claude Code's flags, what it declines without a person to ask, in English and
Chinese; agent.text.i18n merges them into its table."""

from __future__ import annotations

PRINT_TEXTS: dict[str, tuple[str, str]] = {
    # key: (en, zh)
    "too_large_print": (
        "Not sent. Save it to a file in the workspace and mention it as @file, or use a model with a larger "
        "--context-window.",
        "没有发送。请把它存成工作区里的文件并用 @文件 提及，或换用 --context-window 更大的模型。",
    ),
    "print_declined": (
        "Declined to run `{command}`: -p cannot ask for approval. Rerun with --yes to let it run shell commands.",
        "已拒绝运行 `{command}`：-p 模式无法征求同意。如要允许运行 shell 命令，请加 --yes 重新运行。",
    ),
    "print_declined_write": (
        "Declined to write {command} ({why}): -p cannot ask for approval. Rerun with --yes to allow it.",
        "已拒绝写入 {command}（{why}）：-p 模式无法征求同意。如要允许，请加 --yes 重新运行。",
    ),
    "unknown_tools": (
        "{flag}: {names} is neither a tool ({known}, or Claude Code's name of one: Bash, Read, Edit, ...) nor a "
        "permission rule (Bash(git diff:*), Edit(docs/**), mcp__server__tool)",
        "{flag}：{names} 既不是工具（{known}，或 Claude Code 的工具名：`Bash`、`Read`、`Edit` 等），也不是权限规则"
        "（如 `Bash(git diff:*)`、`Edit(docs/**)`、`mcp__server__tool`）",
    ),
    "stdin_empty": (
        "-p - reads the message from stdin, but stdin was empty",
        "-p - 从标准输入读取消息，但标准输入是空的",
    ),
    # --- -p, as Claude Code's scripts call it ---
    "print_builtin_command": (
        "/{name} is a command of the REPL; -p runs custom commands only (.claude/commands/, .coding-agent/commands/)",
        "/{name} 是交互界面的命令；-p 只运行自定义命令（`.claude/commands/`、`.coding-agent/commands/`）",
    ),
    "print_unknown_command": (
        "Unknown command /{name}: no custom command has that name",
        "未知命令 /{name}：没有这个名字的自定义命令",
    ),
    "print_input_needs_stream": (
        "--input-format stream-json takes its messages from stdin: it needs -p without a prompt and "
        "--output-format stream-json",
        "`--input-format stream-json` 从标准输入读取消息：需要不带提示词的 -p，并使用 `--output-format stream-json`",
    ),
    "print_input_bad_line": (
        "stdin line {n} is not a user message ({error}); it is skipped",
        "标准输入第 {n} 行不是用户消息（{error}），已跳过",
    ),
    "print_prompt_needs_p": (
        "A prompt on the command line needs -p (the REPL starts without one)",
        "命令行上的提示词需要配合 -p 使用（交互界面启动时不带提示词）",
    ),
}
