"""A Claude Code user's files and habits in a real terminal: an image dropped into an empty prompt,
custom commands (namespaced, `!` lines asked, added while running), /agents, and a Chinese session's
tool lines. What the user sees is read off a pyte screen."""

from __future__ import annotations

import json

from tests.agent.tools.test_images import image_parts, png
from tests.pty_kit import ask, leave, screen_of, shown, spawn, type_line, wait_prompt

PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"  # a terminal's bracketed paste, as a drop sends it


def test_an_image_dropped_into_an_empty_prompt_is_sent_not_taken_for_a_command(workspace, home, tmp_path, live_server):
    folder = tmp_path / "Screen Shots"
    folder.mkdir()
    (folder / "shot.png").write_bytes(png(40, 30))
    dropped = str(folder / "shot.png").replace(" ", "\\ ")
    child = spawn(workspace, home, live_server)
    screen = screen_of(child)
    wait_prompt(child)
    child.send(PASTE_START + dropped + PASTE_END)
    type_line(child, " why is the button grey?")
    child.expect_exact("Attached")
    child.expect("Echo: ")
    wait_prompt(child)
    assert not shown(screen, "Unknown command")
    assert image_parts(live_server.requests[-1]["body"])  # the image went with the message
    assert " why is the button grey?" in json.dumps(live_server.requests[-1]["body"])
    leave(child)


def test_custom_commands_in_the_terminal(workspace, home, live_server):
    commands = workspace / ".claude" / "commands"
    (commands / "frontend").mkdir(parents=True)
    (commands / "frontend" / "component.md").write_text("---\ndescription: Make a component\n---\nMake $1.")
    child = spawn(workspace, home, live_server)
    screen = screen_of(child)
    wait_prompt(child)
    ask(child, "/help", "/frontend:component", exact=True)
    assert shown(screen, "/frontend:component [arguments] (/component) — Make a component")
    # Written while the REPL runs: found at once. Its ! line is asked like any command.
    (commands / "branch.md").write_text("On branch: !`echo feature-x`. Review it.")
    type_line(child, "/branch")
    child.expect_exact("Run command")
    child.expect_exact("[p]roject:")
    assert shown(screen, "echo feature-x")
    ask(child, "y", "Echo: ")
    assert "On branch: feature-x. Review it." in json.dumps(live_server.requests[-1]["body"])
    ask(child, "/agents", "No sub-agents are defined", exact=True)
    leave(child)


def test_a_chinese_session_shows_the_tools_failures_in_chinese(workspace, home, live_server):
    agents = workspace / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "reviewer.md").write_text("---\nname: reviewer\ndescription: 审查\n---\n审查代码。")
    # Outside the OS sandbox: there the command would run unasked, and the declined answer is the point.
    child = spawn(
        workspace, home, live_server, "--permission-mode", "default", "--sandbox", "danger-full-access", lang="zh"
    )
    screen = screen_of(child)
    wait_prompt(child)
    type_line(child, "run touch made.txt")
    child.expect_exact("运行命令")
    child.expect_exact("[p]本项目一直允许:")
    ask(child, "n", "Done: run_command returned")
    assert shown(screen, "⎿ 错误：你拒绝了运行这条命令")
    ask(child, "read missing.txt", "Done: read_file returned")
    assert shown(screen, "⎿ 错误：文件不存在：missing.txt")
    ask(child, "/agents", "模型可以把任务交给这些子代理", exact=True)
    assert shown(screen, "工具：子代理可用的全部工具 · 模型：与会话相同")
    assert not any("Error" in line or "declined" in line for line in screen.lines())
    assert not (workspace / "made.txt").exists()
    leave(child)
