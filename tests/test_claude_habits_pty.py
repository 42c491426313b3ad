"""A Claude Code user's files and habits in a real terminal: an image dropped into an empty prompt,
custom commands (namespaced, `!` lines asked, added while running), /agents, and a Chinese session's
tool lines. What the user sees is read off a pyte screen."""

from __future__ import annotations

import json

import pexpect

from tests.test_images import image_parts, png
from tests.test_repl_pty import Screen, live_server, spawn, type_line, wait_prompt  # noqa: F401 - fixture

PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"  # a terminal's bracketed paste, as a drop sends it


def screen_of(child: pexpect.spawn) -> Screen:
    screen = Screen(child)
    screen.write(child.before + child.after + child.buffer)
    return screen


def shown(screen: Screen, text: str) -> bool:
    return any(text in line for line in screen.lines())


def test_an_image_dropped_into_an_empty_prompt_is_sent_not_taken_for_a_command(workspace, home, tmp_path,
                                                                                live_server):  # noqa: F811
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
    child.sendeof()
    child.expect(pexpect.EOF)


def test_custom_commands_in_the_terminal(workspace, home, live_server):  # noqa: F811
    commands = workspace / ".claude" / "commands"
    (commands / "frontend").mkdir(parents=True)
    (commands / "frontend" / "component.md").write_text("---\ndescription: Make a component\n---\nMake $1.")
    child = spawn(workspace, home, live_server)
    screen = screen_of(child)
    wait_prompt(child)
    type_line(child, "/help")
    child.expect_exact("/frontend:component")
    wait_prompt(child)
    assert shown(screen, "/frontend:component [arguments] (/component) — Make a component")
    # Written while the REPL runs: found at once. Its ! line is asked like any command.
    (commands / "branch.md").write_text("On branch: !`echo feature-x`. Review it.")
    type_line(child, "/branch")
    child.expect_exact("Run command")
    child.expect_exact("[p]roject:")
    assert shown(screen, "echo feature-x")
    type_line(child, "y")
    child.expect("Echo: ")
    wait_prompt(child)
    assert "On branch: feature-x. Review it." in json.dumps(live_server.requests[-1]["body"])
    type_line(child, "/agents")
    child.expect_exact("No sub-agents are defined")
    wait_prompt(child)
    child.sendeof()
    child.expect(pexpect.EOF)


def test_a_chinese_session_shows_the_tools_failures_in_chinese(workspace, home, live_server):  # noqa: F811
    agents = workspace / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "reviewer.md").write_text("---\nname: reviewer\ndescription: 审查\n---\n审查代码。")
    # Outside the OS sandbox: there the command would run unasked, and the declined answer is the point.
    child = spawn(workspace, home, live_server, "--permission-mode", "default", "--sandbox", "danger-full-access",
                  lang="zh")
    screen = screen_of(child)
    wait_prompt(child)
    type_line(child, "run touch made.txt")
    child.expect_exact("运行命令")
    child.expect_exact("[p]本项目一直允许:")
    type_line(child, "n")
    child.expect("Done: run_command returned")
    wait_prompt(child)
    assert shown(screen, "⎿ 错误：你拒绝了运行这条命令")
    type_line(child, "read missing.txt")
    child.expect("Done: read_file returned")
    wait_prompt(child)
    assert shown(screen, "⎿ 错误：文件不存在：missing.txt")
    type_line(child, "/agents")
    child.expect_exact("模型可以把任务交给这些子代理")
    wait_prompt(child)
    assert shown(screen, "工具：子代理可用的全部工具 · 模型：与会话相同")
    assert not any("Error" in line or "declined" in line for line in screen.lines())
    assert not (workspace / "made.txt").exists()
    child.sendeof()
    child.expect(pexpect.EOF)
