"""Money and the window's contents in a real terminal: /status and /context, --cheap-tier."""

from __future__ import annotations

from tests.pty_kit import ask, leave, spawn, type_line, wait_prompt


def test_status_and_context_in_a_real_terminal(workspace, home, live_server):
    (workspace / "code.py").write_text("def add(a, b):\n    return a + b\n" * 50)
    child = spawn(workspace, home, live_server, "--model", "deepseek-v4-flash", "--cheap-tier", "off")
    wait_prompt(child)
    ask(child, "read code.py", "Done: read_file")
    type_line(child, "/status")
    child.expect(r"Cost so far: \$[0-9.]+ \(cache hits")
    child.expect(r"served from the prefix cache")
    child.expect(r"--cheap-tier off\): not needed yet")
    wait_prompt(child)
    type_line(child, "/context")
    child.expect("Instructions \\+ tools")
    child.expect("Tool results: read_file")
    child.expect("Free")
    wait_prompt(child)
    leave(child, "/exit")


def test_context_in_chinese(workspace, home, live_server, monkeypatch):
    monkeypatch.setenv("CODING_AGENT_CHEAP_TIER", "on")
    child = spawn(workspace, home, live_server, lang="zh")
    wait_prompt(child)
    ask(child, "你好", "Echo: 你好")
    type_line(child, "/context")
    child.expect("指令 \\+ 工具定义")
    child.expect("用户消息")
    child.expect("空闲")
    wait_prompt(child)
    ask(child, "/status", r"--cheap-tier on")
    leave(child, "/exit")
