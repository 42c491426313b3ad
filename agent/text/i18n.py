"""User-facing short texts in English and Chinese. Long prompt texts live in prompts/."""

from __future__ import annotations

import locale
import os

from agent.text.i18n_caps import CAPS_TEXTS
from agent.text.i18n_commands import COMMAND_TEXTS
from agent.text.i18n_files import FILES_TEXTS
from agent.text.i18n_guard import GUARD_TEXTS
from agent.text.i18n_habits import HABIT_TEXTS
from agent.text.i18n_local import LOCAL_TEXTS
from agent.text.i18n_mcp import MCP_TEXTS
from agent.text.i18n_prices import PRICE_TEXTS
from agent.text.i18n_sandbox import SANDBOX_TEXTS
from agent.text.i18n_security import SECURITY_TEXTS
from agent.text.i18n_session import SESSION_TEXTS
from agent.text.i18n_setup import SETUP_TEXTS
from agent.text.i18n_start import START_TEXTS
from agent.text.i18n_tools import TOOL_TEXTS
from agent.text.i18n_trust import TRUST_TEXTS
from agent.text.i18n_ui import UI_TEXTS

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
    "auto_compact_failed": (
        "Automatic compaction failed: {reason}. Nothing was changed.", "自动压缩失败：{reason}。没有做任何改动。",
    ),
    "auto_compact_off": (
        "Automatic compaction failed {n} times in a row and is now off; use /compact to try by hand.",
        "自动压缩连续失败 {n} 次，已停止自动压缩；可以用 /compact 手动压缩。",
    ),
    "nothing_to_compact": ("Nothing to compact.", "没有可压缩的内容。"),
    "compact_empty": ("the model returned an empty summary", "模型返回了空摘要"),
    "compact_tool_call": (
        "the model tried to call a tool instead of writing a summary",
        "模型试图调用工具而不是写摘要",
    ),
    "compact_no_archive": (
        "cannot write the archive folder {path}: {error}",
        "无法写入存档目录 {path}：{error}",
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
    "undo_question": (
        "Replace the current history with the newest archive?",
        "用最近的存档替换当前历史？",
    ),
    "undo_keeps_later": (
        "The {n} turn(s) made since that compaction will be kept, after the restored history.",
        "压缩之后的 {n} 轮对话会保留，接在恢复的历史后面。",
    ),
    "undo_later_unknown": (
        "This archive does not record where its compaction ended: the current history ({n} messages) "
        "will be archived and replaced, and turns made since the compaction will not be kept.",
        "这个存档没有记录压缩在哪里结束：当前历史（{n} 条消息）会被存档并替换，压缩之后的对话不会保留。",
    ),
    "compact_over_threshold": (
        "the compacted history would still be over the threshold ({after:,} of {threshold:,} tokens); "
        "kept the history",
        "压缩后的历史仍超过阈值（{after:,} / {threshold:,} tokens）；保留原历史",
    ),
    "message_too_large": (
        "This message is about {tokens:,} tokens: with what every request carries (instructions, tools and "
        "the compaction's summary: {fixed:,}) it does not fit "
        "under the auto-compact threshold ({threshold:,} of a {window:,}-token window), and no compaction "
        "can make room for it.",
        "这条消息约 {tokens:,} tokens：加上每次请求都带的内容（指令、工具和压缩留下的摘要：{fixed:,}）"
        "就超过了自动压缩阈值（{threshold:,}，窗口 {window:,}），压缩也腾不出空间。",
    ),
    "attach_question": (
        "Attach it as a file the model reads in parts instead?",
        "改为作为文件附上，让模型分段读取？",
    ),
    "attached_as_file": (
        "Attached as {path}; sent a short message pointing to it.",
        "已作为文件附上：{path}；发送的是指向它的简短消息。",
    ),
    "not_sent": ("Not sent. (Press ↑ to get the message back.)", "没有发送。（按 ↑ 可以取回这条消息。）"),
    "too_large_print": (
        "Not sent. Save it to a file in the workspace and mention it as @file, or use a model with a larger "
        "--context-window.",
        "没有发送。请把它存成工作区里的文件并用 @文件 提及，或换用 --context-window 更大的模型。",
    ),
    "attached_message": (
        "My message was too long to send as it is ({chars:,} characters), so it is attached as a file of "
        "{lines:,} lines: {path}\nRead it with read_file, in parts (offset and limit). It begins: {preview}",
        "我的消息太长（{chars:,} 个字符），无法直接发送，已作为文件附上（共 {lines:,} 行）：{path}\n"
        "请用 `read_file` 分段读取（`offset` 和 `limit`）。开头是：{preview}",
    ),
    "skipped_lines": (
        "Session file: skipped {n} unreadable line(s): {first}",
        "会话文件：跳过了 {n} 行无法读取的内容：{first}",
    ),
    "compact_at_range": (
        "--compact-at {value} is outside what a {window:,}-token window allows: give {low:,} to {high:,} tokens "
        "({low_pct}% to {high_pct}% of the window)",
        "--compact-at {value} 超出了 {window:,} tokens 窗口允许的范围：请给 {low:,} 到 {high:,} tokens"
        "（窗口的 {low_pct}% 到 {high_pct}%）",
    ),
    "empty_prompt": (
        "-p needs a message, e.g. -p \"explain main.py\"",
        "-p 需要一条消息，例如 -p \"解释 main.py\"",
    ),
    "print_declined": (
        "Declined to run `{command}`: -p cannot ask for approval. Rerun with --yes to let it run shell commands.",
        "已拒绝运行 `{command}`：-p 模式无法征求同意。如要允许运行 shell 命令，请加 --yes 重新运行。",
    ),
    "print_declined_write": (
        "Declined to write {command} ({why}): -p cannot ask for approval. Rerun with --yes to allow it.",
        "已拒绝写入 {command}（{why}）：-p 模式无法征求同意。如要允许，请加 --yes 重新运行。",
    ),
    "no_such_session": ("No session {id} in this directory.", "本目录没有会话 {id}。"),
    "no_sessions_yet": ("No sessions in this directory yet; starting a new one.", "本目录还没有会话，开始新会话。"),
    "pick_number": ("Session number (Enter for a new one): ", "会话编号（回车开始新会话）："),
    "bad_window": (
        "--context-window must be a positive number of tokens, not {value}",
        "--context-window 必须是正的 token 数，而不是 {value}",
    ),
    "bad_compact_at": (
        "--compact-at takes N tokens, Nk or P% of the window, not {value}",
        "--compact-at 的写法是 N（tokens）、Nk 或窗口的 P%，而不是 {value}",
    ),
    "no_api_key": (
        "No API key: set API_KEY or DEEPSEEK_API_KEY (or use --base-url for a local endpoint).",
        "没有 API Key：请设置 API_KEY 或 DEEPSEEK_API_KEY（本地接口可用 --base-url）。",
    ),
    "session_locked": (
        "Session {id} is open in another coding-agent process{pid}; close it there, or start a new "
        "session here without --continue/--resume.",
        "会话 {id} 已在另一个 coding-agent 进程中打开{pid}；请先在那里关闭，或不带 --continue/--resume 开始新会话。",
    ),
    "locked_pid": (" (pid {pid})", "（pid {pid}）"),
    "toolbar_context": ("context {gauge}", "上下文 {gauge}"),
    "session_word": ("session", "会话"),
    "window_known": ("window {n:,}", "窗口 {n:,}"),
    "window_assumed": ("window {n:,} (assumed)", "窗口 {n:,}（假定）"),
    "interrupted": ("⏹ Interrupted", "⏹ 已中断"),
    "resumed": ("Resumed {n} messages", "已恢复 {n} 条消息"),
    "spin_model": ("Waiting for the model", "等待模型回复"),
    "spin_command": ("Running {command}", "正在运行 {command}"),
    "spin_retry": (
        "{why}: retrying in {wait}s (attempt {attempt} of {attempts})",
        "{why}：{wait} 秒后重试（第 {attempt} 次，共 {attempts} 次）",
    ),
    "retry_status": ("HTTP {status}", "HTTP {status}"),
    "retry_network": ("No answer from the endpoint", "接口没有响应"),
    "spin_reasoning": (" ({n:,} chars of reasoning)", "（已推理 {n:,} 字）"),
    "preview": ("▸ {label} ({n:,} chars): {first}…", "▸ {label}（{n:,} 字）：{first}…"),
    "mention_skipped": ("@{path} skipped: {why}", "@{path} 已跳过：{why}"),
    "mention_dir": (
        "@{path} is a folder, so nothing was attached: mention the files you mean (@{path}/…), "
        "or ask the agent to look in it.",
        "@{path} 是文件夹，没有附上内容：请写出要附上的文件（@{path}/…），或让助手去查看这个文件夹。",
    ),
    "tool_size": ("{lines:,} lines, {chars:,} chars", "{lines:,} 行，{chars:,} 字符"),
    # A part of a file (read_file capped, or from an offset): which lines the model got.
    "tool_read_part": ("lines {first:,}–{last:,} of {total:,}", "第 {first:,}–{last:,} 行，共 {total:,} 行"),
    "lines_above": ("… {n:,} more lines above", "…… 上面还有 {n:,} 行"),
    "exit_code": ("[exit code: {code}]", "[退出码：{code}]"),
    "timed_out": ("[killed: timed out after {seconds} seconds]", "[超时 {seconds} 秒，已终止]"),
    "attached": ("Attached {paths}", "已附上 {paths}"),
    "attached_part": (
        "{path} (lines 1–{last:,}; the model reads the rest as needed)",
        "{path}（第 1–{last:,} 行；其余部分模型按需再读）",
    ),
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
        "Allow? (the {n} line(s) above) [y]es / [n]o / [a]lways this session / always for this [p]roject: ",
        "允许？（上面 {n} 行）[y]是 / [n]否 / [a]本会话一直允许 / [p]本项目一直允许: ",
    ),
    "write_reason_git": (
        "a file under .git/ (git runs the programs its config and hooks name)",
        "这是 `.git/` 下的文件（`git` 会运行其配置和钩子指定的程序）",
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
        "请让它可写、腾出空间，或把 `CODING_AGENT_HOME` 设为别的目录。",
    ),
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
    "compact_cut_short": (
        "the summary was cut short at the output limit ({tokens:,} tokens, reasoning included). Try /compact "
        "with instructions to be briefer, or --thinking off",
        "摘要在输出上限处被截断（{tokens:,} tokens，含思考）。可以试试带“写简短些”说明的 /compact，或 `--thinking off`",
    ),
    "compact_tools_off": (
        "Tools are off during compaction: this call was not run. Write the summary now, as asked, "
        "without calling any tool.",
        "压缩期间工具已关闭：这次调用没有执行。请现在按要求写出摘要，不要调用任何工具。",
    ),
    "compact_kept_calling": (
        "the model kept calling tools instead of writing the summary ({n} rounds); asked again without tools",
        "模型连续 {n} 轮调用工具而不写摘要；已改为不带工具再请求一次",
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
    "status_thinking": ("Thinking: {mode}", "思考模式：{mode}"),
    "status_estimated": (
        "  (estimated: the server reports no token usage; counted with the DeepSeek tokenizer)",
        "  （估算值：服务器没有返回 token 用量，用 DeepSeek 分词器计数）",
    ),
    # --- cost ---
    "cost_line": (
        "Cost so far: {total} (cache hits {hit:,} tokens {hit_cost}, misses {miss:,} {miss_cost}, "
        "output {out:,} {out_cost}; {model} prices)",
        "累计费用：{total}（缓存命中 {hit:,} tokens {hit_cost}，未命中 {miss:,} {miss_cost}，"
        "输出 {out:,} {out_cost}；按 {model} 价格）",
    ),
    "cost_unknown": (
        "Cost: no prices known for {model} (cache hits {hit:,}, misses {miss:,}, output {out:,} tokens)",
        "费用：不知道 {model} 的价格（缓存命中 {hit:,}，未命中 {miss:,}，输出 {out:,} tokens）",
    ),
    "last_request": (
        "Last request: {tokens:,} prompt tokens, {share:.0f}% served from the prefix cache",
        "上一次请求：输入 {tokens:,} tokens，其中 {share:.0f}% 来自前缀缓存",
    ),
    "tier_none": (
        "Cheap tier (--cheap-tier {mode}): not needed yet",
        "清理旧工具结果（--cheap-tier {mode}）：尚未用到",
    ),
    "tier_line": (
        "Cheap tier (--cheap-tier {mode}): last compaction chose {choice} — {why}",
        "清理旧工具结果（--cheap-tier {mode}）：上次压缩选择了{choice}——{why}",
    ),
    "tier_clear": ("clearing old tool results", "清理旧工具结果"),
    "tier_summary": ("a summary", "写摘要"),
    "tier_cheaper": (
        "estimated {clear} per request after clearing vs {summary} after a summary",
        "估计清理后每次请求 {clear}，摘要后每次请求 {summary}",
    ),
    "tier_no_cache_no_prices": (
        "no prices known and no prefix cache seen: clearing spares the wait for a summary call",
        "不知道价格且未见前缀缓存：清理可免去等待摘要调用",
    ),
    "tier_forced_on": ("--cheap-tier on", "`--cheap-tier on`"),
    "tier_forced_off": ("--cheap-tier off", "`--cheap-tier off`"),
    "tier_clear_not_enough": (
        "clearing old tool results alone would not bring the context low enough",
        "仅清理旧工具结果不足以让上下文降到足够低",
    ),
    "background_counts": (
        "Background summaries: {started} started, {used} used{given_up}",
        "后台摘要：开始 {started} 次，用上 {used} 次{given_up}",
    ),
    "background_given_up": ("; given up: {reasons}", "；放弃：{reasons}"),
    "overflow_fitting": (
        "The next request ({used:,} tokens) would not fit the window (at most {limit:,}); making it fit",
        "下一次请求（{used:,} tokens）超出窗口（最多 {limit:,}）；正在让它放得下",
    ),
    "overflow_left_out": (
        "Left out the {n} oldest messages so the request fits the window; the full transcript is archived "
        "at {archive}",
        "为了放进窗口，略去了最早的 {n} 条消息；完整对话已存档到 {archive}",
    ),
    "overflow_note": (
        "[{n} earlier messages were left out to fit the context window. The full transcript is in {archive}; "
        "read it if you need them.]",
        "[为了放进上下文窗口，略去了之前的 {n} 条消息。完整对话在 {archive}，需要时可以读取。]",
    ),
    "overflow_nothing_fits": (
        "This request cannot fit the context window: its newest part alone is {needed:,} tokens (at most "
        "{limit:,}). Nothing was changed; send something shorter or use a model with a larger window.",
        "这次请求放不进上下文窗口：仅最新部分就有 {needed:,} tokens（最多 {limit:,}）。"
        "没有做任何改动；请发送更短的内容，或换用窗口更大的模型。",
    ),
}
# The texts of each topic live in their own module.
for _topic in (UI_TEXTS, SECURITY_TEXTS, GUARD_TEXTS, PRICE_TEXTS, SETUP_TEXTS, CAPS_TEXTS, SESSION_TEXTS, LOCAL_TEXTS,
               SANDBOX_TEXTS, COMMAND_TEXTS, TOOL_TEXTS, START_TEXTS, FILES_TEXTS, TRUST_TEXTS,
               HABIT_TEXTS, MCP_TEXTS):
    TEXTS.update(_topic)


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
