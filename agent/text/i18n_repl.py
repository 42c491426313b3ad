"""Texts of the REPL's screen: the prompt and what is typed into it (attachments, `!`, `#`), the spinners and
keys, in English and Chinese; agent.text.i18n merges them into its table."""

from __future__ import annotations

REPL_TEXTS: dict[str, tuple[str, str]] = {
    # key: (en, zh)
    "message_too_large": (
        "This message is about {tokens:,} tokens: with what every request carries (instructions, tools and "
        "the compaction's summary: {fixed:,}) it does not fit "
        "under the auto-compact threshold ({threshold:,} of a {window:,}-token window), and no compaction "
        "can make room for it.",
        "这条消息约 {tokens:,} tokens：加上每次请求都带的内容（指令、工具和压缩留下的摘要：{fixed:,}）"
        "就超过了自动压缩阈值（{threshold:,}，窗口 {window:,}），压缩也腾不出空间。",
    ),
    "attach_question": (
        "Attach it as a file the model reads in parts instead?",
        "改为作为文件附上，让模型分段读取？",
    ),
    "attached_as_file": (
        "Attached as {path}; sent a short message pointing to it.",
        "已作为文件附上：{path}；发送的是指向它的简短消息。",
    ),
    "not_sent": ("Not sent. (Press ↑ to get the message back.)", "没有发送。（按 ↑ 可以取回这条消息。）"),
    "attached_message": (
        "My message was too long to send as it is ({chars:,} characters), so it is attached as a file of "
        "{lines:,} lines: {path}\nRead it with read_file, in parts (offset and limit). It begins: {preview}",
        "我的消息太长（{chars:,} 个字符），无法直接发送，已作为文件附上（共 {lines:,} 行）：{path}\n"
        "请用 `read_file` 分段读取（`offset` 和 `limit`）。开头是：{preview}",
    ),
    "skipped_lines": (
        "Session file: skipped {n} unreadable line(s): {first}",
        "会话文件：跳过了 {n} 行无法读取的内容：{first}",
    ),
    "empty_prompt": (
        '-p needs a message, e.g. -p "explain main.py"',
        '-p 需要一条消息，例如 -p "解释 main.py"',
    ),
    "spin_model": ("Waiting for the model", "等待模型回复"),
    "spin_command": ("Running {command}", "正在运行 {command}"),
    "spin_reasoning": (" ({n:,} chars of reasoning)", "（已推理 {n:,} 字）"),
    # --- ! and # at the prompt ---
    "quick_usage": (
        "`!command` runs a shell command; `# note` adds a line to a memory file",
        "`!命令` 直接运行一条命令；`# 内容` 把一行加入记忆文件",
    ),
    "quick_nul": ("The command holds a NUL byte, which no shell command can", "命令中含有空字节，无法运行"),
    # --- /help's keys line, with Claude Code's habits ---
    "help_habits": (
        "Esc — interrupt · \\ + Enter — new line · !command — run it now · # note — add to a memory file",
        "`Esc` — 中断 · `\\` + `Enter` — 换行 · `!命令` — 直接运行 · `# 内容` — 加入记忆文件",
    ),
    "edit_field_keys": (
        "(Enter: new line · Esc then Enter: done · Ctrl-C: cancel)\n",
        "（`Enter`：换行 · 先按 `Esc` 再按 `Enter`：完成 · `Ctrl-C`：取消）\n",
    ),
}
