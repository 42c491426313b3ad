"""Helpers that build sessions and scripted model behaviour for the compaction tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agent.state.app import AppState
from tests.fake_openai import Reply, Text, smart_reply

SUMMARY = (
    "<analysis>draft</analysis>\n<summary>1. The user asked to read files. 5. read big0.txt\n6. Next: go on.</summary>"
)

# Sizes some tests pin were chosen with the first six tools: the later ones' definitions (issue 25)
# move the fixed prefix, and with it what these tests measure, by ~750 tokens.
LATER_TOOLS = frozenset({"todo", "fetch_url", "task"})


def is_compaction(body: dict[str, Any]) -> bool:
    messages = body.get("messages") or []
    last = messages[-1] if messages else {}
    content = last.get("content") if last.get("role") == "user" else ""
    return isinstance(content, str) and "<analysis>" in content and "<summary>" in content


def responder(turn: list[Reply], summary: str | Callable[[dict], str] = SUMMARY) -> Callable[[dict], Reply]:
    """Compaction requests get `summary`; other requests take `turn` in order, then the smart default."""
    queue = list(turn)

    def reply(body: dict[str, Any]) -> Reply:
        if is_compaction(body):
            return Text(summary(body) if callable(summary) else summary)
        return queue.pop(0) if queue else smart_reply(body)

    return reply


def take_background(state: AppState) -> Any:
    """The background summary's swap as the check before a turn makes it (a coroutine), or None when
    it is given up."""
    from agent import compaction
    from agent.compaction.background import take
    from agent.turn.loop import get_agent

    taken = take(state)
    return None if taken is None else compaction.compact(state, get_agent(state), "auto", taken=taken)


def script_forever(server, reply: Callable[[dict], Reply], n: int = 200) -> None:
    """Every request from now on is answered by `reply` (replacing what was scripted before)."""
    server.clear_script()
    server.script(*([reply] * n))


def big_files(workspace, count: int, lines: int = 150, prefix: str = "big") -> None:
    for i in range(count):
        (workspace / f"{prefix}{i}.txt").write_text(
            "".join(f"line {n} of file {i}: some words to fill the context window\n" for n in range(lines))
        )


def long_answer(n: int = 0, words: int = 150) -> Text:
    """An answer long enough that a summary of its turn is smaller than the turn (a compaction
    that does not shrink the history is refused)."""
    return Text(f"Answer {n}: " + "a detailed explanation of the change " * words)


def note(n: int, size: int = 300) -> str:
    return f"note {n}: " + "remember this detail please " * size


async def chat(state: AppState, texts: list[str]) -> None:
    """Submit `texts` as turns with automatic compaction off, to fill the context."""
    # The window is widened meanwhile, so that nothing (agent.compaction.overflow) stops the history from
    # The window is widened meanwhile, so that nothing (agent.compaction.overflow) stops the history from
    # growing past what one request can hold: tests of compaction under pressure need that.
    from agent.turn.loop import get_agent
    from main import on_submit

    get_agent(state)  # built for the real window: the tool set depends on it (agent.tools.toolset)
    auto, state.config.auto_compact = state.config.auto_compact, False
    window, state.config.context_window = state.config.context_window, 10 * state.config.context_window
    try:
        for text in texts:
            await on_submit(state, text)
    finally:
        state.config.auto_compact = auto
        state.config.context_window = window
