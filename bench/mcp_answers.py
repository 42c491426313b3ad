"""An MCP tool's big answer: how long the turn takes, how much memory, how long the event loop stalls.

    python bench/mcp_answers.py [--quick] [--mb N]

A real MCP server process (tests/mcp_bad_server.py, `big`) answers N MB of text (25; quick: 5) to
one tool call the local server's scripted model makes, and, to compare, 1 kB; then N MB of JSON sent
as text (`dump_json`), which pydantic-ai's client parses on the event loop. Measured:
1. `main.py -p` as a user runs it: wall clock (the N MB turn's, and how much longer than the 1 kB
   one it took), and the peak RSS of the agent's process (wait4; the server's own is not in it);
2. the same turns in this process (run_turn), with a task that wakes every 10 ms: the longest it
   waited is the longest the event loop was blocked (the spinner, the keys and Ctrl-C wait as long);
   and the tokens of the answer the model got. The tokenizer is loaded first, as the REPL's warm-up
   does, and the local server runs in a thread of this process (its share of the GIL is in the figure).
docs/measured.md has the figures, and those from before the cap (agent.tools.answer_cap) and the
line reader (agent.tools.mcp_stdio).
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

TIME_TARGET = 15.0  # seconds the -p turn may take beyond one with a 1 kB answer
MEMORY_TARGET = 1024  # MB of the agent's peak
STALL_TARGET = 0.5  # seconds the event loop may be blocked at once
SMALL = 0.001  # MB of the answer to compare with


def _settings(home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "settings.json").write_text(
        json.dumps(
            {
                "mcpServers": {"big": {"command": sys.executable, "args": [str(SERVER), "big"]}},
                "permissions": {"allow": ["mcp__big"]},
            }
        )
    )


def print_mode(mb: float, base: Path) -> tuple[float, float, str]:
    from tests.fake_openai import FakeOpenAI, Text, ToolCalls

    home, ws = base / "home", base / "ws"
    ws.mkdir(parents=True)
    _settings(home)
    with FakeOpenAI() as server:
        server.script(ToolCalls([("mcp__big__dump", {"megabytes": mb})]), Text("done"))
        env = dict(os.environ, CODING_AGENT_HOME=str(home), CODING_AGENT_MAX_RETRIES="0", PYDANTIC_AI_NO_BANNER="1")
        started = time.monotonic()
        proc = subprocess.Popen(
            [sys.executable, str(ROOT / "main.py"), "--base-url", server.base_url, "--lang", "en", "-p", "dump it"],
            cwd=ws,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        assert proc.stderr is not None
        err = proc.stderr.read().decode(errors="replace")
        _pid, status, usage = os.wait4(proc.pid, 0)
        took = time.monotonic() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
    problem = "" if proc.returncode == 0 else f"exit {proc.returncode}: {err[-500:]}"
    return took, usage.ru_maxrss / 1024, problem


async def in_process(calls: list[tuple[str, float]], base: Path) -> list[tuple[float, float, int]]:
    """For each (tool, megabytes): the turn's seconds, the event loop's longest stall in it, the tokens kept."""
    from agent.config import Config
    from agent.events import EventLog, ToolResult
    from agent.provider import settings as files
    from agent.state.app import AppState
    from agent.state.transcript import Transcript
    from agent.tokens import count as tokens
    from agent.tools import mcp_servers
    from agent.turn.loop import run_turn
    from tests.fake_openai import FakeOpenAI, Text, ToolCalls

    home, ws = base / "home", base / "ws"
    ws.mkdir(parents=True)
    ws = ws.resolve()
    _settings(home)
    os.environ["CODING_AGENT_HOME"] = str(home)
    await asyncio.to_thread(tokens.preload)
    measured = []
    with FakeOpenAI() as server:
        config = Config(base_url=server.base_url, api_key="k", workspace=ws, lang="en", yes=True)
        state = AppState(config=config, transcript=Transcript("bench", ws), emit=EventLog())
        state.config.settings = files.load(ws)
        state.mcp, _ = mcp_servers.load(state.config.settings, ws, "en")
        mcp_servers.start(state, True)
        await mcp_servers.wait_started(state)
        for tool, mb in calls:
            server.script(ToolCalls([(f"mcp__big__{tool}", {"megabytes": mb})]), Text("done"))
            stalls: list[float] = []

            async def tick(stalls: list[float] = stalls) -> None:
                while True:
                    before = time.monotonic()
                    await asyncio.sleep(0.01)
                    stalls.append(time.monotonic() - before - 0.01)

            ticker = asyncio.create_task(tick())
            started = time.monotonic()
            await run_turn(state, "dump it")
            took = time.monotonic() - started
            ticker.cancel()
            result = state.emit.of(ToolResult)[-1]
            measured.append((took, max(stalls), tokens.count_text(result.content)))
        await mcp_servers.stop_all(state)
        await state.scratch.agent.model.client.close()
    return measured


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--mb", type=float, default=None)
    args = parser.parse_args()
    mb = args.mb or (5 if args.quick else 25)
    with tempfile.TemporaryDirectory() as tmp:
        small, _small_peak, problem = print_mode(SMALL, Path(tmp) / "small")
        took, peak, problem = (0.0, 0.0, problem) if problem else print_mode(mb, Path(tmp) / "big")
        if problem:
            print(f"the -p turn failed: {problem}")
            return 1
        measured = asyncio.run(in_process([("dump", SMALL), ("dump", mb), ("dump_json", mb)], Path(tmp) / "in"))
    (_t, small_stall, _k), (turn, stall, kept), (json_turn, json_stall, _j) = measured
    extra = took - small
    print(
        f"an answer of {mb:g} MB: -p {took:.1f} s ({extra:.1f} s more than 1 kB), peak {peak:.0f} MB; in process "
        f"{turn:.1f} s, the event loop blocked {stall * 1000:.0f} ms at most (1 kB: {small_stall * 1000:.0f} ms); "
        f"the model got {kept:,} tokens of it"
    )
    print(
        f"{mb:g} MB of JSON as text (pydantic-ai parses it on the event loop): {json_turn:.1f} s, the event loop "
        f"blocked {json_stall * 1000:.0f} ms at most"
    )
    print("figures:")
    print(f"mcp_answer_p_s: {took:.1f} s (no target)")
    print(
        f"mcp_answer_p_extra_s: {extra:.1f} s (target ≤ {TIME_TARGET:g} s: "
        f"{'PASS' if extra <= TIME_TARGET else 'MISS'})"
    )
    print(
        f"mcp_answer_peak_mb: {peak:.0f} MB (target ≤ {MEMORY_TARGET} MB: "
        f"{'PASS' if peak <= MEMORY_TARGET else 'MISS'})"
    )
    print(
        f"mcp_answer_stall_ms: {stall * 1000:.0f} ms (target ≤ {STALL_TARGET * 1000:.0f} ms: "
        f"{'PASS' if stall <= STALL_TARGET else 'MISS'})"
    )
    print(f"mcp_answer_json_stall_ms: {json_stall * 1000:.0f} ms (no target)")
    print(f"mcp_answer_kept_tokens: {kept} tokens (no target)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
