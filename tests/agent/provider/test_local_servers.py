"""Against Ollama-like and vLLM-like servers: compaction works, or the agent says what to change."""

from __future__ import annotations

import pytest

import compact
from agent import compaction
from agent.config import Config
from agent.events import EventLog, Notice
from agent.marks import is_summary
from agent.state.app import AppState
from agent.state.transcript import Transcript
from tests.builders import SUMMARY, chat, is_compaction, long_answer
from tests.fake_openai import FakeOpenAI, Text, ToolCalls
from ui.status import status_lines

LOCAL_MODEL = "qwen3-coder:30b"


@pytest.fixture
async def local(monkeypatch, workspace):
    """make(flavor, **server options) -> (server, state) with a local model on that server."""
    from pydantic_ai import models

    monkeypatch.setattr(models, "ALLOW_MODEL_REQUESTS", True)
    made: list[tuple[FakeOpenAI, AppState]] = []

    def make(flavor: str, window: int = 32_000, base_path: str = "/v1", **options) -> tuple[FakeOpenAI, AppState]:
        server = FakeOpenAI(flavor=flavor, model=LOCAL_MODEL, **options).start()
        url = server.base_url.removesuffix("/v1") + base_path
        config = Config(
            model=LOCAL_MODEL, base_url=url, workspace=workspace, lang="en", yes=True, context_window=window
        )
        state = AppState(config=config, transcript=Transcript("local-1", workspace), emit=EventLog())
        made.append((server, state))
        return server, state

    yield make
    for server, state in made:
        if state.scratch.agent is not None:
            await state.scratch.agent.model.client.close()
        server.stop()


def _errors(state) -> list[str]:
    return [n.text for n in state.emit.of(Notice) if n.level == "error"]


async def test_ollama_stray_tool_call_during_compaction_still_commits(local, workspace):
    server, state = local("ollama")
    server.script(long_answer(1), long_answer(2))  # a summary must be smaller than what it replaces
    await chat(state, ["hello", "how are you"])
    notices = len(state.emit.of(Notice))
    server.script(ToolCalls([("run_command", {"command": "rm -rf /"})]), Text(SUMMARY))
    await compact.run_compact(state)
    assert is_summary(state.history[0])
    (asked,) = [i for i, r in enumerate(server.requests) if is_compaction(r["body"])]
    answered = server.requests[asked + 1]["body"]["messages"][-1]
    assert answered["role"] == "tool" and "Tools are off" in answered["content"]
    assert len(state.emit.of(Notice)) == notices  # nothing was cut: no warning


async def test_ollama_without_usage_the_gauge_says_it_estimates(local):
    server, state = local("ollama")
    await chat(state, ["hello"])
    assert state.history[-1].usage.input_tokens == 0  # no usage came back
    text = "\n".join(map(str, status_lines(state)))
    assert "estimated" in text and "no token usage" in text


async def test_ollama_silent_truncation_shows_as_missing_user_messages(local):
    """num_ctx smaller than --context-window: Ollama drops the oldest messages without a word; the
    summary then misses the first requests, and the agent puts them back verbatim."""
    server, state = local("ollama", context_size=3_000)
    first = "please remember the launch code is tangerine-42"
    await chat(state, [first] + [f"filler turn {i} " + "words " * 200 for i in range(6)])
    await compact.run_compact(state)  # the emulator's summary lists the user messages it saw
    seen = server.requests[-1]["ran"]["messages"]
    assert not any(first in str(m.get("content")) for m in seen)  # truncated away
    summary = compaction.last_summary(state)
    assert first in summary  # restored by the agent's missing-user-messages check
    (warning,) = [n.text for n in state.emit.of(Notice) if "dropped the oldest messages" in n.text]
    assert "OLLAMA_CONTEXT_LENGTH" in warning and "32,000" in warning


async def test_vllm_without_the_tool_flags_says_what_to_change(local):
    server, state = local("vllm")
    await chat(state, ["hello"])
    (error,) = _errors(state)
    # Our advice, not only the server's words echoed back.
    assert error.startswith("The server refuses tool calls: start vLLM with --enable-auto-tool-choice")


async def test_vllm_with_the_tool_flags_compacts(local):
    server, state = local("vllm", auto_tool_choice=True)
    server.script(long_answer(1), long_answer(2))
    await chat(state, ["hello", "more"])
    server.script(Text(SUMMARY))
    await compact.run_compact(state)
    assert is_summary(state.history[0]) and not _errors(state)


async def test_a_base_url_without_v1_is_pointed_out(local):
    server, state = local("ollama", base_path="")
    await chat(state, ["hello"])
    (error,) = _errors(state)
    assert "check --base-url (does it end in /v1?)" in error


async def test_vllm_losing_the_tool_flags_still_compacts_without_tools(local):
    """A session resumed on a vLLM started without the flags: the compaction asks without tools."""
    server, state = local("vllm", auto_tool_choice=True)
    server.script(long_answer(1), long_answer(2))
    await chat(state, ["hello", "more"])
    server.auto_tool_choice = False
    server.script(Text(SUMMARY))
    await compact.run_compact(state)
    assert not server.requests[-1]["body"].get("tools")
    assert is_summary(state.history[0])
