"""Texts of MCP servers: their settings, start and state, /mcp, and what they offer and ask besides their
tools, in English and Chinese; agent.text.i18n merges them into its table."""

from __future__ import annotations

MCP_TEXTS: dict[str, tuple[str, str]] = {
    # key: (en, zh)
    # --- prompts ---
    "mcp_prompt_command": ("MCP prompt of {server}", "{server} 的 MCP 提示词"),
    "mcp_prompt_missing": ("/{name} needs {missing}: /{name} {usage}", "/{name} 缺少 {missing}：/{name} {usage}"),
    "mcp_prompt_failed": (
        "The MCP server {server} gave no prompt {name}: {error}",
        "MCP 服务器 {server} 没有给出提示词 {name}：{error}",
    ),
    "mcp_prompt_sent": (
        "Sending the prompt {name} of {server} ({n:,} characters, the server's text)",
        "发送 {server} 的提示词 {name}（{n:,} 个字符，来自服务器）",
    ),
    "mcp_prompt_not_sent": ("/{name} was not sent", "/{name} 未发送"),
    # --- resources ---
    "mcp_resource_failed": ("{what} was not attached: {error}", "{what} 未附加：{error}"),
    # --- questions a server asks (elicitation) ---
    "mcp_elicit_asks": (
        "The MCP server {server} asks (its own words): {message}",
        "MCP 服务器 {server} 提问（服务器原话）：{message}",
    ),
    "mcp_elicit_answer": ("Answer it? (n declines)", "回答吗？（n 拒绝）"),
    "mcp_elicit_field": ("{name} ({kind}){required}: ", "{name}（{kind}）{required}："),
    "mcp_elicit_required": (", required", "，必填"),
    "mcp_elicit_kind_string": ("text", "文本"),
    "mcp_elicit_kind_integer": ("a whole number", "整数"),
    "mcp_elicit_kind_number": ("a number", "数字"),
    "mcp_elicit_kind_boolean": ("y or n", "y 或 n"),
    "mcp_elicit_kind_enum": ("one of {options}", "以下之一：{options}"),
    "mcp_elicit_bad": ("{answer!r} is not {kind}; try again", "{answer!r} 不是{kind}，请重新输入"),
    "mcp_elicit_sent": ("Your answer went to {server}", "你的回答已发给 {server}"),
    "mcp_elicit_declined": ("You declined to answer {server}", "你拒绝回答 {server}"),
    "mcp_elicit_cancelled": ("Not answered: {server} is told you cancelled", "未回答：已告诉 {server} 你取消了"),
    "mcp_elicit_no_one": (
        "Declined: no one can answer a server's question with -p",
        "已拒绝：-p 模式下没有人能回答服务器的提问",
    ),
    # --- sampling ---
    "mcp_sampling_declined": (
        'The MCP server {server} asked to use your model (sampling); declined. Allow it with "mcpSampling": '
        "true (or a list of server names) in your own settings file",
        "MCP 服务器 {server} 请求使用你的模型（`sampling`），已拒绝。可在你自己的设置文件中写 "
        '`"mcpSampling": true`（或服务器名列表）来允许',
    ),
    "mcp_sampling_used": (
        "The MCP server {server} used your model (sampling): {tokens:,} tokens",
        "MCP 服务器 {server} 使用了你的模型（`sampling`）：{tokens:,} 个词元",
    ),
    "mcp_sampling_project": (
        "{path}: mcpSampling is only read from your own settings file (a project may not spend your model)",
        "{path}：`mcpSampling` 只从你自己的设置文件读取（项目不能动用你的模型）",
    ),
    "takes_mcp_sampling": ("true, false or a list of MCP server names", "`true`、`false` 或 MCP 服务器名的列表"),
    "mcp_offers_line": (
        "    prompts: {prompts} · resources: {n} (@{server}:uri)",
        "    提示词：{prompts} · 资源：{n} 个（@{server}:uri）",
    ),
    # --- /context ---
    "ctx_mcpdefs": ("MCP tool definitions: {name}", "MCP 工具定义：{name}"),
    # --- MCP servers ---
    "mcp_bad": (
        'MCP config {path}: server \'{name}\' is not {{"command", "args", "env"}} or '
        '{{"type": "http", "url", "headers"}}; it is skipped',
        'MCP 配置 {path}：服务器 \'{name}\' 的格式不对（应为 `{{"command", "args", "env"}}` 或 '
        '`{{"type": "http", "url", "headers"}}`），已跳过',
    ),
    "mcp_failed": (
        "MCP server {name} stopped working ({error}); the session goes on without its tools. "
        "/mcp log {name} shows its log, /mcp retry {name} starts it again",
        "MCP 服务器 {name} 无法工作（{error}）；会话继续，但没有它的工具。"
        "`/mcp log {name}` 查看它的日志，`/mcp retry {name}` 重新启动它",
    ),
    "mcp_start_timeout": (
        "MCP server {name} did not start within {seconds} s and is marked failed; turns no "
        "longer wait for it. /mcp log {name} shows its log, /mcp retry {name} tries again "
        "(MCP_TIMEOUT sets the wait, in milliseconds)",
        "MCP 服务器 {name} 在 {seconds} 秒内没有启动，已标记为失败，之后的对话轮次不再等它。"
        "`/mcp log {name}` 查看它的日志，`/mcp retry {name}` 重试"
        "（等待时间由 `MCP_TIMEOUT` 设置，单位毫秒）",
    ),
    "mcp_bad_timeout": (
        "{name}={value} is not a number of milliseconds above 0; the default is used",
        "{name}={value} 不是大于 0 的毫秒数；使用默认值",
    ),
    "mcp_output_tokens_ignored": (
        "MAX_MCP_OUTPUT_TOKENS is not read here: an MCP answer is cut like a read_file "
        "answer, to a share of the context window, and the whole of it saved for "
        "read_file (docs/settings.md)",
        "这里不读取 `MAX_MCP_OUTPUT_TOKENS`：MCP 的回答与 `read_file` 的回答一样按"
        "上下文窗口的一定比例截断，完整内容另存，可用 `read_file` 分段读取"
        "（见 `docs/settings.md`）",
    ),
    "spin_mcp_starting": ("Starting MCP server {names}", "正在启动 MCP 服务器 {names}"),
    "cmd_mcp": (
        "List the MCP servers, their state and tools; `log NAME` shows a server's log, `retry NAME` starts it again",
        "列出 MCP 服务器及其状态和工具；`log 名称` 查看某个服务器的日志，`retry 名称` 重新启动它",
    ),
    "cmd_mcp_args": ("[log NAME | retry NAME]", "[`log` 名称 | `retry` 名称]"),
    "mcp_hint_failed": (
        "    /mcp log {name} shows its log, /mcp retry {name} starts it again",
        "    `/mcp log {name}` 查看日志，`/mcp retry {name}` 重新启动",
    ),
    "mcp_log_title": ("The last {n} lines of {name}'s log ({path}):", "{name} 的日志最后 {n} 行（{path}）："),
    "mcp_log_none": ("{name} has written nothing yet ({path})", "{name} 还没有写过日志（{path}）"),
    "mcp_unknown": ("No MCP server is named {name}; /mcp lists them", "没有名为 {name} 的 MCP 服务器；/mcp 列出全部"),
    "mcp_usage": (
        "Usage: /mcp, /mcp log NAME or /mcp retry NAME",
        "用法：`/mcp`、`/mcp log` 名称 或 `/mcp retry` 名称",
    ),
    "mcp_retry_waiting": (
        "{name} is the project's and waits for your approval of the project; it starts once "
        "you approve it (restart the agent to be asked again)",
        "{name} 属于项目，需要你先批准该项目；批准后才会启动（重新启动本程序会再次询问）",
    ),
    "mcp_retry_starting": ("{name} is starting already", "{name} 已在启动中"),
    "mcp_retry_ready": ("MCP server {name} is ready: {n} tools", "MCP 服务器 {name} 已就绪：{n} 个工具"),
    "mcp_none": (
        "No MCP servers: add them to .mcp.json or under mcpServers in a settings file",
        "没有 MCP 服务器：可在 `.mcp.json` 或设置文件的 `mcpServers` 中添加",
    ),
    "mcp_title": ("MCP servers:", "MCP 服务器："),
    "mcp_state_waiting": (
        "not started (the project's servers wait for your approval)",
        "未启动（项目的服务器需要你批准）",
    ),
    "mcp_state_starting": ("starting", "启动中"),
    "mcp_state_ready": ("ready", "就绪"),
    "mcp_state_failed": ("failed", "失败"),
    "mcp_state_stopped": ("stopped", "已停止"),
}
