"""The tools' failures as the user reads them: the model reads a tool's failure in English ("Error: the
user declined to run this command"), the REPL's `⎿` line shows it in the user's language. Each text's
English side is the tool's own wording with its values as fields; `match_error` finds which one a line
is and with what values, and agent.text.i18n merges the table so that `t` gives either language.
tests/agent/text/test_tool_error_lines.py checks every literal failure of agent/tools/ has its text here."""

from __future__ import annotations

import re
from functools import cache

TOOL_TEXTS: dict[str, tuple[str, str]] = {
    # key: (en, zh)
    "tool_error": ("Error: {text}", "错误：{text}"),
    # --- permissions ---
    "te_hook_refused": ("a PreToolUse hook refused this call: {reason}", "`PreToolUse` 钩子拒绝了这次调用：{reason}"),
    "te_rule_denied": (
        "the permission rule {rule} (deny) refuses this call{why}",
        "权限规则 {rule}（`deny`）拒绝了这次调用",
    ),
    "te_rule_denied_unsure": (
        "the permission rule {rule} (deny) refuses this call: the line could not be read for sure {detail}",
        "权限规则 {rule}（`deny`）拒绝了这次调用：这一行无法确切解析，可能运行规则所指的命令；请写成普通命令",
    ),
    "te_diff_too_long": (
        "the change to {path} is {size} characters, too long to show the user whole (at most "
        "{limit}); nothing was written. Make it in smaller edits (edit_file)",
        "对 {path} 的改动有 {size} 个字符，太长，无法完整展示给你（上限 {limit}）；"
        "未写入。请分成较小的修改（`edit_file`）",
    ),
    "te_mcp_unreadable": (
        "the MCP server {server} sent an answer that could not be read ({answer}); the call was ended",
        "MCP 服务器 {server} 发来的回答无法读取（{answer}）；调用已结束",
    ),
    "te_mcp_timeout": (
        "{tool} did not answer in {seconds} s, so the call was ended (the limit is mcpToolTimeout "
        "in the settings, or MCP_TOOL_TIMEOUT, in milliseconds)",
        "{tool} 在 {seconds} 秒内没有回答，调用已结束（上限由设置中的 `mcpToolTimeout` 或 "
        "`MCP_TOOL_TIMEOUT` 指定，单位毫秒）",
    ),
    "te_plan_mode": (
        "plan mode is on: only the read-only tools run (read_file, list_files, grep). Read what you "
        "need, then propose a plan; the user leaves plan mode with Shift+Tab",
        "计划模式已开启：只运行只读工具（`read_file`、`list_files`、`grep`）；按 Shift+Tab 离开计划模式",
    ),
    "te_declined_command": ("the user declined to run this command", "你拒绝了运行这条命令"),
    "te_declined_write": ("the user declined this write to {path}: it is {reason}", "你拒绝了对 {path} 的写入"),
    "te_declined_read": ("the user declined this read of {path}", "你拒绝了读取 {path}"),
    "te_declined_tool": ("the user declined this call of {tool}", "你拒绝了调用 {tool}"),
    # --- paths ---
    "te_outside": ("{path} is outside the workspace {root}", "{path} 在工作区 {root} 之外"),
    "te_data_folder": (
        "{path} is inside the agent's data folder {home}, which is read-only",
        "{path} 在本工具的数据目录 {home} 内，该目录只读",
    ),
    "te_path_nul": ("the path contains a NUL byte", "路径中含有 NUL 字节"),
    "te_path_empty": ("the path is empty", "路径为空"),
    "te_cannot_resolve": ("cannot resolve {path}: {error}", "无法解析路径 {path}：{error}"),
    # --- reading (read_unchanged is no failure: a re-read answered by reference, agent.tools.rereads) ---
    "read_unchanged": (
        "[Unchanged: {path} is the same as when you read these lines earlier in this conversation; "
        "that read's text is above, not repeated here.]",
        "[未改动：{path} 与你在本次对话中先前读取这些行时相同；那次读取的内容在上文，此处不再重复。]",
    ),
    "te_no_such_file": ("no such file: {path}", "文件不存在：{path}"),
    "te_no_such_path": ("no such file or directory: {path}", "文件或目录不存在：{path}"),
    "te_is_directory_read": ("{path} is a directory; use list_files", "{path} 是目录（请用 `list_files`）"),
    "te_binary": (
        "{path} looks binary (NUL bytes); read_file only reads text",
        "{path} 像是二进制文件（含 NUL 字节）；`read_file` 只读文本",
    ),
    "te_not_regular_read": (
        "{path} is not a regular file (a FIFO, device or socket); read_file only reads files",
        "{path} 不是普通文件（FIFO、设备或套接字）；`read_file` 只读文件",
    ),
    "te_cannot_read": ("cannot read {path}: {error}", "无法读取 {path}：{error}"),
    "te_offset_past": (
        "offset={offset} is past the end of the file ({n} lines)",
        "`offset`={offset} 超出了文件末尾（共 {n} 行）",
    ),
    "te_offset_bad": ("offset and limit must be 1 or more", "`offset` 和 `limit` 必须不小于 1"),
    "te_not_read": (
        "you have not read {path}; read it first with read_file",
        "还没有读过 {path}；要先用 `read_file` 读取",
    ),
    "te_moved": ("{path} was deleted or moved since you read it", "{path} 在读取之后被删除或移动了"),
    "te_changed": (
        "{path} changed on disk since you read it; read it again",
        "{path} 在读取之后被改动了；需要重新读取",
    ),
    # --- writing ---
    "te_no_such_file_edit": (
        "no such file: {path}; use write_file to create it",
        "文件不存在：{path}（新建文件请用 `write_file`）",
    ),
    "te_cannot_write": ("cannot write {path}: {error}; {kept}", "无法写入 {path}：{error}"),
    "te_not_found": (
        "old_string was not found in {path}.{hint} Copy the text exactly as read_file shows",
        "在 {path} 中找不到 `old_string`（须与 `read_file` 显示的原文完全一致）",
    ),
    "te_occurs": (
        "old_string occurs {n} times in {path}; add surrounding lines to make it unique, or pass replace_all=true",
        "`old_string` 在 {path} 中出现了 {n} 次，无法确定改哪一处",
    ),
    "te_old_empty": (
        "old_string is empty; use write_file to create or overwrite a file",
        "`old_string` 为空（新建或覆盖文件请用 `write_file`）",
    ),
    "te_identical": (
        "old_string and new_string are identical; nothing to change",
        "`old_string` 与 `new_string` 相同，没有可改的",
    ),
    "te_is_directory": ("{path} is a directory", "{path} 是目录"),
    "te_not_regular_write": (
        "{path} is not a regular file (a FIFO, device or socket); the file tools only write files",
        "{path} 不是普通文件（FIFO、设备或套接字）；文件工具只写普通文件",
    ),
    "te_cannot_check": ("cannot check {path}: {error}", "无法检查 {path}：{error}"),
    # --- listing, searching, commands ---
    "te_pattern_relative": ("the pattern must be relative to the workspace", "模式必须是相对工作区的路径"),
    "te_pattern_relative_added": (
        "the pattern must be relative to the workspace (or start with a folder the user added)",
        "模式必须是相对工作区的路径（或以你添加的文件夹开头）",
    ),
    "te_not_a_folder": ("{path} is not a folder", "{path} 不是文件夹"),
    "te_rule_denied_resources": (
        "the permission rule {rule} (deny) refuses reading {server}'s resources",
        "权限规则 {rule}（`deny`）拒绝读取 {server} 的资源",
    ),
    "te_resource_unreadable": ("{server} could not read {uri}: {error}", "{server} 无法读取 {uri}：{error}"),
    "te_bad_pattern": ("invalid pattern {pattern}: {error}", "无效的模式 {pattern}：{error}"),
    "te_bad_regex": ("invalid regular expression: {error}", "无效的正则表达式：{error}"),
    "te_command_nul": (
        "the command contains a NUL byte, which no shell command can hold",
        "命令中含有 NUL 字节，shell 命令不能包含它",
    ),
    "te_cannot_run": ("cannot run the command: {error}", "无法运行命令：{error}"),
    # --- MCP servers, web, sub-agents ---
    "te_mcp_down": ("the MCP server {name} is not running ({why})", "MCP 服务器 {name} 没有在运行（{why}）"),
    "te_mcp_failed": ("the MCP server {name} failed: {error}", "MCP 服务器 {name} 出错：{error}"),
    "te_fetch_failed": ("fetching {url} failed: {error}", "获取 {url} 失败：{error}"),
    "te_http": ("HTTP {status}", "HTTP {status}"),
    "te_subagent_stopped": ("the sub-agent stopped: {why}", "子代理中止了：{why}"),
    "te_prompt_empty": ("the prompt is empty; say the whole job", "提示词为空"),
    "te_no_subagent": (
        "no sub-agent is named {name}; the defined ones: {known}",
        "没有名为 {name} 的子代理；已定义的有：{known}",
    ),
    "te_subagent_tools": (
        "a sub-agent cannot have {names}; it may have {allowed}",
        "子代理不能使用 {names}；可用的是：{allowed}",
    ),
}


# A field whose text has a shape of its own: edit_file's hint is empty or a sentence after a space.
FIELD_PATTERNS = {"hint": r"(?: .*?)?"}


@cache
def _patterns() -> list[tuple[re.Pattern[str], str]]:
    """Each failure's English wording as a pattern, its fields as groups; the longest wording first,
    so that "no such file: x; use write_file to create it" is not taken for "no such file: {path}"."""
    found = []
    for key, (en, _zh) in TOOL_TEXTS.items():
        if not key.startswith("te_"):
            continue
        pieces = re.split(r"\{(\w+)\}", en)
        pattern = "".join(
            re.escape(piece) if n % 2 == 0 else f"(?P<{piece}>{FIELD_PATTERNS.get(piece, '.*?')})"
            for n, piece in enumerate(pieces)
        )
        found.append((len("".join(pieces[::2])), re.compile(pattern, re.S), key))
    return [(pattern, key) for _size, pattern, key in sorted(found, key=lambda f: -f[0])]


def match_error(text: str) -> tuple[str, dict[str, str]] | None:
    """(key, values) of the failure `text` is (without "Error: "), or None for one this table lacks."""
    for pattern, key in _patterns():
        if found := pattern.fullmatch(text):
            return key, found.groupdict()
    return None


def is_reference(answer: str) -> bool:
    """Whether a read_file answer is the note that an earlier read's text, still above, is unchanged
    (agent.tools.rereads writes it, in either language): the note shows no text of its own."""
    return any(answer.startswith(template.split("{path}")[0]) for template in TOOL_TEXTS["read_unchanged"])
