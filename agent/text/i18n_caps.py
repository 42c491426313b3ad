"""Texts of the capabilities (-p for scripts, the task list, web fetch, images, /model,
/rewind, sub-agents), in English and Chinese; agent.text.i18n merges them into its table."""

from __future__ import annotations

CAPS_TEXTS: dict[str, tuple[str, str]] = {
    # key: (en, zh)
    # -p mode
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
    # web fetch
    "approve_fetch": (
        "Fetch from {domain} (the first time this session; [a]lways allows the domain for the session)",
        "从 {domain} 获取网页（本会话第一次；[a] 本会话一直允许这个域名）",
    ),
    "print_declined_fetch": (
        "Declined to fetch {command}: -p cannot ask for approval. Rerun with `--allowed-tools fetch_url` to allow it.",
        "已拒绝获取 {command}：-p 模式无法征求同意。如要允许，请加 `--allowed-tools fetch_url` 重新运行。",
    ),
    # images
    "image_unsupported": (
        "{path} is an image, and the model {model} does not take images: not sent (start with --images on "
        "if it does)",
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
    # switching the model
    "cmd_model": ("Switch the model for the rest of the session", "本会话接下来改用另一个模型"),
    "cmd_model_args": ("[NAME [WINDOW]]", "[模型名 [窗口]]"),
    "model_bad_window": ("'{value}' is not a window size (e.g. 32768 or 32k)",
                         "'{value}' 不是窗口大小（例如 32768 或 32k）"),
    "cmd_effort": ("How deeply the model thinks from now on", "从现在起模型思考的深度"),
    "cmd_effort_args": ("`high`|`max`|`default`", "`high`|`max`|`default`"),
    "cmd_thinking": ("Thinking mode on or off from now on", "从现在起开启或关闭思考模式"),
    "cmd_thinking_args": ("`on`|`off`|`default`", "`on`|`off`|`default`"),
    "model_now": ("Model: {model} ({window:,} tokens). /model NAME switches.",
                  "模型：{model}（{window:,} tokens）。用 /model 模型名 切换。"),
    "model_switched": ("Switched to {model} · {window}", "已切换到 {model} · {window}"),
    "model_compact_first": (
        "The context ({used:,} tokens) is over {model}'s threshold ({threshold:,}): compacting first",
        "上下文（{used:,} tokens）超过了 {model} 的压缩阈值（{threshold:,}）：先压缩",
    ),
    "model_not_switched": ("Still on the old model: the compaction for {model} failed ({why})",
                           "仍在使用原模型：为 {model} 做的压缩失败了（{why}）"),
    "model_compact_at": (
        "--compact-at {value} does not fit {model}'s window ({window:,} tokens): not switched",
        "--compact-at {value} 不适合 {model} 的窗口（{window:,} tokens）：没有切换",
    ),
    "model_cache_cost": (
        "The next request is not served from {old}'s prefix cache: its {tokens:,} tokens of context cost about "
        "{cold} at the miss price (cached they would cost {warm}); the requests after it are cached again.",
        "下一次请求无法使用 {old} 的前缀缓存：当前 {tokens:,} tokens 的上下文按未命中价约 {cold}"
        "（命中缓存时只要 {warm}）；之后的请求会重新命中缓存。",
    ),
    "model_cache_tokens": (
        "The next request is not served from {old}'s prefix cache: its {tokens:,} tokens of context are all "
        "billed as new input (this model's prices are not known).",
        "下一次请求无法使用 {old} 的前缀缓存：当前 {tokens:,} tokens 的上下文都按新输入计费（不知道这个模型的价格）。",
    ),
    "model_images_in_history": (
        "The conversation holds {n} image(s) and {model} does not take images: its requests will be refused "
        "until they are compacted away (/compact) or rewound (/rewind); or start with --images on if it does.",
        "对话里有 {n} 张图片，而 {model} 不接受图片：在压缩（/compact）或回退（/rewind）掉它们之前请求会被拒绝；"
        "如果它其实支持，请加 `--images on` 启动。",
    ),
    "settings_changed": ("{what}: from the next request on", "{what}：从下一次请求开始生效"),
    "effort_usage": ("/effort takes {choices}", "/effort 的参数：{choices}"),
    "thinking_usage": ("/thinking takes {choices}", "/thinking 的参数：{choices}"),
    # rewind
    "cmd_rewind": ("Go back to before any turn: the conversation, the files, or both",
                   "回到任意一轮之前：对话、文件，或两者"),
    "rewind_nothing": ("No turns to rewind to yet.", "还没有可以回退的轮次。"),
    "rewind_files": ("[files: {files}]", "[文件：{files}]"),
    "rewind_archived": ("(compacted: from the archive)", "（已压缩：来自归档）"),
    "rewind_back_line": ("{answer}. back: the conversation as it was before the last /rewind",
                         "{answer}. 返回：最近一次 /rewind 之前的对话"),
    "rewind_pick": ("Rewind to before which turn? (number, Enter to cancel) ",
                    "回到哪一轮之前？（输入编号，回车取消）"),
    "rewind_what": (
        "Put back [c]onversation, [f]iles or [b]oth? (Enter: both) ",
        "恢复 [c] 对话、[f] 文件，还是 [b] 两者？（回车：两者）",
    ),
    "rewind_files_unknown": (
        "This turn's files are not known to this run (an earlier run, or compacted): only the conversation goes back.",
        "这一轮的文件改动不在本次运行的记录里（更早的运行或已被压缩）：只恢复对话。",
    ),
    "rewind_done": (
        "The conversation is back to before \"{words}\" ({n} messages); what followed is in the archive "
        "(/rewind can come back).",
        "对话已回到“{words}”之前（{n} 条消息）；之后的内容在归档里（/rewind 可以返回）。",
    ),
    "rewind_files_done": ("{n} file(s) put back; /undo puts them as they were before the rewind.",
                          "已恢复 {n} 个文件；/undo 可以还原到回退之前的样子。"),
    "rewind_file_failed": ("Could not put back {line}", "无法恢复 {line}"),
    "rewind_came_back": ("Back to the conversation from before the last rewind ({n} messages).",
                         "已回到最近一次回退之前的对话（{n} 条消息）。"),
    # sub-agents
    "subagent_label": ("sub-agent \"{description}\"", "子代理“{description}”"),
    "subagent_tool": ("  ↳ {label}: {call}", "  ↳ {label}：{call}"),
    "approve_origin": ("{origin} asks: {header}", "{origin} 请求：{header}"),
    "subagent_line": (
        "Sub-agents: {runs} run(s), {requests} requests, {input:,} tokens in ({hit:,} cached), {out:,} out{cost}",
        "子代理：{runs} 次，{requests} 次请求，输入 {input:,} tokens（命中缓存 {hit:,}），输出 {out:,}{cost}",
    ),
    # the task list
    "todo_title": ("Tasks ({done}/{total} done)", "任务清单（已完成 {done}/{total}）"),
    "todo_empty": ("No task list yet: the model makes one for a task of several steps.",
                   "还没有任务清单：遇到多步骤的任务时模型会建立。"),
    "cmd_todos": ("Show the model's task list", "显示模型的任务清单"),
}
