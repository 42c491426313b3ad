"""--demo: the source checkout's emulator (tests/fake_openai.py) as a child process on 127.0.0.1, so that
a newcomer can try the agent without a key. It reads its standard input until the agent's end of the
pipe closes, so it ends with the agent: after /exit, Ctrl-D, an error, and also a killed agent."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from agent.provider.keys import is_key_name

CHECKOUT = Path(__file__).resolve().parents[2]
EMULATOR = CHECKOUT / "tests" / "fake_openai.py"
# Small enough that compaction shows within a few messages.
DEMO_WINDOW = 8_000
URL_LINE = "FAKE_OPENAI_URL="


class DemoUnavailable(Exception):
    """The emulator is not there (an install that is no source checkout) or did not start."""


class DemoServer:
    def __init__(self) -> None:
        self.proc: subprocess.Popen[str] | None = None
        self.url = ""

    def start(self) -> str:
        """Start the emulator and return its base URL."""
        if not EMULATOR.is_file():
            raise DemoUnavailable(str(EMULATOR))
        env = {name: value for name, value in os.environ.items() if not is_key_name(name)}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.fake_openai", "--port", "0", "--until-stdin-closes"],
            cwd=CHECKOUT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        line = self.proc.stdout.readline().strip()
        if not line.startswith(URL_LINE):
            self.stop()
            raise DemoUnavailable(str(EMULATOR))
        self.url = line[len(URL_LINE) :]
        return self.url

    def stop(self) -> None:
        """Close the emulator's input and wait for it to end (killed if it has not within 5 s)."""
        if self.proc is None:
            return
        proc, self.proc = self.proc, None
        proc.stdin.close()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stdout.close()
