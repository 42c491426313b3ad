"""Token counting: the DeepSeek tokenizer, the per-message cache, and agreement with the fake server."""

from __future__ import annotations

import gc
import subprocess
import sys
from pathlib import Path

import openai
from pydantic_ai.messages import (
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from agent.tokens import count as tokens
from tests.fake_openai import Text, ToolCalls

ROOT = Path(__file__).resolve().parents[3]

ZH = "这是一个关于上下文压缩的测试。我们需要确保中文文本的计数准确无误，包括标点符号和数字2024。"
EN = "The quick brown fox jumps over the lazy dog while the agent compacts its context window. "
CODE = (ROOT / "agent" / "tokens" / "count.py").read_text()
DATA = {"files": [{"path": f"src/mod_{i}.py", "size": i * 137, "ok": i % 3 == 0, "note": "注释"} for i in range(80)]}


def test_count_text_sanity():
    assert tokens.exact()
    assert tokens.count_text("") == 0
    assert tokens.count_text("hello world") == 2
    assert tokens.count_text("你好，世界") == 3
    en = tokens.count_text(EN * 10)
    assert len(EN * 10) / 6 < en < len(EN * 10) / 3  # English: about 4-5 characters a token
    zh = tokens.count_text(ZH * 10)
    assert len(ZH * 10) * 0.4 < zh < len(ZH * 10) * 1.0  # Chinese: under one token a character


def test_long_text_is_counted_exactly():
    text = CODE * 20  # past the size where it is cut and batch-encoded
    assert len(text) > tokens._BATCH_OVER
    whole = tokens._load().encode(text, add_special_tokens=False).ids
    assert tokens.encode(text) == whole


def test_heuristic_when_the_tokenizer_cannot_load(monkeypatch):
    def missing():
        raise FileNotFoundError("gone")

    monkeypatch.setattr(tokens, "_tokenizer_path", missing)
    monkeypatch.setattr(tokens, "_tokenizer", None)
    monkeypatch.setattr(tokens, "_load_failed", False)
    assert not tokens.exact()
    assert tokens.count_text("abcdefgh") == 2
    assert tokens.count_text("abcdefghi") == 3
    assert tokens.count_text("你好世界") == 4
    assert tokens.count_request_prefix("sys", []) > 0


def test_preload_does_not_block_start_up():
    # preload() returns while the tokenizer (about a second to load) is still loading in its thread.
    code = (
        "from agent.tokens import count as tokens; tokens.preload(); print(tokens._preload_thread.is_alive());"
        "tokens._preload_thread.join(); print(tokens._tokenizer is not None, tokens.count_text('hello world'))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    loading, loaded = out.stdout.splitlines()
    assert loading == "True"
    assert loaded == "True 2"


def test_count_message_parts():
    c = tokens.count_text
    user = ModelRequest(parts=[UserPromptPart("hello world")])
    assert tokens.count_message(user) == 1 + c("hello world")
    ret = ModelRequest(
        parts=[
            ToolReturnPart("list_files", {"a": [1, 2]}, tool_call_id="x"),
            ToolReturnPart("read_file", "plain text", tool_call_id="y"),
        ]
    )
    wrap = c("<tool_result>") + c("</tool_result>")
    assert tokens.count_message(ret) == wrap + c('{"a":[1,2]}') + wrap + c("plain text")
    resp = ModelResponse(
        parts=[
            ThinkingPart("let me see", id="reasoning_content"),
            TextPart("Reading."),
            ToolCallPart("read_file", {"path": "a.py"}, tool_call_id="x"),
        ]
    )
    # The call as DSML: <DSML tool_calls> <DSML invoke name=..> <DSML parameter ..>a.py</DSML parameter> ...
    dsml = (
        c("\n\n<")
        + 1
        + c("tool_calls>\n<")
        + 1
        + c('invoke name="read_file">\n<')
        + 1
        + c('parameter name="path" string="true">a.py</')
        + 1
        + c("parameter>\n</")
        + 1
        + c("invoke>\n</")
        + 1
        + c("tool_calls>")
    )
    assert tokens.count_message(resp) == 1 + 2 + c("let me see") + c("Reading.") + dsml + 1
    assert tokens.count_message(ModelRequest(parts=[SystemPromptPart("be brief")])) == 2 + c("be brief")
    assert tokens.count_message(ModelResponse(parts=[ThinkingPart("only thoughts")])) == 0  # not sent


def test_batch_counts_equal_one_by_one():
    def varied():
        return [ModelRequest(parts=[UserPromptPart(f"question {i}: {EN if i % 2 else ZH}")]) for i in range(40)] + [
            ModelRequest(parts=[UserPromptPart("")]),
            ModelRequest(parts=[ToolReturnPart("read_file", "def f():\n    return 1\n" * 3_000, tool_call_id="x")]),
            ModelResponse(
                parts=[
                    ThinkingPart("hmm", id="reasoning_content"),
                    TextPart("x"),
                    ToolCallPart("grep", {"pattern": "内容"}, tool_call_id="y"),
                ]
            ),
        ]

    one_by_one = [tokens.count_message(m) for m in varied()]
    batch = varied()
    assert tokens.count_messages(batch) == sum(one_by_one)
    assert [tokens.count_message(m) for m in batch] == one_by_one
    texts = [EN, "", ZH, "x" * (tokens._BATCH_OVER + 5)]
    assert tokens.count_texts(texts) == [tokens.count_text(t) for t in texts]


def test_count_messages_is_cached_per_message(monkeypatch):
    history = []
    for i in range(5_000):
        history.append(ModelRequest(parts=[UserPromptPart(f"question {i}: {EN}")]))
        history.append(ModelResponse(parts=[TextPart(f"answer {i}: {ZH}")]))
    total = tokens.count_messages(history)

    def boom(msg):
        raise AssertionError("a cached message was rendered and counted again")

    monkeypatch.setattr(tokens, "_pieces", boom)
    assert tokens.count_messages(history) == total
    assert sum(tokens.count_message(m) for m in history) == total


def test_cache_entry_dies_with_its_message():
    msg = ModelRequest(parts=[UserPromptPart("short lived")])
    tokens.count_message(msg)
    key = id(msg)
    assert key in tokens._counts
    del msg
    gc.collect()
    assert key not in tokens._counts
    other = ModelRequest(parts=[UserPromptPart("a different and longer message " * 5)])
    assert tokens.count_message(other) == 1 + tokens.count_text("a different and longer message " * 5)


def test_request_prefix_grows_as_the_servers_own_count(server):
    """The server counts with its own DeepSeek-style template (its tool instructions included; our
    rendering too, tests/deepseek_template.py, not the agent's rule): a longer schema must grow both
    counts alike, and the bare function dict count as the wrapper."""

    def tools(description: str) -> list[dict]:
        return [
            {
                "type": "function",
                "function": {
                    "name": "read_file",
                    "description": description,
                    "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
                },
            }
        ]

    client = openai.OpenAI(base_url=server.base_url, api_key="test", max_retries=0)
    counts = []
    for description in ("读取文件 Read a file.", "读取文件 Read a file. " + ZH * 3 + EN * 3):
        client.chat.completions.create(
            model="m", messages=[{"role": "system", "content": ZH + EN}], tools=tools(description)
        )
        counts.append((tokens.count_request_prefix(ZH + EN, tools(description)), server.last_request["prompt_tokens"]))
        assert tokens.count_request_prefix(ZH + EN, [tools(description)[0]["function"]]) == counts[-1][0]
    mine, theirs = counts[1][0] - counts[0][0], counts[1][1] - counts[0][1]
    assert theirs > 100 and abs(mine - theirs) <= 0.02 * theirs, (mine, theirs)


async def test_history_count_agrees_with_the_server(server):
    from pydantic_ai import Agent, ModelRetry
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    instructions = "You are a coding agent. 你是一个编程助手。Answer briefly."
    model = OpenAIChatModel("deepseek-v4-flash", provider=OpenAIProvider(base_url=server.base_url, api_key="test"))
    agent = Agent(model, instructions=instructions)
    retried = []

    @agent.tool_plain
    def read_file(path: str) -> str:
        """Read a file and return its text."""
        return CODE if path.endswith(".py") else ZH * 10

    @agent.tool_plain
    def list_files(pattern: str) -> dict:
        """List the files matching a glob pattern."""
        if not retried:
            retried.append(pattern)
            raise ModelRetry("use a narrower pattern")
        return DATA

    server.script(
        ToolCalls(
            [("read_file", {"path": "agent/tokens/count.py"}), ("list_files", {"pattern": "*"})],
            content="Let me look.",
            reasoning="先看看代码。",
        ),
        ToolCalls([("list_files", {"pattern": "src/*.py"})]),
        Text(EN * 10, reasoning="思考 " + EN),
        ToolCalls([("read_file", {"path": "README"})]),
        Text(ZH * 5),
    )
    result = await agent.run(ZH * 10 + "\n" + EN * 10)
    async with agent.run_stream("请读一下 README", message_history=result.all_messages()) as run:
        await run.get_output()
    history = run.all_messages()
    sent = [m for r in server.requests for m in r["body"]["messages"]]
    # The history has a retried tool call (sent as {"error": ...}) and thinking sent back.
    assert any(m["role"] == "tool" and m["content"].startswith('{"error":') for m in sent)
    assert any(m.get("reasoning_content") for m in sent)
    # Request k carried the history up to the k-th response.
    answers = [i for i, m in enumerate(history) if isinstance(m, ModelResponse)]
    assert len(answers) == len(server.requests) == 5
    # The server's own count (its DeepSeek-style template, ours too) differs from the agent's by a fixed
    # amount, its tool instructions: what the history adds must agree (bench/token_error.py prints both figures).
    first = server.requests[0]["prompt_tokens"] - tokens.count_messages(history[: answers[0]])
    for i, request in zip(answers[1:], server.requests[1:], strict=True):
        mine, theirs = tokens.count_messages(history[:i]), request["prompt_tokens"] - first
        # 3%: DSML writes tool arguments as tagged parameters, we count them as the JSON sent.
        assert abs(mine - theirs) <= 0.03 * theirs, (mine, theirs)
    assert server.last_request["prompt_tokens"] > 3000


def test_a_long_text_is_tokenized_once(monkeypatch):
    text = "def f(x):\n    return x * 2\n" * 400
    n = tokens.count_text(text)
    seen: list[str] = []
    real = tokens.encode
    monkeypatch.setattr(tokens, "encode", lambda t: seen.append(t) or real(t))
    assert tokens.count_text(text) == n
    assert tokens.count_texts([text, "short", EN])[0] == n
    assert seen == []  # the same str object: remembered
    copy = "".join([text[:10], text[10:]])
    assert copy is not text and tokens.count_text(copy) == n and seen == [copy]  # another object: counted
