"""Texts of the endpoint: its errors and retries, today's DeepSeek API, local servers (llama.cpp, Ollama,
vLLM, LM Studio), in English and Chinese; agent.text.i18n merges them into its table."""

from __future__ import annotations

ENDPOINT_TEXTS: dict[str, tuple[str, str]] = {
    # key: (en, zh)
    "err_auth": (
        "The endpoint refused the API key (HTTP {status}). Set API_KEY or DEEPSEEK_API_KEY "
        "(OPENAI_API_KEY with --base-url) to a valid key.",
        "接口拒绝了 API Key（HTTP {status}）。请把 API_KEY 或 DEEPSEEK_API_KEY"
        "（用 --base-url 时也可用 OPENAI_API_KEY）设为有效的 Key。",
    ),
    "err_forbidden": (
        "The endpoint refused access (HTTP 403): the key may lack permission for this model.",
        "接口拒绝访问（HTTP 403）：这个 Key 可能没有该模型的权限。",
    ),
    "err_model": (
        "The endpoint does not know the model '{model}'. Choose another with --model.",
        "接口不认识模型 '{model}'，请用 --model 换一个。",
    ),
    "err_context": (
        "The request was longer than the model's context window, even made smaller; nothing was lost, "
        "and the next message is fitted to the window first (a shorter one helps).",
        "请求超出了模型的上下文窗口，缩小后仍然放不下；没有丢失任何内容，下一条消息会先适配窗口（短一些更好）。",
    ),
    "err_http": ("The endpoint answered HTTP {status}: {detail}", "接口返回 HTTP {status}：{detail}"),
    "err_api": ("Could not reach the model at {url}: {detail}", "无法连接模型接口 {url}：{detail}"),
    "err_behaviour": ("The model's answer could not be used: {detail}", "模型的回答无法使用：{detail}"),
    "err_request_limit": (
        "Stopped: this turn reached its limit of {n} model requests (--max-requests). What it did is kept; "
        "send a message such as 'go on' to continue, or raise the limit (0 for none).",
        "已停止：本轮达到了 {n} 次模型请求的上限（--max-requests）。已完成的部分都保留了；"
        "发一条消息（如“继续”）即可接着做，或调高上限（0 表示不限）。",
    ),
    "err_other": ("The turn failed: {detail}", "本轮失败：{detail}"),
    "err_broken_stream": (
        "The connection to the model broke off mid-answer ({detail}); the partial answer was not kept.",
        "与模型的连接在回答中途断开（{detail}）；不完整的回答没有保存。",
    ),
    "err_bad_json": (
        "The endpoint {url} sent a reply that is not valid JSON: {detail}",
        "接口 {url} 返回的内容不是有效的 JSON：{detail}",
    ),
    "spin_retry": (
        "{why}: retrying in {wait}s (attempt {attempt} of {attempts})",
        "{why}：{wait} 秒后重试（第 {attempt} 次，共 {attempts} 次）",
    ),
    "retry_status": ("HTTP {status}", "HTTP {status}"),
    "retry_network": ("No answer from the endpoint", "接口没有响应"),
    # --- today's DeepSeek API and local servers ---
    "model_retired": (
        "The model '{model}' was retired by DeepSeek on 2026-07-24; use --model {new} instead.",
        "DeepSeek 已于 2026-07-24 停用模型 '{model}'；请改用 --model {new}。",
    ),
    "err_not_found": (
        "The endpoint answered 404 for the model '{model}': check --base-url (does it end in /v1?) and --model.",
        "接口对模型 '{model}' 返回 404：请检查 --base-url（是否以 /v1 结尾？）和 --model。",
    ),
    "err_tool_choice_flags": (
        "The server refuses tool calls: start vLLM with --enable-auto-tool-choice --tool-call-parser <parser> "
        "(e.g. hermes, llama3_json, deepseek_v3). Server said: {detail}",
        "服务器拒绝工具调用：请用 `--enable-auto-tool-choice --tool-call-parser <parser>` 启动 vLLM"
        "（例如 `hermes`、`llama3_json`、`deepseek_v3`）。服务器返回：{detail}",
    ),
    "server_cut_context": (
        "The summary knows your latest request but not your first: the server seems to have dropped the "
        "oldest messages (Ollama does past its context size). Start it with a context of {window:,} tokens "
        "(OLLAMA_CONTEXT_LENGTH, num_ctx) or pass its real size as --context-window. Your messages were "
        "added to the summary verbatim.",
        "摘要知道你最新的请求，却不知道第一条：服务器似乎丢掉了最早的消息（Ollama 超出其上下文长度时会这样）。"
        "请以 {window:,} tokens 的上下文启动它（`OLLAMA_CONTEXT_LENGTH`、`num_ctx`），或用 --context-window "
        "传入它的实际大小。你的消息已原样补进摘要。",
    ),
    "local_no_tools": (
        "The {server} server's chat template for '{model}' does not support tools: the model will not see "
        "the agent's tools. Start llama-server with --jinja --chat-template-file <a template with tools>.",
        "{server} 服务器给 '{model}' 用的对话模板不支持工具：模型看不到智能体的工具。"
        "请用 `--jinja --chat-template-file <支持工具的模板>` 启动 `llama-server`。",
    ),
    "local_window_adopted": (
        "The server runs with a context of {n:,} tokens: using it as the window.",
        "服务器的上下文为 {n:,} tokens：以此作为窗口。",
    ),
    "local_window_differs": (
        "The server runs with a context of {n:,} tokens, less than --context-window {ours:,}: requests past "
        "{n:,} will be refused. Pass --context-window {n}.",
        "服务器的上下文只有 {n:,} tokens，小于 --context-window {ours:,}：超过 {n:,} 的请求会被拒绝。"
        "请传入 --context-window {n}。",
    ),
    "err_context_server": (
        "The server refused the request as longer than its context of {n_ctx:,} tokens. Start the agent with "
        "--context-window {n_ctx} (or give the server a larger context). Server said: {detail}",
        "服务器拒绝了这次请求：超出其 {n_ctx:,} tokens 的上下文。请用 --context-window {n_ctx} 启动智能体"
        "（或给服务器更大的上下文）。服务器返回：{detail}",
    ),
    "err_context_local": (
        "The server refused the request as longer than its context. Pass its real context size as "
        "--context-window (or give the server a larger context). Server said: {detail}",
        "服务器拒绝了这次请求：超出其上下文。请用 --context-window 传入它的实际上下文大小"
        "（或给服务器更大的上下文）。服务器返回：{detail}",
    ),
    "answer_cut": (
        "The answer was cut at the output limit ({n:,} tokens): it is incomplete. Ask the model to go on, "
        "or to be briefer.",
        "回答在输出上限处被截断（{n:,} tokens），并不完整。可以让模型继续，或让它写简短些。",
    ),
    "spin_local_prompt": (
        "The server is processing the prompt (~{n:,} tokens; it sends nothing until then)",
        "服务器正在处理提示（约 {n:,} tokens，处理完之前不会有输出）",
    ),
    "err_timeout": (
        "No answer from the model at {url} within {seconds:.0f} s (a CPU server may still be processing a long "
        "prompt). Raise CODING_AGENT_TIMEOUT (seconds), or compact to shorten the prompt.",
        "{seconds:.0f} 秒内没有收到 {url} 的回答（只用处理器运行的服务器可能仍在处理很长的提示）。"
        "可以调大 `CODING_AGENT_TIMEOUT`（秒），或压缩以缩短提示。",
    ),
}
