"""A turn, a forced tool call and the gauge, on a real llama-server with SmolLM2's real tokenizer."""

from __future__ import annotations

import pytest

from agent.compaction.watermark import context_tokens
from agent.events import Notice, TextDelta, ToolCallStarted, ToolResult, UsageUpdate, WaitingForModel
from agent.tokens import count as tokens
from agent.tools.builtin import TOOLS
from main import on_submit

# A 135M model chooses no tool by itself; told to repeat the markup it often does, and the server
# parses it into tool_calls. Whether it does depends on the whole prompt (the system prompt names the
# machine's OS): a few wordings, the first that the model repeats counts.
CALL = '<tool_call>{"name": "read_file", "arguments": {"path": "hello.py"}}</tool_call>'
TOOL_CALLS = (
    f"Reply with exactly this and nothing else: {CALL}",
    f"Repeat exactly: {CALL}",
    "Repeat exactly:\n<tool_call>\n" + CALL[len("<tool_call>") : -len("</tool_call>")] + "\n</tool_call>",
)


def errors(state) -> list[str]:
    return [n.text for n in state.emit.of(Notice) if n.level == "error"]


@pytest.mark.parametrize("window", [2048, 4096, 8192])
async def test_a_turn_answers_and_counts_with_the_servers_tokenizer(local_state, window):
    state = local_state(window)
    assert tokens._server_count is not None  # /tokenize answered: our counts are the server's
    await on_submit(state, "Say hello in one short sentence.")
    assert not errors(state)
    assert "".join(e.text for e in state.emit.of(TextDelta)).strip()
    (usage,) = state.emit.of(UsageUpdate)
    assert usage.input_tokens > 100
    # The turn's request asked for at most the answer room (the guard's): the window / 16.
    assert usage.output_tokens <= window // 16
    assert usage.input_tokens + usage.output_tokens <= window
    (waiting,) = state.emit.of(WaitingForModel)
    assert "processing the prompt" in waiting.label


async def test_a_forced_tool_call_is_parsed_and_run(local_state, workspace):
    """The model's <tool_call> markup, parsed by the server's template into tool_calls, runs as one of
    our tools and its result goes back (the model may pick another of them than the one asked)."""
    (workspace / "hello.py").write_text("print('hello from the file')\n")
    for prompt in TOOL_CALLS:
        state = local_state(4096)
        await on_submit(state, prompt)
        assert not errors(state)
        if calls := state.emit.of(ToolCallStarted):
            break
    assert calls, "the model repeated none of the tool calls"
    results = {r.tool_call_id: r for r in state.emit.of(ToolResult)}
    call = calls[0]
    assert call.tool_name in {t.name for t in TOOLS} and not results[call.tool_call_id].is_error
    if call.tool_name == "read_file" and call.args.get("path") == "hello.py":
        assert "hello from the file" in results[call.tool_call_id].content


async def test_the_gauge_matches_the_servers_count_of_the_next_request(local_state, workspace):
    """Before a request, our figure for it; after, the server's: equal within 2%."""
    from pydantic_ai.messages import ModelRequest, UserPromptPart

    (workspace / "notes.txt").write_text("\n".join(f"{i:4}  line {i} of the notes: x = {i * 7}" for i in range(60)))
    state = local_state(4096)
    await on_submit(state, "Say hi.")
    text = "Summarize @notes.txt in one sentence."
    from agent.tools.mentions import build_mention_messages, find_mentions
    from agent.turn.admission import mention_room

    # As on_submit attaches it: whole when it fits (mention_room).
    prelude, _ = build_mention_messages(find_mentions(text), state, room=mention_room(state, text))
    estimate = context_tokens(state, prelude + [ModelRequest(parts=[UserPromptPart(text)])])
    await on_submit(state, text)
    assert not errors(state)
    server = state.emit.of(UsageUpdate)[-1].input_tokens
    assert abs(estimate - server) <= 0.02 * server, (estimate, server)
