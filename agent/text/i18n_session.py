"""Texts of sessions: their files, start, resume, locks and the first lines (`--demo`, the agent's own
checkout), in English and Chinese; agent.text.i18n merges them into its table."""

from __future__ import annotations

SESSION_TEXTS: dict[str, tuple[str, str]] = {
    # key: (en, zh)
    "save_failed": (
        "Could not write the session file ({error}); the conversation goes on in memory and is saved "
        "once writing works again.",
        "无法写入会话文件（{error}）；对话继续保存在内存中，等写入恢复后再存盘。",
    ),
    "no_such_session": ("No session {id} in this directory.", "本目录没有会话 {id}。"),
    "no_sessions_yet": ("No sessions in this directory yet; starting a new one.", "本目录还没有会话，开始新会话。"),
    "pick_number": ("Session number (Enter for a new one): ", "会话编号（回车开始新会话）："),
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
    "session_word": ("session", "会话"),
    "interrupted": ("⏹ Interrupted", "⏹ 已中断"),
    "resumed": ("Resumed {n} messages", "已恢复 {n} 条消息"),
    "data_home_unusable": (
        "Cannot use the data folder {path} ({error}): sessions could not be saved. "
        "Make it writable, free some space, or set CODING_AGENT_HOME to another folder.",
        "无法使用数据目录 {path}（{error}）：会话无法保存。"
        "请让它可写、腾出空间，或把 `CODING_AGENT_HOME` 设为别的目录。",
    ),
    "session_newer": (
        "This session was written by a newer coding-agent-compact (file format {version}; this one reads up "
        "to {current}): what it could not read was skipped. Update to resume it whole.",
        "此会话由更新版本的 `coding-agent-compact` 写入（文件格式 {version}，本版本最多读到 {current}）："
        "读不了的部分已跳过。请升级后再完整恢复。",
    ),
    "demo_started": (
        "Demo: no model, the built-in emulator ({url}) answers. `read FILE` reads a file, `run COMMAND` "
        "runs one, anything else is echoed; the window is small, so compaction comes soon. "
        "/exit stops the emulator too.",
        "演示模式：没有模型，由内置模拟器（{url}）回答。`read 文件` 读取文件，`run 命令` 运行命令，"
        "其他内容原样回显；窗口很小，很快就会压缩。/exit 会一并停止模拟器。",
    ),
    "demo_unavailable": (
        "--demo needs the emulator of a source checkout ({path}): clone the repository and install it "
        "with `pip install -e .`",
        "--demo 需要源码目录里的模拟器（{path}）：请克隆仓库并用 `pip install -e .` 安装",
    ),
    "own_checkout": (
        "This is the agent's own source folder: its sessions and settings will be about the agent. To work "
        "on a project, start it there: `cd your-project && coding-agent`.",
        "这是本代理自己的源码目录：会话和设置都会以它为对象。要处理你的项目，请在项目目录中启动："
        "`cd 你的项目 && coding-agent`。",
    ),
    "resumed_turns": (
        "Resumed {n} messages; the last {shown} of {turns} turn(s):",
        "已恢复 {n} 条消息；以下是 {turns} 轮中的最后 {shown} 轮：",
    ),
    "resumed_more": ("… {n} earlier turn(s)", "……更早的 {n} 轮"),
    "new_session": ("New session: {id}", "新会话：{id}"),
    "no_other_sessions": ("No other sessions.", "没有其他会话。"),
    "resume_number": ("Number: ", "编号："),
    "resumed_session": ("Resumed session {id}", "已恢复会话 {id}"),
    "nothing_to_undo": ("Nothing to undo.", "没有可撤销的轮次。"),
    "undone": ("Undone: {words} ({n} file(s) restored)", "已撤销：{words}（恢复了 {n} 个文件）"),
}
