"""Texts of switching the model (/model, /effort, /thinking), in English and Chinese; agent.text.i18n merges
them into its table."""

from __future__ import annotations

MODEL_TEXTS: dict[str, tuple[str, str]] = {
    # key: (en, zh)
    "cmd_model": ("Switch the model for the rest of the session", "本会话接下来改用另一个模型"),
    "cmd_model_args": ("[NAME [WINDOW]]", "[模型名 [窗口]]"),
    "model_bad_window": (
        "'{value}' is not a window size (e.g. 32768 or 32k)",
        "'{value}' 不是窗口大小（例如 32768 或 32k）",
    ),
    "cmd_effort": ("How deeply the model thinks from now on", "从现在起模型思考的深度"),
    "cmd_effort_args": ("`high`|`max`|`default`", "`high`|`max`|`default`"),
    "cmd_thinking": ("Thinking mode on or off from now on", "从现在起开启或关闭思考模式"),
    "cmd_thinking_args": ("`on`|`off`|`default`", "`on`|`off`|`default`"),
    "model_now": (
        "Model: {model} ({window:,} tokens). /model NAME switches.",
        "模型：{model}（{window:,} tokens）。用 /model 模型名 切换。",
    ),
    "model_switched": ("Switched to {model} · {window}", "已切换到 {model} · {window}"),
    "model_compact_first": (
        "The context ({used:,} tokens) is over {model}'s threshold ({threshold:,}): compacting first",
        "上下文（{used:,} tokens）超过了 {model} 的压缩阈值（{threshold:,}）：先压缩",
    ),
    "model_not_switched": (
        "Still on the old model: the compaction for {model} failed ({why})",
        "仍在使用原模型：为 {model} 做的压缩失败了（{why}）",
    ),
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
}
