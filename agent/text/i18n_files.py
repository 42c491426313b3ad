"""Texts of what keeps files, paths, fetched pages and hook output in their place (/undo and /rewind
confined, a change shown before it is approved, fetch_url's limits, hook text framed as the hook's),
in English and Chinese; agent.text.i18n merges them into its table."""

from __future__ import annotations

FILES_TEXTS: dict[str, tuple[str, str]] = {
    # key: (en, zh)
    "restore_skipped": (
        "{path}: skipped, {part} {why} (the tree changed since the write; nothing was written through it)",
        "{path}：已跳过，{part} {why}（写入之后目录树变了；没有经由它写入任何内容）",
    ),
    "confined_symlink": ("is now a symlink", "现在是符号链接"),
    "confined_not_folder": ("is no longer a folder", "已不再是文件夹"),
    "confined_not_file": (
        "is not a regular file now (a FIFO, device or socket)", "现在不是普通文件（命名管道、设备或套接字）"),
    "confined_outside": ("is outside the workspace", "在工作区之外"),
    "confined_no_root": ("(the workspace) cannot be opened", "（工作区）无法打开"),
    "diff_too_large": (
        "[no line-by-line diff: {old} old and {new} new lines differ in too many places to compare quickly. "
        "Listed instead: every line the new file adds (+) and every line it drops (-), each after its line number; "
        "lines that only moved are not listed]",
        "[没有逐行差异：旧的 {old} 行与新的 {new} 行差别太多，无法快速比较。改为列出：新文件增加的每一行（+）"
        "和删去的每一行（-），每行前附行号；只是移动位置的行不列出]",
    ),
    "approve_lines_cut": (
        "{n} line(s) shown, its middle cut: NOT shown whole", "显示 {n} 行，中间已截去：并非完整显示"),
    "undo_file_failed": ("Not put back: {line}", "未恢复：{line}"),
}
