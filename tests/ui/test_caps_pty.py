"""Issue 25's REPL-visible parts in a real pseudo-terminal (helpers from tests/pty_kit.py)."""

from __future__ import annotations

from tests.pty_kit import ask, leave, spawn, started, type_line, wait_prompt

PLAN = "todo plan the change; [>] write the code; [x] read the spec"


def test_the_task_list_is_drawn_when_it_changes_and_after_a_resume(workspace, home, live_server):
    child, screen = started(workspace, home, live_server)
    type_line(child, PLAN)
    child.expect_exact("Tasks (1/3 done)")
    child.expect("Done: todo returned")
    wait_prompt(child)
    assert screen.count("☐ plan the change") == 1 and screen.count("▶ write the code") == 1
    leave(child, "/exit")

    # The list lives in the history: a resumed session has it.
    child, screen = started(workspace, home, live_server, "--continue")
    ask(child, "/todos", "Tasks (1/3 done)", exact=True)
    assert screen.count("☑ read the spec") == 1
    leave(child)


def test_the_first_fetch_of_a_domain_is_asked_in_the_terminal(workspace, home, live_server):
    from tests.agent.tools.test_fetch_url import Site

    site = Site()
    try:
        child = spawn(workspace, home, live_server, "--fetch-allow-network", "127.0.0.0/8")
        wait_prompt(child)
        type_line(child, f"fetch {site.url}/page")
        child.expect_exact("Fetch from 127.0.0.1")
        child.expect_exact("[a]lways")
        child.send("a\r")
        child.expect("Done: fetch_url returned")
        wait_prompt(child)
        type_line(child, f"fetch {site.url}/long")
        child.expect("Done: fetch_url returned")  # the domain was allowed for the session: no question
        assert "Fetch from" not in child.before
        wait_prompt(child)
        assert [r["path"] for r in site.requests] == ["/page", "/long"]
        leave(child)
    finally:
        site.stop()


def test_an_image_is_attached_or_refused_with_a_clear_line(workspace, home, live_server):
    from tests.agent.tools.test_images import png

    (workspace / "shot.png").write_bytes(png(40, 30))
    child = spawn(workspace, home, live_server)
    wait_prompt(child)
    type_line(child, "what is in @shot.png?")
    child.expect_exact("Attached @shot.png")
    child.expect("Echo: ")  # the emulator echoes the last user message: the image's
    wait_prompt(child)
    leave(child)
    assert any(
        part.get("type") == "image_url"
        for m in live_server.requests[-1]["body"]["messages"]
        if isinstance(m.get("content"), list)
        for part in m["content"]
    )

    # A model without images: tests/agent/tools/test_images.py (the clear line, the text sent, no 400).


def test_model_switch_in_the_terminal(workspace, home, live_server):
    child = spawn(workspace, home, live_server)
    wait_prompt(child)
    ask(child, "hello", "Echo: hello")
    type_line(child, "/model deepseek-v4-pro")
    child.expect_exact("Switched to deepseek-v4-pro")
    child.expect_exact("not served from deepseek-flash's prefix cache")
    wait_prompt(child)
    ask(child, "/status", "deepseek-v4-pro", exact=True)
    ask(child, "after", "Echo: after")
    assert live_server.requests[-1]["body"]["model"] == "deepseek-v4-pro"
    leave(child)


def test_rewind_in_the_terminal(workspace, home, live_server):
    child = spawn(workspace, home, live_server)
    wait_prompt(child)
    ask(child, "write a.txt alpha", "Done: write_file returned")
    ask(child, "second turn", "Echo: second turn")
    type_line(child, "/rewind")
    child.expect_exact("2. second turn")
    child.expect_exact("Rewind to before which turn?")
    child.send("1\r")
    child.expect_exact("[b]oth?")
    child.send("b\r")
    child.expect_exact('The conversation is back to before "write a.txt alpha"')
    wait_prompt(child)
    assert not (workspace / "a.txt").exists()
    leave(child)


def test_a_sub_agent_at_work_in_the_terminal(workspace, home, live_server):
    (workspace / "notes.txt").write_text("the secret word is pineapple\n")
    child, screen = started(workspace, home, live_server)
    ask(child, "task read notes.txt", "Done: task returned")
    assert screen.count('↳ sub-agent "read notes.txt": read_file notes.txt') == 1, screen.lines()
    assert screen.count("pineapple") == 0  # the sub-agent's reading is not the parent's answer
    ask(child, "/status", "Sub-agents: 1 run(s), 2 requests", exact=True)
    leave(child)
