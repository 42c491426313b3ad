"""The window on a real server: @file near it, the server's refusal, its context and its template."""

from __future__ import annotations

import os
import subprocess
import sys

from agent.events import Notice
from main import on_submit
from tests.local_model.lane import MODEL, ROOT


# Line-numbered code: SmolLM2's tokenizer counts it 24-32% above DeepSeek's (the issue's finding 1).
def numbered_code(lines: int) -> str:
    return (
        "\n".join(
            f"{i:5}\tdef item_{i}(stock, price={i * 3}): return stock * price  # {i:x}" for i in range(1, lines + 1)
        )
        + "\n"
    )


def errors(state) -> list[str]:
    return [n.text for n in state.emit.of(Notice) if n.level == "error"]


def refusals(server) -> int:
    """Requests the server refused as over its context, from its own log."""
    return server.log.read_text(errors="replace").count("exceeds the available context size")


def test_at_file_near_the_window_never_sends_a_request_over_it(llama, workspace, home):
    """-p "Summarize @inventory.py" at 4096: a file our DeepSeek count puts under the window and the
    server's over it. Counted by the server's tokenizer, the request is fitted first, never refused."""
    server = llama(4096)
    (workspace / "inventory.py").write_text(numbered_code(100))
    before = refusals(server)
    env = {**os.environ, "CODING_AGENT_HOME": str(home), "CODING_AGENT_TIMEOUT": "600"}
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "main.py"),
            "--base-url",
            server.base_url,
            "--model",
            MODEL,
            "--context-window",
            "4096",
            "-p",
            "Summarize @inventory.py in one sentence.",
        ],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert refusals(server) == before, done.stderr
    assert "Traceback" not in done.stderr


async def test_the_servers_refusal_names_the_window_to_set(local_state, llama):
    """A --context-window larger than the server's: warned at start, and the refusal (llama.cpp's
    exceed_context_size_error, n_ctx in its body) says which --context-window to set."""
    state = local_state(2048, context_window=8192)
    warned = [n.text for n in state.emit.of(Notice) if n.level == "warn"]
    assert any("context of 2,048 tokens" in w and "--context-window 2048" in w for w in warned)
    before = refusals(llama(2048))
    await on_submit(state, "Read this and say ok: " + numbered_code(40))
    assert refusals(llama(2048)) == before + 1  # the real refusal, not our guess
    (error,) = errors(state)
    assert "--context-window 2048" in error and "exceed_context_size_error" not in error and "{" not in error


async def test_without_a_given_window_the_servers_context_is_used(local_state):
    state = local_state(2048, context_window=131_072, window_known=False)
    assert state.config.context_window == 2048 and state.config.window_known


async def test_a_template_without_tools_is_said_at_start(local_state):
    """SmolLM2's own template (no --chat-template-file) drops the tools: /props says so, and so do we."""
    state = local_state(2048, tools=False)
    warned = [n.text for n in state.emit.of(Notice) if n.level == "warn"]
    assert any("does not support tools" in w for w in warned), warned
    with_tools = local_state(2048)
    assert not any("does not support tools" in n.text for n in with_tools.emit.of(Notice))
