"""Resuming a session that holds one huge message (the tokenizer once counted text no window could
hold, for minutes and gigabytes: docs/measured.md has the figures).

    python bench/big_message.py [--quick] [--mb N]

A session of four messages, one of them a user message of N MB of words (100; quick: 10), is
resumed with `main.py --continue -p` against the local server. Timed: the whole process, wall
clock, and its peak RSS (wait4). Since agent.compaction.oversize cuts the long texts of a line over 4 MB on
load, both should stay near those of an ordinary resume plus one read of the file.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)

TIME_TARGET = 30.0  # seconds
MEMORY_TARGET = 1536  # MB


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--mb", type=float, default=None)
    args = parser.parse_args()
    mb = args.mb or (10 if args.quick else 100)
    with tempfile.TemporaryDirectory() as tmp:
        home, ws = Path(tmp) / "home", Path(tmp) / "ws"
        ws.mkdir()
        os.environ["CODING_AGENT_HOME"] = str(home)
        from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart

        import session
        from tests.fake_openai import FakeOpenAI

        words = "alpha beta 函数 return x=1; " * int(mb * (1 << 20) / 30 + 1)
        messages = [
            ModelRequest(parts=[UserPromptPart("hi")]),
            ModelResponse(parts=[TextPart("hello")]),
            ModelRequest(parts=[UserPromptPart(words)]),
            ModelResponse(parts=[TextPart("ok")]),
        ]
        session.rewrite_messages(session.new_session_id(), messages, ws.resolve())
        size = sum(p.stat().st_size for p in (home / "projects").rglob("*.jsonl"))
        del messages, words
        with FakeOpenAI() as server:
            started = time.monotonic()
            done = subprocess.run(
                [
                    sys.executable,
                    str(Path(sys.path[0]) / "main.py"),
                    "--base-url",
                    server.base_url,
                    "--continue",
                    "-p",
                    "hello",
                ],
                cwd=ws,
                capture_output=True,
                text=True,
                env=dict(os.environ, CODING_AGENT_MAX_RETRIES="0"),
            )
            took = time.monotonic() - started
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(done.stderr.strip())
    if done.returncode != 0 or "Echo: hello" not in done.stdout:
        print(f"the resumed turn failed (exit {done.returncode})")
        return 1
    print(f"session file {size / (1 << 20):.0f} MB")
    print("figures:")
    verdict = "PASS" if took <= TIME_TARGET else "MISS"
    print(f"big_message_resume_s: {took:.1f} s (target ≤ {TIME_TARGET:g} s: {verdict})")
    verdict = "PASS" if peak <= MEMORY_TARGET else "MISS"
    print(f"big_message_peak_mb: {peak:.0f} MB (target ≤ {MEMORY_TARGET} MB: {verdict})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
