"""Texts of issue 25's capabilities (-p for scripts, the task list, web fetch, images, /model,
/rewind, sub-agents), in English and Chinese; agent.i18n merges them into its table."""

from __future__ import annotations

CAPS_TEXTS: dict[str, tuple[str, str]] = {
    # key: (en, zh)
    # -p mode
    "unknown_tools": (
        "Unknown tool(s) {names} in {flag}; the tools are: {known}",
        "{flag} 里有不认识的工具 {names}；可用的工具：{known}",
    ),
    "stdin_empty": (
        "-p - reads the message from stdin, but stdin was empty",
        "-p - 从标准输入读取消息，但标准输入是空的",
    ),
    # web fetch
    "approve_fetch": (
        "Fetch from {domain} (the first time this session; [a]lways allows the domain for the session)",
        "从 {domain} 获取网页（本会话第一次；[a] 本会话一直允许这个域名）",
    ),
    "print_declined_fetch": (
        "Declined to fetch {command}: -p cannot ask for approval. Rerun with --allowed-tools fetch_url to allow it.",
        "已拒绝获取 {command}：-p 模式无法征求同意。如要允许，请加 --allowed-tools fetch_url 重新运行。",
    ),
    # images
    "image_unsupported": (
        "{path} is an image, and the model {model} does not take images: not sent (start with --images on "
        "if it does)",
        "{path} 是图片，而模型 {model} 不接受图片：没有发送（如果它其实支持，请加 --images on 启动）",
    ),
    "image_too_large": (
        "{path} is an image of {size:,} bytes, over the {limit:,} a request may carry: scale it down first",
        "{path} 是 {size:,} 字节的图片，超过一次请求可带的 {limit:,} 字节：请先缩小",
    ),
    "image_unreadable": ("{path} is not an image this agent can read", "{path} 不是本程序能读的图片"),
    "image_not_attached": ("Not attached: {why}", "没有附上：{why}"),
    "image_compacted": (
        "Images shown earlier and not kept by this compaction (read_file a path to see it again): {paths}",
        "之前展示过、这次压缩没有保留的图片（需要时用 read_file 重新查看）：{paths}",
    ),
    # the task list
    "todo_title": ("Tasks ({done}/{total} done)", "任务清单（已完成 {done}/{total}）"),
    "todo_empty": ("No task list yet: the model makes one for a task of several steps.",
                   "还没有任务清单：遇到多步骤的任务时模型会建立。"),
    "cmd_todos": ("Show the model's task list", "显示模型的任务清单"),
}
