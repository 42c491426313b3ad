"""User-facing short texts in English and Chinese. Long prompt texts live in prompts/."""

from __future__ import annotations

import locale
import os

TEXTS: dict[str, tuple[str, str]] = {
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
        "The request was longer than the model's context window; run /compact and try again.",
        "请求超出了模型的上下文窗口；请先 /compact 再重试。",
    ),
    "err_http": ("The endpoint answered HTTP {status}: {detail}", "接口返回 HTTP {status}：{detail}"),
    "err_api": ("Could not reach the model at {url}: {detail}", "无法连接模型接口 {url}：{detail}"),
    "err_behaviour": ("The model's answer could not be used: {detail}", "模型的回答无法使用：{detail}"),
    "err_other": ("The turn failed: {detail}", "本轮失败：{detail}"),
    "err_broken_stream": (
        "The connection to the model broke off mid-answer ({detail}); the partial answer was not kept.",
        "与模型的连接在回答中途断开（{detail}）；不完整的回答没有保存。",
    ),
    "err_bad_json": (
        "The endpoint {url} sent a reply that is not valid JSON: {detail}",
        "接口 {url} 返回的内容不是有效的 JSON：{detail}",
    ),
    "save_failed": (
        "Could not write the session file ({error}); the conversation goes on in memory and is saved "
        "once writing works again.",
        "无法写入会话文件（{error}）；对话继续保存在内存中，等写入恢复后再存盘。",
    ),
    "auto_compact": (
        "Context is nearly full ({used:,} / {threshold:,} tokens), compacting automatically",
        "上下文接近上限（{used:,} / {threshold:,} tokens），自动压缩中",
    ),
    "mid_turn_compact": (
        "Context filled up during this turn ({used:,} / {threshold:,} tokens), compacting and continuing",
        "本轮执行中上下文接近上限（{used:,} / {threshold:,} tokens），压缩后继续",
    ),
    "auto_compact_failed": ("Automatic compaction failed: {reason}", "自动压缩失败：{reason}"),
    "auto_compact_off": (
        "Automatic compaction failed {n} times in a row and is now off; use /compact to try by hand.",
        "自动压缩连续失败 {n} 次，已停止自动压缩；可以用 /compact 手动压缩。",
    ),
    "thrashing": (
        "The context refills within two turns of every compaction, so automatic compaction is now off. "
        "Try /compact with instructions on what to keep, a larger --context-window, or --compact-at.",
        "每次压缩后不到两轮上下文又满了，已停止自动压缩。"
        "可以试试带说明的 /compact、更大的 --context-window 或 --compact-at。",
    ),
    "nothing_to_compact": ("Nothing to compact.", "没有可压缩的内容。"),
    "compact_empty": ("the model returned an empty summary", "模型返回了空摘要"),
    "compact_tool_call": (
        "the model tried to call a tool instead of writing a summary",
        "模型试图调用工具而不是写摘要",
    ),
    "compact_no_archive": (
        "cannot write the archive folder {path}: {error}; nothing was changed",
        "无法写入存档目录 {path}：{error}；没有做任何改动",
    ),
    "compact_not_smaller": (
        "the summary was not smaller than the history ({before:,} → {after:,} tokens); kept the history",
        "摘要并不比原历史小（{before:,} → {after:,} tokens）；保留原历史",
    ),
    "compact_cancelled": ("Compaction cancelled; nothing was changed.", "压缩已取消，没有做任何改动。"),
    "compact_failed": ("Compaction failed: {reason}. Nothing was changed.", "压缩失败：{reason}。没有做任何改动。"),
    "compact_done": (
        "Compacted: {before:,} → {after:,} tokens. Full transcript archived at {archive}",
        "压缩完成：{before:,} → {after:,} tokens。完整对话已存档到 {archive}",
    ),
    "compact_cheap_done": (
        "Cleared old tool results: {before:,} → {after:,} tokens (no summary needed). Archived at {archive}",
        "清理了旧的工具结果：{before:,} → {after:,} tokens（无需摘要）。已存档到 {archive}",
    ),
    "compact_left_out": (
        "{n} oldest messages did not fit in the compaction request and were left out (they are in the archive).",
        "最早的 {n} 条消息放不进压缩请求，已略去（存档里都有）。",
    ),
    "background_started": ("Writing a summary in the background…", "正在后台写摘要……"),
    "undo_nothing": ("No compaction to undo.", "没有可以撤销的压缩。"),
    "undo_done": (
        "Restored the history from {archive} ({n} messages); the compacted history was archived at {saved}.",
        "已从 {archive} 恢复历史（{n} 条消息）；压缩后的历史已存档到 {saved}。",
    ),
    "skipped_lines": (
        "Session file: skipped {n} unreadable line(s): {first}",
        "会话文件：跳过了 {n} 行无法读取的内容：{first}",
    ),
    "mention_notice": ("@{path}: {why}", "@{path}：{why}"),
    "cut_line": (
        "Session file, line {line}: a {mb:.1f} MB message is too large to resume whole; {texts} text(s) in it "
        "were cut to {keep:,} characters ({left_out:,} left out here; the file keeps them).",
        "会话文件第 {line} 行：一条 {mb:.1f} MB 的消息太大，无法完整恢复；其中 {texts} 段文字被截到 "
        "{keep:,} 个字符（这里略去 {left_out:,} 个字符，文件里仍完整保留）。",
    ),
    "approve_run": ("Run command", "运行命令"),
    "approve_write": ("Write to this file, {why}", "写入这个文件，{why}"),
    "approve_lines": ("{n} line(s), shown whole", "共 {n} 行，完整显示"),
    "approve_blank_lines": ("{n} empty lines", "{n} 个空行"),
    "approve_question": (
        "Allow? (the {n} line(s) above) [y]es / [n]o / [a]lways: ",
        "允许？（上面 {n} 行）[y]是 / [n]否 / [a]本会话一直允许: ",
    ),
    "write_reason_git": (
        "a file under .git/ (git runs the programs its config and hooks name)",
        "这是 .git/ 下的文件（git 会运行其配置和钩子指定的程序）",
    ),
    "write_reason_links": (
        "a file with {n} hard links (another name may be outside the workspace); "
        "this name gets the new content, the other names keep the old",
        "这个文件有 {n} 个硬链接（别的名字可能在工作区之外）；"
        "新内容只写到这个名字，其他名字保留旧内容",
    ),
    "data_home_unusable": (
        "Cannot use the data folder {path} ({error}): sessions could not be saved. "
        "Make it writable, free some space, or set CODING_AGENT_HOME to another folder.",
        "无法使用数据目录 {path}（{error}）：会话无法保存。"
        "请让它可写、腾出空间，或把 CODING_AGENT_HOME 设为别的目录。",
    ),
}


def t(key: str, lang: str, **values: object) -> str:
    en, zh = TEXTS[key]
    return (zh if lang == "zh" else en).format(**values)


def default_lang() -> str:
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(name)
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    code = (locale.getlocale()[0] or "").lower()
    return "zh" if code.startswith("zh") else "en"
