"""Texts of the slash commands' own lines (/help, the command list, /pin, /export, /review, /rewind, the task
list) and of custom commands and sub-agents, in English and Chinese; agent.text.i18n merges them into its
table."""

from __future__ import annotations

COMMANDS_TEXTS: dict[str, tuple[str, str]] = {
    # key: (en, zh)
    "cmd_rewind": (
        "Go back to before any turn: the conversation, the files, or both",
        "回到任意一轮之前：对话、文件，或两者",
    ),
    "rewind_nothing": ("No turns to rewind to yet.", "还没有可以回退的轮次。"),
    "rewind_files": ("[files: {files}]", "[文件：{files}]"),
    "rewind_archived": ("(compacted: from the archive)", "（已压缩：来自归档）"),
    "rewind_back_line": (
        "{answer}. back: the conversation as it was before the last /rewind",
        "{answer}. 返回：最近一次 /rewind 之前的对话",
    ),
    "rewind_pick": (
        "Rewind to before which turn? (number, Enter to cancel) ",
        "回到哪一轮之前？（输入编号，回车取消）",
    ),
    "rewind_what": (
        "Put back [c]onversation, [f]iles or [b]oth? (Enter: both) ",
        "恢复 [c] 对话、[f] 文件，还是 [b] 两者？（回车：两者）",
    ),
    "rewind_files_unknown": (
        "This turn's files are not known to this run (an earlier run, or compacted): only the conversation goes back.",
        "这一轮的文件改动不在本次运行的记录里（更早的运行或已被压缩）：只恢复对话。",
    ),
    "rewind_done": (
        'The conversation is back to before "{words}" ({n} messages); what followed is in the archive '
        "(/rewind can come back).",
        "对话已回到“{words}”之前（{n} 条消息）；之后的内容在归档里（/rewind 可以返回）。",
    ),
    "rewind_files_done": (
        "{n} file(s) put back; /undo puts them as they were before the rewind.",
        "已恢复 {n} 个文件；/undo 可以还原到回退之前的样子。",
    ),
    "rewind_file_failed": ("Could not put back {line}", "无法恢复 {line}"),
    "rewind_came_back": (
        "Back to the conversation from before the last rewind ({n} messages).",
        "已回到最近一次回退之前的对话（{n} 条消息）。",
    ),
    "subagent_label": ('sub-agent "{description}"', "子代理“{description}”"),
    "subagent_tool": ("  ↳ {label}: {call}", "  ↳ {label}：{call}"),
    "approve_origin": ("{origin} asks: {header}", "{origin} 请求：{header}"),
    "subagent_line": (
        "Sub-agents: {runs} run(s), {requests} requests, {input:,} tokens in ({hit:,} cached), {out:,} out{cost}",
        "子代理：{runs} 次，{requests} 次请求，输入 {input:,} tokens（命中缓存 {hit:,}），输出 {out:,}{cost}",
    ),
    "todo_title": ("Tasks ({done}/{total} done)", "任务清单（已完成 {done}/{total}）"),
    "todo_empty": (
        "No task list yet: the model makes one for a task of several steps.",
        "还没有任务清单：遇到多步骤的任务时模型会建立。",
    ),
    "cmd_todos": ("Show the model's task list", "显示模型的任务清单"),
    # --- custom commands ---
    "custom_command": ("Your command ({path})", "自定义命令（{path}）"),
    "custom_command_args": ("[arguments]", "[参数]"),
    "custom_command_shadowed": (
        "The command file {path} is not used: /{name} is a built-in command",
        "命令文件 {path} 未使用：/{name} 是内置命令",
    ),
    "command_grants_untrusted": (
        "/{name} comes from this project, which you have not trusted: its allowed-tools ({rules}) are not "
        "granted, so each of its commands is asked",
        "/{name} 来自这个项目，而你尚未信任该项目：它的 `allowed-tools`（{rules}）不生效，它要运行的命令会逐条询问你",
    ),
    "command_rule_ignored": (
        "/{name}: allowed-tools '{rule}' is not a rule this agent knows; it is ignored",
        "/{name}：`allowed-tools` 中的 '{rule}' 不是本工具认识的规则，已忽略",
    ),
    "command_inline_ran": ("! {command} ({n} lines put into the prompt)", "! {command}（{n} 行输出已放入提示词）"),
    "command_inline_declined": ("/{name}: !`{command}` was not run", "/{name}：没有运行 !`{command}`"),
    "command_not_sent": (
        "/{name} was not sent: its prompt needs the output of the command it could not run",
        "/{name} 没有发送：它的提示词需要那条未运行命令的输出",
    ),
    "command_model": (
        "/{name} runs with the model {model} (its file says so), for this turn only",
        "/{name} 按其文件的设置使用模型 {model}，仅限本轮",
    ),
    "command_model_claude": (
        "/{name} asks for {model}, one of Claude's models, which this endpoint does not serve: it runs with {current}",
        "/{name} 要求使用 Claude 的模型 {model}，当前接口不提供：改用 {current} 运行",
    ),
    "command_model_not_used": (
        "/{name} asks for the model {model}, not used: {why}. It runs with the session's model",
        "/{name} 要求使用模型 {model}，未采用：{why}。改用会话当前的模型运行",
    ),
    "command_model_small": (
        "its window ({window:,} tokens) is smaller than the context now",
        "它的窗口（{window:,} tokens）小于当前上下文",
    ),
    # --- sub-agents ---
    "cmd_agents": (
        "List the sub-agents of .claude/agents/ and ~/.claude/agents/ that the task tool runs",
        "列出 `.claude/agents/` 与 `~/.claude/agents/` 中定义的子代理（`task` 工具运行它们）",
    ),
    "agents_none": (
        "No sub-agents are defined: one Markdown file each in .claude/agents/ or .coding-agent/agents/ "
        "(yours: ~/.claude/agents/).",
        "没有定义子代理：每个子代理一个 Markdown 文件，放在 `.claude/agents/` 或 `.coding-agent/agents/`"
        "（你自己的：`~/.claude/agents/`）。",
    ),
    "agents_title": (
        "Sub-agents the model may hand a job to (task, subagent_type = the name):",
        "模型可以把任务交给这些子代理（`task` 工具，`subagent_type` 填名字）：",
    ),
    "agents_line": ("  {name} · {scope} · {path}", "  {name} · {scope} · {path}"),
    "agents_detail": ("    tools: {tools} · model: {model}", "    工具：{tools} · 模型：{model}"),
    "agents_all_tools": ("every tool a sub-agent may have", "子代理可用的全部工具"),
    "agents_inherit": ("the session's", "与会话相同"),
    "agents_claude_model": ("{model} (Claude's: runs with the session's)", "{model}（Claude 的模型：改用会话的模型）"),
    # --- /export ---
    "cmd_export": (
        "Write the conversation as Markdown to a file (default: SESSION.md in the workspace)",
        "把对话以 Markdown 写入文件（默认：工作区中的 `会话ID.md`）",
    ),
    "cmd_export_args": ("[FILE]", "[文件]"),
    "export_heading": ("Conversation", "对话"),
    "export_user": ("User", "用户"),
    "export_assistant": ("Assistant", "助手"),
    "export_not_text": ("(an image or file)", "（图片或文件）"),
    "export_cut": ("[... {n:,} more characters in the session file]", "[…… 会话文件中还有 {n:,} 个字符]"),
    "export_exists": (
        "{path} already exists: not overwritten (give another name)",
        "{path} 已存在：不覆盖（请换一个文件名）",
    ),
    "export_failed": ("Could not write {path}: {error}", "无法写入 {path}：{error}"),
    "export_done": ("Wrote {n} messages to {path}", "已把 {n} 条消息写入 {path}"),
    # --- /review ---
    "cmd_review": (
        "Ask the model to review the working tree's changes (git diff HEAD)",
        "让模型审查工作区中的改动（`git diff HEAD`）",
    ),
    "review_not_a_repo": (
        "Not a git repository (or git is not installed): /review reviews `git diff HEAD`",
        "不是 git 仓库（或没有安装 git）：/review 审查的是 `git diff HEAD`",
    ),
    "review_no_changes": ("No changes in the working tree to review", "工作区中没有可审查的改动"),
    "review_cut": (
        " (cut: {n:,} more characters; run git diff for the rest)",
        "（已截断：还有 {n:,} 个字符；其余部分请运行 `git diff`）",
    ),
    "review_sending": (
        "Sending the diff of {files} file(s) ({chars:,} characters) for review",
        "把 {files} 个文件的改动（{chars:,} 个字符）发给模型审查",
    ),
    "list_separator": (", ", "、"),
    "unknown_command": ("Unknown command /{name}. Type /help.", "未知命令 /{name}。 输入 /help 查看命令。"),
    "unknown_command_close": (
        "Unknown command /{name}. Did you mean /{close}?",
        "未知命令 /{name}。 你是不是想输入 /{close}？",
    ),
    "cmd_help": ("List the commands", "列出所有命令"),
    "cmd_status": ("Model, session, tokens and context used", "模型、会话、token 用量和上下文占用"),
    "cmd_context": ("What fills the context window, by kind", "上下文窗口里都装了什么（按类别）"),
    "cmd_clear": ("Start a new session", "开始新会话"),
    "cmd_resume": ("List this directory's sessions and pick one", "列出本目录的会话并选择一个"),
    "cmd_undo": ("Undo the last turn: files and conversation", "撤销上一轮：文件和对话"),
    "cmd_compact": (
        "Compact the conversation now; 'preview' shows the summary first; '/compact {undo}' restores the last archive",
        "立即压缩对话；加 preview 先看摘要；'/compact {undo}' 从最近的存档恢复",
    ),
    "cmd_compact_args": (
        "[instructions|preview [instructions]|{undo}|{show}]",
        "[补充说明|preview [补充说明]|{undo}|{show}]",
    ),
    "cmd_exit": ("Leave the agent", "退出"),
    "help_mention": ("@path — include a file in your message", "@文件路径 — 把文件内容带进消息"),
    "help_keys": (
        "{newline} — new line · {interrupt} — interrupt · {leave} — exit",
        "{newline} — 换行 · {interrupt} — 中断 · {leave} — 退出",
    ),
    "cmd_pin": (
        "Keep text, a file (@path) or your message #N verbatim through every compaction; alone, list the pins",
        "把一段文字、一个文件（@路径）或你的第 N 条消息在每次压缩后原样保留；不带参数则列出",
    ),
    "cmd_pin_args": ("[text|@path|#N]", "[文字|@路径|#N]"),
    "cmd_unpin": ("Remove pin N (as /pin lists them)", "移除第 N 个固定项（按 /pin 列出的编号）"),
    "cmd_unpin_args": ("N", "N"),
    "pins_title": ("Pinned (kept verbatim through every compaction):", "已固定（每次压缩后原样保留）："),
    "pins_none": (
        "Nothing is pinned. /pin <text>, /pin @path or /pin #N pins.",
        "没有固定项。用 /pin <文字>、/pin @路径 或 /pin #N 固定。",
    ),
    "pin_added": ("Pinned #{n}: {text}", "已固定 #{n}：{text}"),
    "pin_removed": ("Unpinned: {text}", "已取消固定：{text}"),
    "pin_bad_number": ("No pin {n}: /pin lists them.", "没有第 {n} 个固定项：用 /pin 查看。"),
    "pin_bad_message": (
        "No message #{n}: /rewind numbers your messages 1 to {last}.",
        "没有第 {n} 条消息：/rewind 把你的消息编为 1 到 {last}。",
    ),
    "pin_bad_file": ("Cannot pin {path}: {why}", "无法固定 {path}：{why}"),
}
