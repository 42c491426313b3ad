"""The turn's guard before each model request (agent.turn.guard), on a scripted model: which messages
the hook sees, what a refit sends, and a refusal for length. What goes over HTTP is
tests/agent/turn/test_turn_loop.py's (the emulator)."""

from __future__ import annotations

from pydantic_ai.exceptions import ModelHTTPError
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart

from agent.compaction import Refit
from agent.turn.guard import MAX_REFITS
from agent.turn.loop import run_turn
from tests.scripted_model import ScriptedModel

LIST = [("list_files", {"pattern": "*.txt"})]


def _too_long(counted: int = 19_000) -> ModelHTTPError:
    return ModelHTTPError(
        400,
        "scripted",
        {
            "error": {
                "message": f"This model's maximum context length is 16000 "
                f"tokens. However, you requested {counted} tokens."
            }
        },
    )


def _prompts(messages) -> list[str]:
    return [p.content for m in messages if m.kind == "request" for p in m.parts if p.part_kind == "user-prompt"]


async def test_the_hook_sees_every_request_and_may_send_one_smaller(offline_state, workspace):
    (workspace / "a.txt").write_text("x\n")
    state = offline_state()
    script = ScriptedModel("Hello.", LIST, "One file.", "Still here.")
    state.scratch.agent = script.agent(state)
    assert (await run_turn(state, "hi")).ok
    seen: list[int] = []

    async def hook(st, messages):
        seen.append(len(messages))
        # The second request of the turn goes out without the first turn, this once.
        return Refit(once=messages[2:]) if len(seen) == 2 else None

    outcome = await run_turn(state, "list the files", before_request=hook)
    assert outcome.ok, outcome.error
    assert seen == [3, 5]  # hi, Hello, list / ... + the call and its result
    assert _prompts(script.requests[1]) == ["hi", "list the files"]
    assert _prompts(script.requests[2]) == ["list the files"]  # the first turn left out, this once
    # Only that request: the history keeps the first turn, and a run given no hook is not checked.
    assert len(state.history) == 6 and _prompts(state.history) == ["hi", "list the files"]
    assert (await run_turn(state, "and now")).ok and seen == [3, 5]
    assert _prompts(script.requests[3]) == ["hi", "list the files", "and now"]


async def test_after_a_compaction_the_run_goes_on_from_the_compacted_history(offline_state, workspace):
    (workspace / "a.txt").write_text("x\n")
    state = offline_state()
    script = ScriptedModel("Hello.", LIST, LIST, "One file.")
    state.scratch.agent = script.agent(state)
    assert (await run_turn(state, "hi")).ok
    summary = [
        ModelRequest(parts=[UserPromptPart("Summary: the user said hi.")]),
        ModelResponse(parts=[TextPart("Understood.")]),
    ]
    calls = 0

    async def hook(st, messages):
        nonlocal calls
        calls += 1
        if calls == 2:  # mid-turn, after the tool call: the history so far becomes a summary and the call
            st.transcript.update(summary + messages[-2:])
            return Refit()
        return None

    assert (await run_turn(state, "list the files", before_request=hook)).ok
    # The refitted request and the one after it (built by the run from its own messages) hold the summary.
    assert [_prompts(r) for r in script.requests[2:]] == [["Summary: the user said hi."]] * 2
    assert len(script.requests[3]) == len(script.requests[2]) + 2  # and the second call and its result
    assert _prompts(state.history) == ["Summary: the user said hi."]
    assert state.history[:2] == summary and len(state.history) == 7  # summary, two calls and results, the answer
    assert state.history[-1].parts[0].content == "One file."


async def test_a_refusal_for_length_is_refitted_at_most_twice_then_fails_the_turn(offline_state):
    state = offline_state(context_window=16_000)
    script = ScriptedModel(*[_too_long()] * (MAX_REFITS + 2))
    state.scratch.agent = script.agent(state)
    fits = 0

    async def hook(st, messages):
        nonlocal fits
        fits += 1
        return None

    outcome = await run_turn(state, "hi", before_request=hook)
    assert not outcome.ok and "maximum context length" in str(outcome.error)
    # The request, and each refit attempt fitted again before it is sent: never the same one twice blind.
    assert len(script.requests) == MAX_REFITS + 1 and fits == MAX_REFITS + 1
    assert state.stats.refused_requests == MAX_REFITS


async def test_a_server_window_smaller_than_ours_is_not_refitted(offline_state):
    state = offline_state(context_window=32_000)
    script = ScriptedModel(_too_long(), "never asked")
    state.scratch.agent = script.agent(state)
    outcome = await run_turn(state, "hi")
    assert not outcome.ok and len(script.requests) == 1
    assert state.stats.refused_requests == 0
