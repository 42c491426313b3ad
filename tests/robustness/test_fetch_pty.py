"""fetch_url in a real terminal: Ctrl-C while a large page is converted ends the call (its worker
killed) and gives the prompt back; the REPL goes on."""

from __future__ import annotations

from tests.agent.tools.test_fetch_limits import html_workers, slow_site  # noqa: F401 - fixture
from tests.pty_kit import ask, leave, started, type_line, wait_prompt
from tests.robustness.harness import wait_for


def test_ctrl_c_ends_a_fetch_while_its_page_is_converted(workspace, home, live_server, slow_site):  # noqa: F811
    child, screen = started(workspace, home, live_server, "--yes", "--fetch-allow-network", "127.0.0.0/8")
    type_line(child, f"fetch {slow_site.url}/big")
    assert wait_for(lambda: html_workers(child.pid) != [] or not child.isalive(), timeout=60), screen.lines()
    child.sendintr()
    child.expect_exact("Interrupted")
    wait_prompt(child)
    assert html_workers(child.pid) == []
    ask(child, "still here", "Echo: still here", exact=True)
    leave(child)
