"""Texts of a session's first lines: --demo, a start in the agent's own checkout, the turns shown on
resuming; merged into agent.text.i18n.TEXTS."""

from __future__ import annotations

START_TEXTS: dict[str, tuple[str, str]] = {
    # key: (en, zh)
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
}
