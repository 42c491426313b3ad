"""A Claude Code user's keys and everyday commands in a real terminal: `!command`, `# note`, Esc,
`\\` + Enter, /cost, /permissions, /hooks, /add-dir, /export, /doctor and /review. Typed as a person
would; what they see is read off a pyte screen, what the model got off the server's requests."""

from __future__ import annotations

import json
import subprocess

from tests.pty_kit import ASKED, ask, leave, screen_of, shown, spawn, type_line, wait_prompt


def user_texts(body: dict) -> list[str]:
    return [
        m["content"] if isinstance(m["content"], str) else json.dumps(m["content"])
        for m in body["messages"]
        if m["role"] == "user"
    ]


def test_bang_runs_a_command_and_the_model_knows_what_it_printed(workspace, home, live_server):
    child = spawn(workspace, home, live_server)
    screen = screen_of(child)
    wait_prompt(child)
    ask(child, "!echo made-by-$((6*7))", "made-by-42", exact=True)
    assert not live_server.requests  # the model was not asked
    ask(child, "what did it print?", "Echo: what did it print")
    said = "\n".join(user_texts(live_server.requests[-1]["body"]))
    assert "echo made-by-$((6*7))" in said and "made-by-42" in said
    assert shown(screen, "made-by-42")
    leave(child)


def test_hash_adds_the_note_to_the_memory_file_the_user_picks(workspace, home, live_server):
    (workspace / "CLAUDE.md").write_text("# Rules\n- be brief")  # a Claude Code user's file, no newline at its end
    child = spawn(workspace, home, live_server)
    screen = screen_of(child)
    wait_prompt(child)
    type_line(child, "# lint before every commit")
    child.expect_exact("Add it to which memory file?")
    ask(child, "p", "Added to", exact=True)
    assert (workspace / "CLAUDE.md").read_text() == "# Rules\n- be brief\n- lint before every commit\n"
    type_line(child, "# keep answers short")
    child.expect_exact("Add it to which memory file?")
    ask(child, "u", "Added to", exact=True)
    assert (home / "AGENTS.md").read_text() == "- keep answers short\n"
    ask(child, "ok", "Echo: ok")
    said = "\n".join(user_texts(live_server.requests[-1]["body"]))
    assert "lint before every commit" in said and "keep answers short" in said
    assert not shown(screen, "Unknown command")
    leave(child)


def test_backslash_enter_continues_the_line(workspace, home, live_server):
    child = spawn(workspace, home, live_server)
    wait_prompt(child)
    child.send("first part \\")
    child.send("\r")
    ask(child, "second part", "Echo: first part")
    assert user_texts(live_server.requests[-1]["body"])[-1] == "first part \nsecond part"
    leave(child)


def test_esc_interrupts_a_turn_and_keeps_the_message(workspace, home, live_server):
    child = spawn(workspace, home, live_server)
    screen = screen_of(child)
    wait_prompt(child)
    type_line(child, "tell a slow story")
    child.expect("Slow answer part 2")
    child.send("\x1b")
    child.expect_exact("Interrupted")
    wait_prompt(child)
    assert shown(screen, "Interrupted")
    ask(child, "again", "Echo: again")
    assert "tell a slow story" in user_texts(live_server.requests[-1]["body"])
    leave(child)


def test_cost_shows_the_sessions_figures(workspace, home, live_server):
    child = spawn(workspace, home, live_server)
    screen = screen_of(child)
    wait_prompt(child)
    ask(child, "hello", "Echo: hello")
    ask(child, "/cost", "This session:", exact=True)
    counted = live_server.requests[-1]["prompt_tokens"]
    assert shown(screen, f"Tokens used: 1 requests, input {counted:,}")
    leave(child)


def test_permissions_add_list_and_remove_a_rule(workspace, home, live_server):
    (workspace / ".env").write_text("SECRET=1\n")
    local = workspace / ".coding-agent" / "settings.local.json"
    child = spawn(workspace, home, live_server)
    screen = screen_of(child)
    wait_prompt(child)
    type_line(child, "/permissions add deny Read(./.env)")
    child.expect_exact("Save it where?")
    ask(child, "l", "Added deny Read(./.env)", exact=True)
    assert json.loads(local.read_text())["permissions"]["deny"] == ["Read(./.env)"]
    ask(child, "read .env", "Done: read_file returned")
    assert "SECRET" not in json.dumps(live_server.requests[-1]["body"])
    type_line(child, "/permissions add ask run_command(make deploy)")
    child.expect_exact("Save it where?")
    ask(child, "u", "Added ask", exact=True)
    assert json.loads((home / "settings.json").read_text())["permissions"]["ask"] == ["run_command(make deploy)"]
    ask(child, "/permissions", "Permission rules", exact=True)
    assert shown(screen, "1. deny  Read(./.env)")
    assert shown(screen, "2. ask   run_command(make deploy)")
    ask(child, "/permissions remove 1", "Removed deny Read(./.env)", exact=True)
    assert json.loads(local.read_text())["permissions"]["deny"] == []
    ask(child, "read .env", "Done: read_file returned")
    assert "SECRET=1" in json.dumps(live_server.requests[-1]["body"])
    leave(child)


def test_hooks_lists_each_hook_with_its_file(workspace, home, live_server):
    home.mkdir(parents=True, exist_ok=True)
    hook = {"matcher": "run_command", "hooks": [{"type": "command", "command": "echo checked"}]}
    (home / "settings.json").write_text(json.dumps({"hooks": {"PreToolUse": [hook]}}))
    child = spawn(workspace, home, live_server)
    screen = screen_of(child)
    wait_prompt(child)
    ask(child, "/hooks", "Hooks (event", exact=True)
    assert shown(screen, "PreToolUse [run_command]")
    assert shown(screen, "echo checked")
    leave(child)


def test_add_dir_makes_a_folder_readable_and_writable_in_the_sandbox_too(workspace, home, live_server, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    child = spawn(workspace, home, live_server, "--permission-mode", "acceptEdits")
    screen = screen_of(child)
    wait_prompt(child)
    ask(child, f"write {other}/note.txt before", "Done: write_file returned")
    assert not (other / "note.txt").exists()
    ask(child, f"/add-dir {other}", "Added ", exact=True)
    ask(child, f"write {other}/note.txt after", "Done: write_file returned")
    assert (other / "note.txt").read_text() == "after"
    # The added folder's file comes back as it was (it was not there).
    ask(child, "/undo", "(1 file(s) restored)", exact=True)
    assert not (other / "note.txt").exists()
    # A command in the OS sandbox may write there too, unasked, as in the workspace.
    ask(child, f"run touch {other}/made.txt", "Done: run_command returned")
    assert (other / "made.txt").exists()
    assert not shown(screen, "outside the sandbox")
    leave(child)


def test_export_writes_the_conversation_and_never_over_a_file(workspace, home, live_server):
    child = spawn(workspace, home, live_server)
    screen = screen_of(child)
    wait_prompt(child)
    ask(child, "hello export", "Echo: hello export")
    ask(child, "/export talk.md", "Wrote 2 messages", exact=True)
    text = (workspace / "talk.md").read_text()
    assert "## User\n\nhello export" in text and "## Assistant\n\nEcho: hello export" in text
    ask(child, "/export talk.md", "already exists", exact=True)
    assert shown(screen, "not overwritten")
    leave(child)


def test_doctor_gives_each_part_a_verdict(workspace, home, live_server):
    (workspace / ".coding-agent").mkdir()
    (workspace / ".coding-agent" / "settings.json").write_text("{not json")
    (workspace / ".claude").mkdir()
    (workspace / ".claude" / "settings.local.json").write_text("{}")
    child = spawn(workspace, home, live_server, "--context-window", "64000")
    screen = screen_of(child)
    wait_prompt(child)
    ask(child, "/doctor", "to check above", exact=True)
    assert shown(screen, f"✓ ok · Endpoint: {live_server.base_url}")
    assert shown(screen, "✓ ok · Context window: 64,000 tokens")
    assert shown(screen, "· note · API key: none")
    assert shown(screen, "✓ ok · Sandbox: workspace-write (bubblewrap") or shown(screen, "! check · Sandbox")
    assert shown(screen, f"! check · Settings {workspace}/.coding-agent/settings.json: not valid JSON")
    assert shown(screen, "thing(s) to check above")
    local = workspace / ".claude" / "settings.local.json"
    assert shown(screen, f"✓ ok · {local}: read") or shown(screen, f"! check · {local}: Claude Code's file: not read")
    leave(child)


def test_doctor_in_chinese_and_an_endpoint_that_does_not_answer(workspace, home, live_server):
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


def test_review_sends_the_working_trees_diff(workspace, home, live_server):
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


def test_review_outside_a_repository_says_so(workspace, home, live_server):
    child = spawn(workspace, home, live_server, *ASKED)
    screen = screen_of(child)
    wait_prompt(child)
    ask(child, "/review", "Not a git repository", exact=True)
    assert not live_server.requests
    assert shown(screen, "/review reviews `git diff HEAD`")
    leave(child)
