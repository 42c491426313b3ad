"""fetch_url in a real terminal: Ctrl-C while a large page is converted ends the call (its worker
killed) and gives the prompt back; the REPL goes on."""

from __future__ import annotations

import pexpect

from tests.robustness.harness import wait_for
from tests.test_fetch_limits import html_workers, slow_site  # noqa: F401 - fixture
from tests.test_repl_pty import Screen, live_server, spawn, type_line, wait_prompt  # noqa: F401 - fixture


def test_ctrl_c_ends_a_fetch_while_its_page_is_converted(workspace, home, live_server, slow_site):  # noqa: F811
    child = spawn(workspace, home, live_server, "--yes", "--fetch-allow-network", "127.0.0.0/8")
    screen = Screen(child)
    wait_prompt(child)
    type_line(child, f"fetch {slow_site.url}/big")
    assert wait_for(lambda: html_workers(child.pid) != [] or not child.isalive(), timeout=60), screen.lines()
    child.sendintr()
    child.expect_exact("Interrupted")
    wait_prompt(child)
    assert html_workers(child.pid) == []
    type_line(child, "still here")
    child.expect_exact("Echo: still here")
    wait_prompt(child)
    child.sendeof()
    child.expect(pexpect.EOF)
