"""User-facing texts about local servers (llama.cpp, Ollama, vLLM, LM Studio): what they said at
start, their refusals, answers cut at the output limit, summaries that are not summaries. English
and Chinese; agent.text.i18n merges them into its table."""

from __future__ import annotations

LOCAL_TEXTS: dict[str, tuple[str, str]] = {
    # key: (en, zh)
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
    "compact_cut_short_plain": (
        "the summary was cut short at the output limit ({tokens:,} tokens). Try /compact with instructions to "
        "be briefer",
        "摘要在输出上限处被截断（{tokens:,} tokens）。可以试试带“写简短些”说明的 /compact",
    ),
    "compact_no_next_step": (
        "the summary had no section 6 (current work and next step), twice",
        "摘要两次都没有第 6 节（当前工作与下一步）",
    ),
    "compact_not_a_summary": (
        "the model's reply was not a summary ({chars:,} characters, none of its sections), twice",
        "模型的回复不是摘要（{chars:,} 个字符，没有任何一个小节），两次都是",
    ),
    "answer_y_or_n": (
        "'{answer}' is not an answer: type y or n (Enter: n).", "“{answer}”不是回答：请输入 y 或 n（回车：n）。",
    ),
    "answer_taken_as_no": ("Taken as no.", "按“否”处理。"),
}
