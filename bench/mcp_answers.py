"""An MCP tool's big answer: how long the turn takes, how much memory, how long the event loop stalls.

    python bench/mcp_answers.py [--quick] [--mb N]

A real MCP server process (tests/mcp_bad_server.py, `big`) answers N MB of text (25; quick: 5) to
one tool call the local server's scripted model makes. Measured:
1. `main.py -p` as a user runs it: wall clock, and the peak RSS of the agent's process (wait4; the
   server's own memory is not in it);
2. the same turn in this process (run_turn), with a task that wakes every 10 ms: the longest it
   waited is the longest the event loop was blocked (the spinner, the keys and Ctrl-C wait as long);
   and the tokens of the answer the model got.
Before the cap (agent.tools.answer_cap) and the line reader (agent.tools.mcp_stdio), 25 MB took
112-273 s and 1.4 GB under -p on this machine, 100 MB 264 s and 7.4 GB (issue 38's figures).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[0] = str(ROOT)
SERVER = ROOT / "tests" / "mcp_bad_server.py"

TIME_TARGET = 30.0  # seconds for the -p turn
MEMORY_TARGET = 1024  # MB of the agent's peak
STALL_TARGET = 0.5  # seconds the event loop may be blocked at once


def _settings(home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "settings.json").write_text(json.dumps({
        "mcpServers": {"big": {"command": sys.executable, "args": [str(SERVER), "big"]}},
        "permissions": {"allow": ["mcp__big"]}}))


def print_mode(mb: float, base: Path) -> tuple[float, float, str]:
    from tests.fake_openai import FakeOpenAI, Text, ToolCalls

    home, ws = base / "p-home", base / "p-ws"
    ws.mkdir()
    _settings(home)
    with FakeOpenAI() as server:
        server.script(ToolCalls([("mcp__big__dump", {"megabytes": mb})]), Text("done"))
        env = dict(os.environ, CODING_AGENT_HOME=str(home), CODING_AGENT_MAX_RETRIES="0", PYDANTIC_AI_NO_BANNER="1")
        started = time.monotonic()
        proc = subprocess.Popen([sys.executable, str(ROOT / "main.py"), "--base-url", server.base_url, "--lang", "en",
                                 "-p", "dump it"], cwd=ws, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        assert proc.stderr is not None
        err = proc.stderr.read().decode(errors="replace")
        _pid, status, usage = os.wait4(proc.pid, 0)
        took = time.monotonic() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
    problem = "" if proc.returncode == 0 else f"exit {proc.returncode}: {err[-500:]}"
    return took, usage.ru_maxrss / 1024, problem


async def in_process(mb: float, base: Path) -> tuple[float, float, int]:
    from agent.config import Config
    from agent.events import EventLog, ToolResult
    from agent.provider import settings as files
    from agent.state.app import AppState
    from agent.state.transcript import Transcript
    from agent.tokens import count as tokens
    from agent.tools import mcp_servers
    from agent.turn.loop import run_turn
    from tests.fake_openai import FakeOpenAI, Text, ToolCalls

    home, ws = base / "home", (base / "ws").resolve()
    ws.mkdir()
    _settings(home)
    os.environ["CODING_AGENT_HOME"] = str(home)
    with FakeOpenAI() as server:
        config = Config(base_url=server.base_url, api_key="k", workspace=ws, lang="en", yes=True)
        state = AppState(config=config, transcript=Transcript("bench", ws), emit=EventLog())
        state.config.settings = files.load(ws)
        state.mcp, _ = mcp_servers.load(state.config.settings, ws, "en")
        mcp_servers.start(state, True)
        await mcp_servers.wait_started(state)
        server.script(ToolCalls([("mcp__big__dump", {"megabytes": mb})]), Text("done"))
        stalls: list[float] = []

        async def tick() -> None:
            while True:
                before = time.monotonic()
                await asyncio.sleep(0.01)
                stalls.append(time.monotonic() - before - 0.01)

        ticker = asyncio.create_task(tick())
        started = time.monotonic()
        await run_turn(state, "dump it")
        took = time.monotonic() - started
        ticker.cancel()
        await mcp_servers.stop_all(state)
    [result] = state.emit.of(ToolResult)
    return took, max(stalls), tokens.count_text(result.content)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--mb", type=float, default=None)
    args = parser.parse_args()
    mb = args.mb or (5 if args.quick else 25)
    with tempfile.TemporaryDirectory() as tmp:
        took, peak, problem = print_mode(mb, Path(tmp))
        if problem:
            print(f"the -p turn failed: {problem}")
            return 1
        turn, stall, kept = asyncio.run(in_process(mb, Path(tmp)))
    print(f"an answer of {mb:g} MB: -p {took:.1f} s, peak {peak:.0f} MB; in process {turn:.1f} s, "
          f"the event loop blocked {stall * 1000:.0f} ms at most; the model got {kept:,} tokens of it")
    print("figures:")
    print(f"mcp_answer_p_s: {took:.1f} s (target ≤ {TIME_TARGET:g} s: {'PASS' if took <= TIME_TARGET else 'MISS'})")
    print(f"mcp_answer_peak_mb: {peak:.0f} MB (target ≤ {MEMORY_TARGET} MB: "
          f"{'PASS' if peak <= MEMORY_TARGET else 'MISS'})")
    print(f"mcp_answer_stall_ms: {stall * 1000:.0f} ms (target ≤ {STALL_TARGET * 1000:.0f} ms: "
          f"{'PASS' if stall <= STALL_TARGET else 'MISS'})")
    print(f"mcp_answer_kept_tokens: {kept} tokens (no target)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
