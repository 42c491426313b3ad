"""Texts of memory files (AGENTS.md, CLAUDE.md, their imports and subfolders', /memory, /init), in English and
Chinese; agent.text.i18n merges them into its table."""

from __future__ import annotations

MEMORY_TEXTS: dict[str, tuple[str, str]] = {
    # key: (en, zh)
    # --- memory files: imports, the user's CLAUDE.md, subfolders ---
    "memory_imported_line": (
        "  {path} · {n:,} tokens · {scope} · imported by {by}",
        "  {path} · {n:,} tokens · {scope} · 由 {by} 导入",
    ),
    "memory_skipped_title": ("Imports not read:", "未读取的导入："),
    "memory_skip_line": ("  @{name} in {importer}: {why}", "  {importer} 中的 @{name}：{why}"),
    "memory_skip_outside": (
        "outside the workspace, which a project's file imports from (your own files may "
        "also import from your home); Claude Code would ask, here it is not read",
        "在工作区之外：项目的文件只能从工作区导入（你自己的文件还可以从你的主目录导入）；"
        "`Claude Code` 会询问，这里不读取",
    ),
    "memory_skip_not_regular": (
        "not a regular file (a FIFO, device or socket) or not readable",
        "不是普通文件（命名管道、设备或套接字），或无法读取",
    ),
    "memory_skip_too_deep": ("more than {n} imports deep", "导入层级超过 {n} 层"),
    "memory_skip_too_large": (
        "over the imports' limit of {n:,} characters in all",
        "超出所有导入合计 {n:,} 个字符的上限",
    ),
    "memory_skipped_start": (
        "{n} @import(s) in the memory files were not read: /memory says which and why",
        "记忆文件中有 {n} 个 @ 导入未被读取：/memory 会列出是哪些以及原因",
    ),
    "nested_memory_title": (
        "Loaded while the model worked in a subfolder (kept after compaction):",
        "模型在子文件夹中工作时载入（压缩后仍保留）：",
    ),
    "nested_memory_loaded": (
        "Loaded {path}: the instructions for the files in its folder",
        "已载入 {path}：其所在文件夹中文件的指令",
    ),
    # --- ! and # at the prompt ---
    "memory_where": (
        "Add it to which memory file? [p] the project's ({project}) · [u] yours ({user}) · anything else: neither ",
        "加入哪个记忆文件？[p] 项目的（{project}）· [u] 你自己的（{user}）· 其他任意键：都不加 ",
    ),
    "memory_not_saved": ("Not saved", "未保存"),
    "memory_saved": (
        "Added to {path}: the model knows it from now on, and every new session reads it",
        "已加入 {path}：模型从现在起知道这一条，之后每个新会话也会读到",
    ),
    "memory_save_failed": ("Not saved to {path}: {error}", "未能保存到 {path}：{error}"),
    "memory_not_plain": (
        "{part} {why}; `#` writes only a plain file, never through a link",
        "{part} {why}；`#` 只写普通文件，绝不经由链接写入",
    ),
    # --- memory files (custom commands: agent.text.i18n_commands) ---
    "cmd_memory": (
        "List the memory files (AGENTS.md, CLAUDE.md) in the instructions, with their sizes",
        "列出指令中包含的记忆文件（`AGENTS.md`、`CLAUDE.md`）及其大小",
    ),
    "cmd_init": (
        "Ask the model to write a starter AGENTS.md for this repository",
        "让模型为这个仓库写一份 `AGENTS.md` 初稿",
    ),
    "memory_title": (
        "Memory files in every request's instructions (compaction never drops them):",
        "每次请求的指令中都包含这些记忆文件（压缩不会丢掉它们）：",
    ),
    "memory_line": ("  {path} · {n:,} tokens · {scope}", "  {path} · {n:,} tokens · {scope}"),
    "memory_scope_user": ("yours", "用户"),
    "memory_scope_project": ("the project's", "项目"),
    "memory_none": (
        "No memory files: none of AGENTS.md or CLAUDE.md from the repository's root down to here, "
        "nor ~/.coding-agent/AGENTS.md. /init writes a starter one.",
        "没有记忆文件：从仓库根目录到当前目录都没有 `AGENTS.md` 或 `CLAUDE.md`，也没有 "
        "`~/.coding-agent/AGENTS.md`。可用 /init 生成一份。",
    ),
    "init_exists": (
        "AGENTS.md exists already: the model is asked to improve it",
        "`AGENTS.md` 已存在：将让模型在其基础上改进",
    ),
}
