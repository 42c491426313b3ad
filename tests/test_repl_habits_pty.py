"""A Claude Code user's keys and everyday commands in a real terminal: `!command`, `# note`, Esc,
`\\` + Enter, /cost, /permissions, /hooks, /add-dir, /export, /doctor and /review. Typed as a person
would; what they see is read off a pyte screen, what the model got off the server's requests."""

from __future__ import annotations

import json
import subprocess

import pexpect

from tests.test_repl_pty import ASKED, Screen, live_server, spawn, type_line, wait_prompt  # noqa: F401 - fixture


def screen_of(child: pexpect.spawn) -> Screen:
    screen = Screen(child)
    screen.write(child.before + child.after + child.buffer)
    return screen


def shown(screen: Screen, text: str) -> bool:
    """`text` on the screen, also where it was wrapped: a full row runs on into the next, a row rich
    broke at a space goes on after one space."""
    rows = screen.screen.display
    joined = " ".join("".join(row if row[-1:] != " " else row.rstrip() + "\n" for row in rows).split())
    return any(text in row for row in rows) or " ".join(text.split()) in joined


def user_texts(body: dict) -> list[str]:
    return [m["content"] if isinstance(m["content"], str) else json.dumps(m["content"])
            for m in body["messages"] if m["role"] == "user"]


def leave(child: pexpect.spawn) -> None:
    child.sendeof()
    child.expect(pexpect.EOF)


def test_bang_runs_a_command_and_the_model_knows_what_it_printed(workspace, home, live_server):  # noqa: F811
    child = spawn(workspace, home, live_server)
    screen = screen_of(child)
    wait_prompt(child)
    type_line(child, "!echo made-by-$((6*7))")
    child.expect_exact("made-by-42")
    wait_prompt(child)
    assert not live_server.requests  # the model was not asked
    type_line(child, "what did it print?")
    child.expect("Echo: what did it print")
    wait_prompt(child)
    said = "\n".join(user_texts(live_server.requests[-1]["body"]))
    assert "echo made-by-$((6*7))" in said and "made-by-42" in said
    assert shown(screen, "made-by-42")
    leave(child)


def test_hash_adds_the_note_to_the_memory_file_the_user_picks(workspace, home, live_server):  # noqa: F811
    (workspace / "CLAUDE.md").write_text("# Rules\n- be brief")  # a Claude Code user's file, no newline at its end
    child = spawn(workspace, home, live_server)
    screen = screen_of(child)
    wait_prompt(child)
    type_line(child, "# lint before every commit")
    child.expect_exact("Add it to which memory file?")
    type_line(child, "p")
    child.expect_exact("Added to")
    wait_prompt(child)
    assert (workspace / "CLAUDE.md").read_text() == "# Rules\n- be brief\n- lint before every commit\n"
    type_line(child, "# keep answers short")
    child.expect_exact("Add it to which memory file?")
    type_line(child, "u")
    child.expect_exact("Added to")
    wait_prompt(child)
    assert (home / "AGENTS.md").read_text() == "- keep answers short\n"
    type_line(child, "ok")
    child.expect("Echo: ok")
    wait_prompt(child)
    said = "\n".join(user_texts(live_server.requests[-1]["body"]))
    assert "lint before every commit" in said and "keep answers short" in said
    assert not shown(screen, "Unknown command")
    leave(child)


def test_backslash_enter_continues_the_line(workspace, home, live_server):  # noqa: F811
    child = spawn(workspace, home, live_server)
    wait_prompt(child)
    child.send("first part \\")
    child.send("\r")
    type_line(child, "second part")
    child.expect("Echo: first part")
    wait_prompt(child)
    assert user_texts(live_server.requests[-1]["body"])[-1] == "first part \nsecond part"
    leave(child)


def test_esc_interrupts_a_turn_and_keeps_the_message(workspace, home, live_server):  # noqa: F811
    child = spawn(workspace, home, live_server)
    screen = screen_of(child)
    wait_prompt(child)
    type_line(child, "tell a slow story")
    child.expect("Slow answer part 2")
    child.send("\x1b")
    child.expect_exact("Interrupted")
    wait_prompt(child)
    assert shown(screen, "Interrupted")
    type_line(child, "again")
    child.expect("Echo: again")
    wait_prompt(child)
    assert "tell a slow story" in user_texts(live_server.requests[-1]["body"])
    leave(child)


def test_cost_shows_the_sessions_figures(workspace, home, live_server):  # noqa: F811
    child = spawn(workspace, home, live_server)
    screen = screen_of(child)
    wait_prompt(child)
    type_line(child, "hello")
    child.expect("Echo: hello")
    wait_prompt(child)
    type_line(child, "/cost")
    child.expect_exact("This session:")
    wait_prompt(child)
    counted = live_server.requests[-1]["prompt_tokens"]
    assert shown(screen, f"Tokens used: 1 requests, input {counted:,}")
    leave(child)


def test_permissions_add_list_and_remove_a_rule(workspace, home, live_server):  # noqa: F811
    (workspace / ".env").write_text("SECRET=1\n")
    local = workspace / ".coding-agent" / "settings.local.json"
    child = spawn(workspace, home, live_server)
    screen = screen_of(child)
    wait_prompt(child)
    type_line(child, "/permissions add deny Read(./.env)")
    child.expect_exact("Save it where?")
    type_line(child, "l")
    child.expect_exact("Added deny Read(./.env)")
    wait_prompt(child)
    assert json.loads(local.read_text())["permissions"]["deny"] == ["Read(./.env)"]
    type_line(child, "read .env")
    child.expect("Done: read_file returned")
    wait_prompt(child)
    assert "SECRET" not in json.dumps(live_server.requests[-1]["body"])
    type_line(child, "/permissions add ask run_command(make deploy)")
    child.expect_exact("Save it where?")
    type_line(child, "u")
    child.expect_exact("Added ask")
    wait_prompt(child)
    assert json.loads((home / "settings.json").read_text())["permissions"]["ask"] == ["run_command(make deploy)"]
    type_line(child, "/permissions")
    child.expect_exact("Permission rules")
    wait_prompt(child)
    assert shown(screen, "1. deny  Read(./.env)")
    assert shown(screen, "2. ask   run_command(make deploy)")
    type_line(child, "/permissions remove 1")
    child.expect_exact("Removed deny Read(./.env)")
    wait_prompt(child)
    assert json.loads(local.read_text())["permissions"]["deny"] == []
    type_line(child, "read .env")
    child.expect("Done: read_file returned")
    wait_prompt(child)
    assert "SECRET=1" in json.dumps(live_server.requests[-1]["body"])
    leave(child)


def test_hooks_lists_each_hook_with_its_file(workspace, home, live_server):  # noqa: F811
    home.mkdir(parents=True, exist_ok=True)
    hook = {"matcher": "run_command", "hooks": [{"type": "command", "command": "echo checked"}]}
    (home / "settings.json").write_text(json.dumps({"hooks": {"PreToolUse": [hook]}}))
    child = spawn(workspace, home, live_server)
    screen = screen_of(child)
    wait_prompt(child)
    type_line(child, "/hooks")
    child.expect_exact("Hooks (event")
    wait_prompt(child)
    assert shown(screen, "PreToolUse [run_command]")
    assert shown(screen, "echo checked")
    leave(child)


def test_add_dir_makes_a_folder_readable_and_writable_in_the_sandbox_too(workspace, home, live_server,  # noqa: F811
                                                                           tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    child = spawn(workspace, home, live_server, "--permission-mode", "acceptEdits")
    screen = screen_of(child)
    wait_prompt(child)
    type_line(child, f"write {other}/note.txt before")
    child.expect("Done: write_file returned")
    wait_prompt(child)
    assert not (other / "note.txt").exists()
    type_line(child, f"/add-dir {other}")
    child.expect_exact("Added ")
    wait_prompt(child)
    type_line(child, f"write {other}/note.txt after")
    child.expect("Done: write_file returned")
    wait_prompt(child)
    assert (other / "note.txt").read_text() == "after"
    type_line(child, "/undo")  # the added folder's file comes back as it was (it was not there)
    child.expect_exact("(1 file(s) restored)")
    wait_prompt(child)
    assert not (other / "note.txt").exists()
    # A command in the OS sandbox may write there too, unasked, as in the workspace.
    type_line(child, f"run touch {other}/made.txt")
    child.expect("Done: run_command returned")
    wait_prompt(child)
    assert (other / "made.txt").exists()
    assert not shown(screen, "outside the sandbox")
    leave(child)


def test_export_writes_the_conversation_and_never_over_a_file(workspace, home, live_server):  # noqa: F811
    child = spawn(workspace, home, live_server)
    screen = screen_of(child)
    wait_prompt(child)
    type_line(child, "hello export")
    child.expect("Echo: hello export")
    wait_prompt(child)
    type_line(child, "/export talk.md")
    child.expect_exact("Wrote 2 messages")
    wait_prompt(child)
    text = (workspace / "talk.md").read_text()
    assert "## User\n\nhello export" in text and "## Assistant\n\nEcho: hello export" in text
    type_line(child, "/export talk.md")
    child.expect_exact("already exists")
    wait_prompt(child)
    assert shown(screen, "not overwritten")
    leave(child)


def test_doctor_gives_each_part_a_verdict(workspace, home, live_server):  # noqa: F811
    (workspace / ".coding-agent").mkdir()
    (workspace / ".coding-agent" / "settings.json").write_text("{not json")
    (workspace / ".claude").mkdir()
    (workspace / ".claude" / "settings.local.json").write_text("{}")
    child = spawn(workspace, home, live_server, "--context-window", "64000")
    screen = screen_of(child)
    wait_prompt(child)
    type_line(child, "/doctor")
    child.expect_exact("to check above")
    wait_prompt(child)
    assert shown(screen, f"✓ ok · Endpoint: {live_server.base_url}")
    assert shown(screen, "✓ ok · Context window: 64,000 tokens")
    assert shown(screen, "· note · API key: none")
    assert shown(screen, "✓ ok · Sandbox: workspace-write (bubblewrap") or shown(screen, "! check · Sandbox")
    assert shown(screen, f"! check · Settings {workspace}/.coding-agent/settings.json: not valid JSON")
    assert shown(screen, "thing(s) to check above")
    local = workspace / ".claude" / "settings.local.json"
    assert shown(screen, f"✓ ok · {local}: read") or shown(screen, f"! check · {local}: Claude Code's file: not read")
    leave(child)


def test_doctor_in_chinese_and_an_endpoint_that_does_not_answer(workspace, home, live_server):  # noqa: F811
    import socket

    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    child = spawn(workspace, home, live_server, "--base-url", dead, lang="zh")
    screen = screen_of(child)
    wait_prompt(child)
    type_line(child, "/doctor")
    child.expect_exact("本会话的运行环境")
    child.expect_exact("个问题")
    wait_prompt(child)
    assert shown(screen, f"✗ 有问题 · 接口地址：{dead}：无法连接")
    leave(child)


def test_review_sends_the_working_trees_diff(workspace, home, live_server):  # noqa: F811
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    (workspace / "app.py").write_text("def add(a, b):\n    return a + b\n")
    subprocess.run([*git, "init", "-q"], cwd=workspace, check=True)
    subprocess.run([*git, "add", "app.py"], cwd=workspace, check=True)
    subprocess.run([*git, "commit", "-qm", "start"], cwd=workspace, check=True)
    (workspace / "app.py").write_text("def add(a, b):\n    return a - b\n")
    (workspace / "new.py").write_text("x = 1\n")
    child = spawn(workspace, home, live_server)
    wait_prompt(child)
    type_line(child, "/review")
    child.expect_exact("Sending the diff of 1 file(s)")
    child.expect("Echo: Review the changes")
    wait_prompt(child)
    asked = user_texts(live_server.requests[-1]["body"])[-1]
    assert "-    return a + b\n+    return a - b" in asked
    assert "untracked files (not in the diff):\nnew.py" in asked
    leave(child)


def test_review_outside_a_repository_says_so(workspace, home, live_server):  # noqa: F811
    child = spawn(workspace, home, live_server, *ASKED)
    screen = screen_of(child)
    wait_prompt(child)
    type_line(child, "/review")
    child.expect_exact("Not a git repository")
    wait_prompt(child)
    assert not live_server.requests
    assert shown(screen, "/review reviews `git diff HEAD`")
    leave(child)
