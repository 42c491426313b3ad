"""Texts about the session file's format (agent.store.session_format), merged into agent.text.i18n.TEXTS."""

from __future__ import annotations

SESSION_TEXTS: dict[str, tuple[str, str]] = {
    # key: (en, zh)
    "session_newer": (
        "This session was written by a newer coding-agent-compact (file format {version}; this one reads up "
        "to {current}): what it could not read was skipped. Update to resume it whole.",
        "此会话由更新版本的 `coding-agent-compact` 写入（文件格式 {version}，本版本最多读到 {current}）："
        "读不了的部分已跳过。请升级后再完整恢复。",
    ),
}
