"""The REPL in a real pseudo-terminal for the tests: started, typed into as a person would, and read
off a pyte screen. The emulator the REPL talks to is conftest's `live_server` fixture."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pexpect
import pyte

from tests.fake_openai import FakeOpenAI

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 20
# Where the REPL's text meets the terminal's width, rich breaks the line at a space: the space goes, a
# style reset and a new line come. Where that falls depends on what else is on the line (the banner holds
# the workspace's path, whose length comes with pytest's temporary folder: the user's name, the run's
# number, xdist's worker) and on the width (tests/conftest.py keeps xdist's COLUMNS=80 away from the
# child), so a pattern lets any space of the text be such a break (`spread`).
# The banner's session id: where "session" ends the 140-column line, the space before the id is gone
# (test_the_session_id_is_found_where_the_banner_breaks_before_it).
WRAP = r"(?:\x1b\[[0-9;]*m|\s)+"
SESSION_ID = rf"(?:session|会话){WRAP}(\d{{8}}-\d{{6}}-[0-9a-f]{{6}})"


def spread(text: str) -> str:
    """A pattern for `text` as the terminal shows it, broken at any of its spaces or at none."""
    return WRAP.join(re.escape(word) for word in text.split())


# Commands are asked about outside the OS sandbox only (in it they run unasked): the tests of the
# approval question run there.
ASKED = ("--sandbox", "danger-full-access")


def spawn(
    workspace: Path,
    home: Path,
    server: FakeOpenAI,
    *args: str,
    lang: str = "en",
    env_extra: dict[str, str] | None = None,
) -> pexpect.spawn:
    env = dict(os.environ)
    env.update(
        {
            "CODING_AGENT_HOME": str(home),
            "PROMPT_TOOLKIT_NO_CPR": "1",
            "TERM": "xterm-256color",
            "PYDANTIC_AI_NO_BANNER": "1",
            "CODING_AGENT_MAX_RETRIES": "0",
            **(env_extra or {}),
        }
    )
    child = pexpect.spawn(
        sys.executable,
        [str(ROOT / "main.py"), "--base-url", server.base_url, "--lang", lang, *args],
        cwd=str(workspace),
        env=env,
        encoding="utf-8",
        timeout=TIMEOUT,
        dimensions=(40, 140),
    )
    child.expect(SESSION_ID)
    child.session_id = child.match.group(1)
    return child


class Screen:
    """What the user sees: the child's output played through a terminal emulator of its size."""

    def __init__(self, child: pexpect.spawn) -> None:
        rows, cols = child.getwinsize()
        self.screen = pyte.Screen(cols, rows)
        self.stream = pyte.Stream(self.screen)
        child.logfile_read = self

    def write(self, text: str) -> None:
        self.stream.feed(text)

    def flush(self) -> None:
        pass

    def lines(self) -> list[str]:
        return [line.rstrip() for line in self.screen.display]

    def count(self, text: str) -> int:
        return sum(text in line for line in self.lines())


def wait_prompt(child: pexpect.spawn) -> None:
    """The prompt is ready when prompt-toolkit turns bracketed paste on."""
    child.expect_exact("\x1b[?2004h")


def type_line(child: pexpect.spawn, text: str) -> None:
    child.send(text)
    child.send("\r")


def started(
    workspace: Path, home: Path, server: FakeOpenAI, *args: str, **options: object
) -> tuple[pexpect.spawn, Screen]:
    """`spawn`, a screen of what it shows from the banner on, and its first prompt waited for."""
    child = spawn(workspace, home, server, *args, **options)  # type: ignore[arg-type]
    screen = Screen(child)
    wait_prompt(child)
    return child, screen


def interrupt_then_go_on(child: pexpect.spawn, server: FakeOpenAI) -> None:
    """Ctrl-C in the middle of a turn, then a turn with the script cleared that is answered, and /exit."""
    child.sendintr()
    child.expect("Interrupted")
    wait_prompt(child)
    server.clear_script()
    ask(child, "still there?", "Echo: still there")
    leave(child, "/exit")


def screen_of(child: pexpect.spawn) -> Screen:
    """A screen that starts with what the child has shown so far."""
    screen = Screen(child)
    screen.write(child.before + child.after + child.buffer)
    return screen


def shown(screen: Screen, text: str) -> bool:
    """`text` on the screen, also where it was wrapped: a full row runs on into the next, a row rich
    broke at a space goes on after one space."""
    rows = screen.screen.display
    joined = " ".join("".join(row if row[-1:] != " " else row.rstrip() + "\n" for row in rows).split())
    return any(text in row for row in rows) or " ".join(text.split()) in joined


def ask(child: pexpect.spawn, text: str, answer: str, *, exact: bool = False, timeout: float = -1) -> None:
    """Type `text`, wait for `answer` (a pattern, or the text itself with `exact`), then the prompt."""
    type_line(child, text)
    if exact:
        child.expect_exact(answer, timeout=timeout)
    else:
        child.expect(answer, timeout=timeout)
    wait_prompt(child)


def leave(child: pexpect.spawn, command: str | None = None) -> None:
    """End the REPL by `command` (e.g. "/exit"), else Ctrl-D, and wait for the process to end."""
    if command is not None:
        type_line(child, command)
    else:
        child.sendeof()
    child.expect(pexpect.EOF)
