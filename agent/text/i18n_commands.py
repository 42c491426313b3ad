"""Texts of custom slash commands and sub-agent definitions (Claude Code's Markdown files), and of -p's
Claude Code flags, in English and Chinese; agent.text.i18n merges them into its table."""

from __future__ import annotations

COMMAND_TEXTS: dict[str, tuple[str, str]] = {
    # key: (en, zh)
    # --- custom commands ---
    "custom_command": ("Your command ({path})", "自定义命令（{path}）"),
    "custom_command_args": ("[arguments]", "[参数]"),
    "custom_command_shadowed": ("The command file {path} is not used: /{name} is a built-in command",
                                "命令文件 {path} 未使用：/{name} 是内置命令"),
    "command_grants_untrusted": (
        "/{name} comes from this project, which you have not trusted: its allowed-tools ({rules}) are not "
        "granted, so each of its commands is asked",
        "/{name} 来自这个项目，而你尚未信任该项目：它的 `allowed-tools`（{rules}）不生效，它要运行的命令会逐条询问你"),
    "command_rule_ignored": ("/{name}: allowed-tools '{rule}' is not a rule this agent knows; it is ignored",
                             "/{name}：`allowed-tools` 中的 '{rule}' 不是本工具认识的规则，已忽略"),
    "command_inline_ran": ("! {command} ({n} lines put into the prompt)", "! {command}（{n} 行输出已放入提示词）"),
    "command_inline_declined": ("/{name}: !`{command}` was not run", "/{name}：没有运行 !`{command}`"),
    "command_not_sent": ("/{name} was not sent: its prompt needs the output of the command it could not run",
                         "/{name} 没有发送：它的提示词需要那条未运行命令的输出"),
    "command_model": ("/{name} runs with the model {model} (its file says so), for this turn only",
                      "/{name} 按其文件的设置使用模型 {model}，仅限本轮"),
    "command_model_claude": (
        "/{name} asks for {model}, one of Claude's models, which this endpoint does not serve: it runs with {current}",
        "/{name} 要求使用 Claude 的模型 {model}，当前接口不提供：改用 {current} 运行"),
    "command_model_not_used": ("/{name} asks for the model {model}, not used: {why}. It runs with the session's model",
                               "/{name} 要求使用模型 {model}，未采用：{why}。改用会话当前的模型运行"),
    "command_model_small": ("its window ({window:,} tokens) is smaller than the context now",
                            "它的窗口（{window:,} tokens）小于当前上下文"),
    # --- sub-agents ---
    "cmd_agents": ("List the sub-agents of .claude/agents/ and ~/.claude/agents/ that the task tool runs",
                   "列出 `.claude/agents/` 与 `~/.claude/agents/` 中定义的子代理（`task` 工具运行它们）"),
    "agents_none": ("No sub-agents are defined: one Markdown file each in .claude/agents/ or .coding-agent/agents/ "
                    "(yours: ~/.claude/agents/).",
                    "没有定义子代理：每个子代理一个 Markdown 文件，放在 `.claude/agents/` 或 `.coding-agent/agents/`"
                    "（你自己的：`~/.claude/agents/`）。"),
    "agents_title": ("Sub-agents the model may hand a job to (task, subagent_type = the name):",
                     "模型可以把任务交给这些子代理（`task` 工具，`subagent_type` 填名字）："),
    "agents_line": ("  {name} · {scope} · {path}", "  {name} · {scope} · {path}"),
    "agents_detail": ("    tools: {tools} · model: {model}", "    工具：{tools} · 模型：{model}"),
    "agents_all_tools": ("every tool a sub-agent may have", "子代理可用的全部工具"),
    "agents_inherit": ("the session's", "与会话相同"),
    "agents_claude_model": ("{model} (Claude's: runs with the session's)", "{model}（Claude 的模型：改用会话的模型）"),
    # --- -p, as Claude Code's scripts call it ---
    "print_builtin_command": ("/{name} is a command of the REPL; -p runs custom commands only "
                              "(.claude/commands/, .coding-agent/commands/)",
                              "/{name} 是交互界面的命令；-p 只运行自定义命令"
                              "（`.claude/commands/`、`.coding-agent/commands/`）"),
    "print_unknown_command": ("Unknown command /{name}: no custom command has that name",
                              "未知命令 /{name}：没有这个名字的自定义命令"),
    "print_input_needs_stream": (
        "--input-format stream-json takes its messages from stdin: it needs -p without a prompt and "
        "--output-format stream-json",
        "`--input-format stream-json` 从标准输入读取消息：需要不带提示词的 -p，并使用 `--output-format stream-json`"),
    "print_input_bad_line": ("stdin line {n} is not a user message ({error}); it is skipped",
                             "标准输入第 {n} 行不是用户消息（{error}），已跳过"),
    "print_prompt_needs_p": ("A prompt on the command line needs -p (the REPL starts without one)",
                             "命令行上的提示词需要配合 -p 使用（交互界面启动时不带提示词）"),
}
