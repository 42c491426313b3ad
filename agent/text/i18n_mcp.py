"""Texts of what an MCP server offers and asks besides its tools (prompts as slash commands, resources as
@-mentions, questions to the user, its use of the model, its progress, its tool definitions in
/context), in English and Chinese; agent.text.i18n merges them into its table."""

from __future__ import annotations

MCP_TEXTS: dict[str, tuple[str, str]] = {
    # key: (en, zh)
    # --- prompts ---
    "mcp_prompt_command": ("MCP prompt of {server}", "{server} 的 MCP 提示词"),
    "mcp_prompt_missing": ("/{name} needs {missing}: /{name} {usage}", "/{name} 缺少 {missing}：/{name} {usage}"),
    "mcp_prompt_failed": ("The MCP server {server} gave no prompt {name}: {error}",
                          "MCP 服务器 {server} 没有给出提示词 {name}：{error}"),
    "mcp_prompt_sent": ("Sending the prompt {name} of {server} ({n:,} characters, the server's text)",
                        "发送 {server} 的提示词 {name}（{n:,} 个字符，来自服务器）"),
    "mcp_prompt_not_sent": ("/{name} was not sent", "/{name} 未发送"),
    # --- resources ---
    "mcp_resource_failed": ("{what} was not attached: {error}", "{what} 未附加：{error}"),
    # --- questions a server asks (elicitation) ---
    "mcp_elicit_asks": ("The MCP server {server} asks (its own words): {message}",
                        "MCP 服务器 {server} 提问（服务器原话）：{message}"),
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
    "mcp_elicit_no_one": ("Declined: no one can answer a server's question with -p",
                          "已拒绝：-p 模式下没有人能回答服务器的提问"),
    # --- sampling ---
    "mcp_sampling_declined": (
        "The MCP server {server} asked to use your model (sampling); declined. Allow it with \"mcpSampling\": "
        "true (or a list of server names) in your own settings file",
        "MCP 服务器 {server} 请求使用你的模型（`sampling`），已拒绝。可在你自己的设置文件中写 "
        "`\"mcpSampling\": true`（或服务器名列表）来允许"),
    "mcp_sampling_used": ("The MCP server {server} used your model (sampling): {tokens:,} tokens",
                          "MCP 服务器 {server} 使用了你的模型（`sampling`）：{tokens:,} 个词元"),
    "mcp_sampling_project": (
        "{path}: mcpSampling is only read from your own settings file (a project may not spend your model)",
        "{path}：`mcpSampling` 只从你自己的设置文件读取（项目不能动用你的模型）"),
    "takes_mcp_sampling": ("true, false or a list of MCP server names", "`true`、`false` 或 MCP 服务器名的列表"),
    "mcp_offers_line": ("    prompts: {prompts} · resources: {n} (@{server}:uri)",
                        "    提示词：{prompts} · 资源：{n} 个（@{server}:uri）"),
    # --- /context ---
    "ctx_mcpdefs": ("MCP tool definitions: {name}", "MCP 工具定义：{name}"),
}
