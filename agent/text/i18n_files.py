"""Texts of files and what the tools show of them: parts of a file, paths kept in their place, attachments,
web fetch and images, in English and Chinese; agent.text.i18n merges them into its table."""

from __future__ import annotations

FILES_TEXTS: dict[str, tuple[str, str]] = {
    # key: (en, zh)
    "mention_skipped": ("@{path} skipped: {why}", "@{path} 已跳过：{why}"),
    "mention_dir": (
        "@{path} is a folder, so nothing was attached: mention the files you mean (@{path}/…), "
        "or ask the agent to look in it.",
        "@{path} 是文件夹，没有附上内容：请写出要附上的文件（@{path}/…），或让助手去查看这个文件夹。",
    ),
    "tool_size": ("{lines:,} lines, {chars:,} chars", "{lines:,} 行，{chars:,} 字符"),
    # A part of a file (read_file capped, or from an offset): which lines the model got.
    "tool_read_part": ("lines {first:,}–{last:,} of {total:,}", "第 {first:,}–{last:,} 行，共 {total:,} 行"),
    "lines_above": ("… {n:,} more lines above", "…… 上面还有 {n:,} 行"),
    "exit_code": ("[exit code: {code}]", "[退出码：{code}]"),
    "timed_out": ("[killed: timed out after {seconds} seconds]", "[超时 {seconds} 秒，已终止]"),
    "attached": ("Attached {paths}", "已附上 {paths}"),
    "attached_part": (
        "{path} (lines 1–{last:,}; the model reads the rest as needed)",
        "{path}（第 1–{last:,} 行；其余部分模型按需再读）",
    ),
    "cut_line": (
        "Session file, line {line}: a {mb:.1f} MB message is too large to resume whole; {texts} text(s) in it "
        "were cut to {keep:,} characters ({left_out:,} left out here; the file keeps them).",
        "会话文件第 {line} 行：一条 {mb:.1f} MB 的消息太大，无法完整恢复；其中 {texts} 段文字被截到 "
        "{keep:,} 个字符（这里略去 {left_out:,} 个字符，文件里仍完整保留）。",
    ),
    "approve_fetch": (
        "Fetch from {domain} (the first time this session; [a]lways allows the domain for the session)",
        "从 {domain} 获取网页（本会话第一次；[a] 本会话一直允许这个域名）",
    ),
    "print_declined_fetch": (
        "Declined to fetch {command}: -p cannot ask for approval. Rerun with `--allowed-tools fetch_url` to allow it.",
        "已拒绝获取 {command}：-p 模式无法征求同意。如要允许，请加 `--allowed-tools fetch_url` 重新运行。",
    ),
    "image_unsupported": (
        "{path} is an image, and the model {model} does not take images: not sent (start with --images on if it does)",
        "{path} 是图片，而模型 {model} 不接受图片：没有发送（如果它其实支持，请加 `--images on` 启动）",
    ),
    "image_too_large": (
        "{path} is an image of {size:,} bytes, over the {limit:,} a request may carry: scale it down first",
        "{path} 是 {size:,} 字节的图片，超过一次请求可带的 {limit:,} 字节：请先缩小",
    ),
    "image_unreadable": ("{path} is not an image this agent can read", "{path} 不是本程序能读的图片"),
    "image_not_attached": ("Not attached: {why}", "没有附上：{why}"),
    "image_compacted": (
        "Images shown earlier and not kept by this compaction (read_file a path to see it again): {paths}",
        "之前展示过、这次压缩没有保留的图片（需要时用 `read_file` 重新查看）：{paths}",
    ),
    "restore_skipped": (
        "{path}: skipped, {part} {why} (the tree changed since the write; nothing was written through it)",
        "{path}：已跳过，{part} {why}（写入之后目录树变了；没有经由它写入任何内容）",
    ),
    "confined_symlink": ("is now a symlink", "现在是符号链接"),
    "confined_not_folder": ("is no longer a folder", "已不再是文件夹"),
    "confined_not_file": (
        "is not a regular file now (a FIFO, device or socket)",
        "现在不是普通文件（命名管道、设备或套接字）",
    ),
    "confined_outside": ("is outside the workspace", "在工作区之外"),
    "confined_no_root": ("(the workspace) cannot be opened", "（工作区）无法打开"),
    "undo_file_failed": ("Not put back: {line}", "未恢复：{line}"),
    "tool_failed": ("error", "出错"),
}
