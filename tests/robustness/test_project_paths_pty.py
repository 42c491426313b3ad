"""Paths that a pasted line or a cloned repository's command names, in a real terminal: a `.png`
that is a FIFO or /dev/stdin does not freeze the REPL, and a project command's body attaches no
image from outside the workspace (the user's own pasted screenshot still goes)."""

from __future__ import annotations

import json
import os

from tests.agent.tools.test_images import image_parts, png
from tests.pty_kit import Screen, ask, leave, spawn, started, wait_prompt


def _command(workspace, name: str, body: str) -> None:
    folder = workspace / ".coding-agent" / "commands"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.md").write_text(body)


def test_a_pasted_png_that_is_a_fifo_does_not_freeze_the_repl(workspace, home, live_server):
    os.mkfifo(workspace / "shot.png")
    child = spawn(workspace, home, live_server, "--images", "on")
    wait_prompt(child)
    ask(child, f"what is in {workspace}/shot.png", "Echo: what is in", exact=True)
    ask(child, "still here", "Echo: still here", exact=True)
    leave(child)


def test_a_command_naming_a_png_that_is_dev_stdin_swallows_nothing(workspace, home, live_server):
    (workspace / "shot.png").symlink_to("/dev/stdin")
    _command(workspace, "shot", "Describe the screenshot /proc/self/cwd/shot.png please\n")
    child = spawn(workspace, home, live_server)  # images off: the path was opened all the same
    screen = Screen(child)
    wait_prompt(child)
    ask(child, "/shot", "Echo: Describe the screenshot", exact=True)
    ask(child, "the next line", "Echo: the next line", exact=True)
    assert screen.count("> the next line") == 1, screen.lines()  # typed at the prompt, not read as an image
    leave(child)


def test_a_project_command_attaches_no_image_from_outside(workspace, home, live_server, tmp_path):
    outside = tmp_path / "private"
    outside.mkdir()
    (outside / "id.png").write_bytes(png(8, 8))
    (workspace / "logo.png").symlink_to(outside / "id.png")
    (workspace / "inside.png").write_bytes(png(4, 4))
    mine = tmp_path / "my-screenshot.png"
    mine.write_bytes(png(6, 6))
    _command(
        workspace,
        "look",
        f"Compare /proc/self/cwd/logo.png and {outside}/id.png and @{outside}/id.png "
        f"and {workspace}/inside.png with $ARGUMENTS\n",
    )
    child, screen = started(workspace, home, live_server, "--images", "on")
    ask(child, f"/look {mine}", "Echo:", exact=True)
    body = live_server.requests[-1]["body"]
    sent = json.dumps(body)
    assert len(image_parts(body)) == 2, sent[:2000]  # the workspace's own image and the user's screenshot
    assert "Image /proc/self/cwd/logo.png" not in sent and f"Image {outside}/id.png" not in sent
    assert f"Image {workspace}/inside.png" in sent and f"Image {mine}" in sent
    shown = " ".join(screen.lines())  # a long notice may wrap
    assert shown.count("is outside the workspace") == 3, shown
    leave(child)


def test_print_mode_with_a_pasted_fifo_png_ends(workspace, home, server):
    """The same FIFO named in a -p prompt: the run answers and exits instead of waiting for a writer."""
    from tests.test_main import run_main

    os.mkfifo(workspace / "shot.png")
    done = run_main(
        ["--base-url", server.base_url, "--images", "on", "-p", f"what is in {workspace}/shot.png"],
        workspace,
        home,
        timeout=60,
    )
    assert done.returncode == 0 and "Echo: what is in" in done.stdout, done.stderr
