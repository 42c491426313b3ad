"""Findings of the llama.cpp run (issue 21) that the emulator reproduces exactly: a junk summary, the
compaction failure text, a restored file's path, the [y/N] question, a refusal's wording."""

from __future__ import annotations

import io

import pytest
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, ToolCallPart, UserPromptPart
from rich.console import Console

import compact
from agent.compaction.summary import is_summary_shaped
from agent.errors import CompactError
from agent.events import Question
from agent.marks import is_summary
from tests.builders import SUMMARY, big_files, chat, long_answer
from tests.fake_openai import Text
from tests.scripted_model import ScriptedModel, last_prompt
from ui.render import REASKS, Renderer

JUNK = "I'm ready to help. What's the task you'd like to discuss?"


def test_a_greeting_is_not_a_summary_and_a_sectioned_reply_is():
    assert not is_summary_shaped(JUNK)
    assert is_summary_shaped("1. Primary requests and intent: fix the parser")
    assert is_summary_shaped("Files and code: a.py was read")
    assert is_summary_shaped("<summary>the work so far</summary>")
    assert is_summary_shaped("当前工作与下一步：修复解析器")


def _chatted(offline_state):
    """A session of two long turns whose summary requests a script answers (no server)."""
    state = offline_state(context_window=32_000)
    history = []
    for n, text in enumerate(["hello", "how are you"], 1):
        history += [ModelRequest(parts=[UserPromptPart(text)]), ModelResponse(parts=[TextPart(long_answer(n).content)])]
    state.transcript.update(history)
    state.transcript.persist()
    return state


async def test_a_junk_summary_is_asked_again_firmly_then_committed(offline_state):
    state = _chatted(offline_state)
    script = ScriptedModel(JUNK, SUMMARY)
    state.scratch.agent = script.agent(state)
    await compact.run_compact(state)
    assert is_summary(state.history[0])
    asks = [last_prompt(messages) for messages in script.requests]
    assert len(asks) == 2 and "was not a complete summary" in asks[1] and "complete summary" not in asks[0]


async def test_two_junk_summaries_fail_the_compaction_and_change_nothing(offline_state):
    state = _chatted(offline_state)
    before = list(state.history)
    on_disk = state.transcript.path.read_bytes()
    script = ScriptedModel(JUNK, JUNK)
    state.scratch.agent = script.agent(state)
    with pytest.raises(CompactError, match="not a summary"):
        await compact.run_compact(state)
    assert len(script.requests) == 2
    assert state.history == before and state.transcript.path.read_bytes() == on_disk


async def test_a_model_that_keeps_calling_tools_is_answered_then_asked_without_tools(offline_state, workspace):
    from agent.compaction.request import MAX_TOOL_ROUNDS
    from agent.events import Notice

    state = _chatted(offline_state)
    touch = [("run_command", {"command": "touch ran.txt"})]
    script = ScriptedModel(*[touch] * (MAX_TOOL_ROUNDS + 1), SUMMARY)
    state.scratch.agent = script.agent(state)
    await compact.run_compact(state)
    assert is_summary(state.history[0])
    assert not (workspace / "ran.txt").exists()  # answered "tools are off", never run
    assert len(script.requests) == MAX_TOOL_ROUNDS + 2
    assert all("run_command" in tools for tools in script.tools[:-1]) and script.tools[-1] == []
    assert any("tool" in n.text for n in state.emit.of(Notice))


async def test_a_cut_summary_says_nothing_was_changed_once_and_no_thinking_advice_without_thinking(make_state, server):
    from agent.text.i18n import t

    state = make_state(context_window=32_000, model="smollm2-135m")
    server.script(long_answer(1), long_answer(2))
    await chat(state, ["hello", "how are you"])
    # Cut twice (it is asked once more): the compaction fails.
    server.script(*[Text("<summary>1. The user asked to rea", finish="length")] * 2)
    with pytest.raises(CompactError) as caught:
        await compact.run_compact(state)
    shown = t("compact_failed", "en", reason=caught.value)
    assert shown.lower().count("nothing was changed") == 1
    assert "--thinking" not in shown and "reasoning" not in shown


async def test_a_restored_file_comes_back_with_its_relative_path(make_state, workspace, server):
    state = make_state(context_window=32_000)
    big_files(workspace, 1, lines=40)
    await chat(state, ["read big0.txt"])
    server.script(long_answer(1), long_answer(2))  # a summary must be smaller than what it replaces
    await chat(state, ["a", "b"])
    server.script(Text(SUMMARY))
    await compact.run_compact(state)
    paths = [
        p.args_as_dict()["path"]
        for m in state.history
        if isinstance(m, ModelResponse)
        for p in m.parts
        if isinstance(p, ToolCallPart) and p.tool_name == "read_file"
    ]
    assert paths == ["big0.txt"]


async def _ask(answers: list[str]) -> tuple[str, str, int]:
    out = io.StringIO()
    asked = []

    async def read_answer(question: str, fresh: bool, edit: str | None = None) -> str:
        asked.append(question)
        return answers.pop(0)

    renderer = Renderer(Console(file=out, width=100, color_system=None), "en", read_answer=read_answer)
    answer = await renderer._question(Question("Put back the history?", yes_no=True), read_answer)
    return answer, out.getvalue(), len(asked)


async def test_the_yes_no_question_asks_again_on_another_line():
    answer, shown, asked = await _ask(["/context", "y"])
    assert answer == "y" and asked == 2 and "'/context' is not an answer" in shown
    assert (await _ask([""]))[0] == "n"
    answer, shown, asked = await _ask(["what?"] * REASKS)
    assert answer == "n" and asked == REASKS and "Taken as no" in shown


@pytest.mark.parametrize(
    ("body", "n_ctx"),
    [
        (
            {
                "error": {
                    "code": 400,
                    "message": "the request exceeds the available context size, try increasing it",
                    "type": "exceed_context_size_error",
                    "n_prompt_tokens": 4650,
                    "n_ctx": 4096,
                }
            },
            4096,
        ),
        (
            {
                "object": "error",
                "message": "This model's maximum context length is 8192 tokens. However, you requested "
                "9000 tokens (8488 in the messages, 512 in the completion).",
                "type": "BadRequestError",
            },
            8192,
        ),
        (
            {
                "error": "The number of tokens to keep from the initial prompt is greater than the context length "
                "(n_keep: 13055>= n_ctx: 4096). Try to load the model with a larger context length"
            },
            4096,
        ),
        ({"error": {"message": "the input length exceeds the context length"}}, None),
    ],
)
def test_a_local_servers_refusal_for_length_names_the_window_to_set(body, n_ctx):
    from pydantic_ai.exceptions import ModelHTTPError

    from agent.config import Config
    from agent.provider.error_text import describe_error

    exc = ModelHTTPError(400, "m", body)
    text = describe_error(exc, Config(model="m", base_url="http://127.0.0.1:8080/v1"))
    assert "longer than its context" in text and "{" not in text
    assert (f"--context-window {n_ctx}" in text) if n_ctx else "pass its real context size" in text.lower()


async def test_a_server_without_tokenize_or_props_leaves_counting_and_the_window_alone(make_state, server):
    from agent.tokens import count as tokens
    from agent.tokens import server_tokens
    from controller import check_server

    state = make_state(model="qwen3-coder:30b", context_window=32_000)
    check_server(state)
    assert tokens._server_count is None and server_tokens.probe(server.base_url, "qwen3-coder:30b") is None
    assert state.config.context_window == 32_000 and not state.emit.events
    assert server.requests == []  # the probes are not chat requests


def test_deepseek_and_openai_are_never_probed():
    from agent.config import Config
    from agent.provider.server_caps import probe
    from agent.tokens import server_tokens

    assert probe(Config(base_url=None)) is None and probe(Config(base_url="https://api.openai.com/v1")) is None
    assert server_tokens.probe("https://api.deepseek.com", "deepseek-v4-flash") is None
