"""Texts of a Claude Code user's files and habits: memory imports and subfolders' memory files, the
REPL's `!`, `#`, Esc and `\\` keys, /cost, /permissions, /hooks, /add-dir, /export, /doctor and /review,
in English and Chinese; agent.text.i18n merges them into its table."""

from __future__ import annotations

HABIT_TEXTS: dict[str, tuple[str, str]] = {
    # key: (en, zh)
    # --- memory files: imports, the user's CLAUDE.md, subfolders ---
    "memory_imported_line": ("  {path} · {n:,} tokens · {scope} · imported by {by}",
                             "  {path} · {n:,} tokens · {scope} · 由 {by} 导入"),
    "memory_skipped_title": ("Imports not read:", "未读取的导入："),
    "memory_skip_line": ("  @{name} in {importer}: {why}", "  {importer} 中的 @{name}：{why}"),
    "memory_skip_outside": ("outside the workspace, which a project's file imports from (your own files may "
                            "also import from your home); Claude Code would ask, here it is not read",
                            "在工作区之外：项目的文件只能从工作区导入（你自己的文件还可以从你的主目录导入）；"
                            "`Claude Code` 会询问，这里不读取"),
    "memory_skip_not_regular": ("not a regular file (a FIFO, device or socket) or not readable",
                                "不是普通文件（命名管道、设备或套接字），或无法读取"),
    "memory_skip_too_deep": ("more than {n} imports deep", "导入层级超过 {n} 层"),
    "memory_skip_too_large": ("over the imports' limit of {n:,} characters in all",
                              "超出所有导入合计 {n:,} 个字符的上限"),
    "memory_skipped_start": ("{n} @import(s) in the memory files were not read: /memory says which and why",
                             "记忆文件中有 {n} 个 @ 导入未被读取：/memory 会列出是哪些以及原因"),
    "nested_memory_title": ("Loaded while the model worked in a subfolder (kept after compaction):",
                            "模型在子文件夹中工作时载入（压缩后仍保留）："),
    "nested_memory_loaded": ("Loaded {path}: the instructions for the files in its folder",
                             "已载入 {path}：其所在文件夹中文件的指令"),
    # --- ! and # at the prompt ---
    "quick_usage": ("`!command` runs a shell command; `# note` adds a line to a memory file",
                    "`!命令` 直接运行一条命令；`# 内容` 把一行加入记忆文件"),
    "quick_nul": ("The command holds a NUL byte, which no shell command can", "命令中含有空字节，无法运行"),
    "memory_where": ("Add it to which memory file? [p] the project's ({project}) · [u] yours ({user}) · "
                     "anything else: neither ",
                     "加入哪个记忆文件？[p] 项目的（{project}）· [u] 你自己的（{user}）· 其他任意键：都不加 "),
    "memory_not_saved": ("Not saved", "未保存"),
    "memory_saved": ("Added to {path}: the model knows it from now on, and every new session reads it",
                     "已加入 {path}：模型从现在起知道这一条，之后每个新会话也会读到"),
    "memory_save_failed": ("Not saved to {path}: {error}", "未能保存到 {path}：{error}"),
    "memory_not_plain": ("{part} {why}; `#` writes only a plain file, never through a link",
                         "{part} {why}；`#` 只写普通文件，绝不经由链接写入"),
}
