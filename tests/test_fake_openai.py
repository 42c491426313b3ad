"""The fake server, driven by the real openai client and by pydantic-ai."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import openai
import pytest

from agent.tokens import count as tokens
from tests.fake_openai import (
    CutStream,
    Empty,
    Error,
    FakeOpenAI,
    Hang,
    Malformed,
    Slow,
    Text,
    ToolCalls,
    smart_reply,
)

ROOT = Path(__file__).resolve().parent.parent
USER = [{"role": "user", "content": "hello"}]


@pytest.fixture
def server():
    with FakeOpenAI() as srv:
        yield srv


@pytest.fixture
def client(server):
    return openai.OpenAI(base_url=server.base_url, api_key="test", max_retries=0)


def stream(client, **kw):
    kw.setdefault("messages", USER)
    return list(
        client.chat.completions.create(
            model="deepseek-v4-flash", stream=True, stream_options={"include_usage": True}, **kw
        )
    )


def test_streaming_text_with_reasoning_and_usage(server, client):
    server.script(Text("Hello there, streaming world of tokens", reasoning="Because I must.", chunks=3))
    chunks = stream(client)
    deltas = [c.choices[0].delta for c in chunks if c.choices]
    content = [d.content for d in deltas if d.content]
    reasoning = [d.model_extra.get("reasoning_content") for d in deltas if d.model_extra.get("reasoning_content")]
    assert len(content) == 3 and "".join(content) == "Hello there, streaming world of tokens"
    assert "".join(reasoning) == "Because I must."
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
    usage = chunks[-1].usage
    assert usage.prompt_tokens == server.last_request["prompt_tokens"] > 0
    assert usage.completion_tokens == tokens.count_text("Hello there, streaming world of tokens") + tokens.count_text(
        "Because I must."
    )
    assert usage.total_tokens == usage.prompt_tokens + usage.completion_tokens


def test_streaming_tool_calls(server, client):
    server.script(ToolCalls([("read_file", {"path": "src/a.py"}), ("run_command", '{"command": "ls -la"}')]))
    chunks = stream(client)
    calls: dict[int, dict] = {}
    pieces = 0
    for c in chunks:
        for tc in (c.choices[0].delta.tool_calls or []) if c.choices else []:
            call = calls.setdefault(tc.index, {"id": tc.id, "name": tc.function.name, "args": ""})
            if tc.function.arguments:
                call["args"] += tc.function.arguments
                pieces += 1
    assert [calls[i]["name"] for i in (0, 1)] == ["read_file", "run_command"]
    assert json.loads(calls[0]["args"]) == {"path": "src/a.py"}
    assert calls[1]["args"] == '{"command": "ls -la"}'  # raw strings pass through
    assert calls[0]["id"] and calls[0]["id"] != calls[1]["id"]
    assert pieces > 2
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "tool_calls"


def test_non_streaming(server, client):
    server.script(Text("plain answer"), ToolCalls([("read_file", {"path": "x"})], content="Looking."))
    r = client.chat.completions.create(model="deepseek-v4-flash", messages=USER)
    assert r.choices[0].message.content == "plain answer" and r.choices[0].finish_reason == "stop"
    assert r.usage.prompt_tokens == server.last_request["prompt_tokens"]
    r = client.chat.completions.create(model="deepseek-v4-flash", messages=USER)
    assert r.choices[0].message.content == "Looking."
    assert r.choices[0].message.tool_calls[0].function.name == "read_file"
    assert r.choices[0].finish_reason == "tool_calls"


def test_cache_hits_grow_with_a_repeated_prefix(server, client):
    system = {"role": "system", "content": "You are careful. " * 200}
    first = client.chat.completions.create(model="m", messages=[system, {"role": "user", "content": "one"}])
    assert first.usage.model_extra["prompt_cache_hit_tokens"] == 0
    history = [system, {"role": "user", "content": "one"}, {"role": "assistant", "content": "ok " * 100}]
    second = client.chat.completions.create(model="m", messages=[*history, {"role": "user", "content": "two"}])
    hit = second.usage.model_extra["prompt_cache_hit_tokens"]
    assert hit % 64 == 0 and first.usage.prompt_tokens - 64 < hit <= first.usage.prompt_tokens
    assert second.usage.model_extra["prompt_cache_miss_tokens"] == second.usage.prompt_tokens - hit
    assert second.usage.prompt_tokens_details.cached_tokens == hit
    third = client.chat.completions.create(model="m", messages=[*history, {"role": "user", "content": "three"}])
    assert third.usage.model_extra["prompt_cache_hit_tokens"] > hit  # the assistant turn is cached now
    assert [r["cache_hit_tokens"] for r in server.requests] == [
        0,
        hit,
        third.usage.model_extra["prompt_cache_hit_tokens"],
    ]


def test_cache_of_a_million_tokens_is_fast():
    srv = FakeOpenAI()
    ids = list(range(1_000_000))
    start = time.perf_counter()
    assert srv._cache_hits(ids) == 0
    assert srv._cache_hits(ids[:500_000] + [7] * 10) == 500_000 - 500_000 % 64
    assert time.perf_counter() - start < 1.0


@pytest.mark.parametrize(
    "status, exc",
    [
        (401, openai.AuthenticationError),
        (429, openai.RateLimitError),
        (500, openai.InternalServerError),
        (503, openai.InternalServerError),
        (400, openai.BadRequestError),
    ],
)
def test_scripted_errors(server, client, status, exc):
    server.script(Error(status, f"boom {status}", headers={"Retry-After": "7"}))
    with pytest.raises(exc) as info:
        client.chat.completions.create(model="m", messages=USER)
    assert info.value.status_code == status
    assert f"boom {status}" in str(info.value)
    assert info.value.response.headers["retry-after"] == "7"


def test_max_context_rejects_long_requests():
    with FakeOpenAI(max_context=100) as srv:
        client = openai.OpenAI(base_url=srv.base_url, api_key="test", max_retries=0)
        client.chat.completions.create(model="m", messages=USER)
        with pytest.raises(openai.BadRequestError) as info:
            client.chat.completions.create(model="m", messages=[{"role": "user", "content": "word " * 300}])
        prompt = srv.last_request["prompt_tokens"]
        assert prompt > 100
        assert info.value.code == "invalid_request_error"
        assert (
            f"This model's maximum context length is 100 tokens. However, you requested {prompt} tokens"
            in info.value.message
        )
        assert srv.pending == 0


def test_api_key_and_tool_choice_none():
    with FakeOpenAI(api_key="secret", reject_tool_choice_none=True) as srv:
        bad = openai.OpenAI(base_url=srv.base_url, api_key="wrong", max_retries=0)
        with pytest.raises(openai.AuthenticationError):
            bad.chat.completions.create(model="m", messages=USER)
        good = openai.OpenAI(base_url=srv.base_url, api_key="secret", max_retries=0)
        assert good.chat.completions.create(model="m", messages=USER).choices[0].message.content == "Echo: hello"
        assert [m.id for m in good.models.list()][0] == "deepseek-flash"
        with pytest.raises(openai.BadRequestError):
            good.chat.completions.create(
                model="m",
                messages=USER,
                tool_choice="none",
                tools=[{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}],
            )
        assert srv.requests[1]["headers"]["authorization"] == "Bearer secret"


def test_cut_stream_and_malformed(server, client):
    server.script(CutStream("one two three four five six", after_chunks=2), Malformed(), Malformed())
    got = []
    with pytest.raises(openai.APIConnectionError):
        for c in client.chat.completions.create(model="m", messages=USER, stream=True):
            got.append(c.choices[0].delta.content)
    assert "".join(x for x in got if x) == "one two three four "
    with pytest.raises(ValueError):
        client.chat.completions.create(model="m", messages=USER)
    with pytest.raises(ValueError):
        stream(client)


def test_hang_times_out_and_stop_is_quick(client, server):
    server.script(Hang(30))
    start = time.perf_counter()
    with pytest.raises(openai.APITimeoutError):
        client.with_options(timeout=0.3).chat.completions.create(model="m", messages=USER)
    server.stop()
    assert time.perf_counter() - start < 2


def test_slow_empty_and_callable(server, client):
    server.script(Slow("a b c d", delay_per_chunk=0.05, chunks=4), Empty(), lambda body: Text(body["model"]))
    start = time.perf_counter()
    chunks = stream(client)
    assert time.perf_counter() - start >= 0.2
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == "a b c d"
    empty = stream(client)
    assert all(not c.choices[0].delta.content and not c.choices[0].delta.tool_calls for c in empty if c.choices)
    r = client.chat.completions.create(model="custom-model", messages=USER)
    assert r.choices[0].message.content == "custom-model"
    assert r.model == "custom-model"


TOOLS = [
    {"type": "function", "function": {"name": n, "parameters": {"type": "object", "properties": p}}}
    for n, p in [
        ("read_file", {"path": {}}),
        ("run_command", {"command": {}}),
        ("write_file", {"path": {}, "content": {}}),
        ("edit_file", {"path": {}, "old_text": {}, "new_text": {}}),
    ]
]


def ask(text, tools=TOOLS, **kw):
    return smart_reply({"messages": [{"role": "user", "content": text}], "tools": tools, **kw})


def test_smart_default_replies():
    assert ask("hello") == Text("Echo: hello", chunks=4)
    assert ask("please think about it").reasoning
    assert ask("read src/app.py") == ToolCalls([("read_file", {"path": "src/app.py"})])
    assert ask("run pytest -q tests") == ToolCalls([("run_command", {"command": "pytest -q tests"})])
    assert ask("write notes.txt hello there") == ToolCalls(
        [("write_file", {"path": "notes.txt", "content": "hello there"})]
    )
    assert ask("edit a.py foo bar") == ToolCalls(
        [("edit_file", {"path": "a.py", "old_text": "foo", "new_text": "bar"})]
    )
    assert ask("read src/app.py", tools=[]).content == "Echo: read src/app.py"
    assert isinstance(ask("read src/app.py", tool_choice="none"), Text)
    slow = ask("tell me something slow")
    assert isinstance(slow, Slow) and slow.chunks == 40
    after_tool = smart_reply(
        {
            "messages": [
                {"role": "user", "content": "read a"},
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}
                    ],
                },
                {"role": "tool", "tool_call_id": "c1", "content": "x" * 42},
            ]
        }
    )
    assert after_tool.content == "Done: read_file returned 42 characters."


def test_smart_default_summary_lists_user_messages():
    body = {
        "tool_choice": "none",
        "tools": TOOLS,
        "messages": [
            {"role": "system", "content": "sys"},
            {"role": "user", "content": "first ask: read main.py"},
            {"role": "assistant", "content": "sure"},
            {"role": "user", "content": [{"type": "text", "text": "第二个请求"}]},
            {"role": "user", "content": "Summarize. Put <analysis> first, then <summary>."},
        ],
    }
    reply = smart_reply(body)
    assert isinstance(reply, Text)
    assert reply.content.startswith("<analysis>draft</analysis>\n<summary>")
    assert reply.content.rstrip().endswith("</summary>")
    section5 = reply.content.split("5.")[1].split("6.")[0]
    assert "first ask: read main.py" in section5 and "第二个请求" in section5
    assert "Summarize." not in reply.content


def test_smart_default_over_http_runs_a_tool_turn(server, client):
    r = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "read a.txt"}], tools=TOOLS)
    call = r.choices[0].message.tool_calls[0]
    assert (call.function.name, json.loads(call.function.arguments)) == ("read_file", {"path": "a.txt"})


def test_standalone_prints_its_url():
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.fake_openai", "--port", "0"], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    try:
        line = proc.stdout.readline().strip()
        assert line.startswith("FAKE_OPENAI_URL=http://127.0.0.1:")
        url = line.split("=", 1)[1]
        client = openai.OpenAI(base_url=url, api_key="any", max_retries=0)
        assert client.chat.completions.create(model="m", messages=USER).choices[0].message.content == "Echo: hello"
    finally:
        proc.kill()
        proc.wait()


async def test_pydantic_ai_tool_round_trip(server, monkeypatch):
    import pydantic_ai.models
    from pydantic_ai import Agent
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    monkeypatch.setattr(pydantic_ai.models, "ALLOW_MODEL_REQUESTS", True)
    model = OpenAIChatModel("deepseek-v4-flash", provider=OpenAIProvider(base_url=server.base_url, api_key="test"))
    agent = Agent(model, instructions="You are a coding agent. " * 20)
    seen = []

    @agent.tool_plain
    def read_file(path: str) -> str:
        """Read a file."""
        seen.append(path)
        return "file body " * 10

    server.script(ToolCalls([("read_file", {"path": "a.py"})], reasoning="need the file"), Text("It says hi."))
    async with agent.run_stream("What is in a.py?") as run:
        output = await run.get_output()
    assert output == "It says hi." and seen == ["a.py"]
    second = server.requests[1]["body"]
    assert second["messages"][-1] == {
        "role": "tool",
        "tool_call_id": second["messages"][-2]["tool_calls"][0]["id"],
        "content": "file body " * 10,
    }
    assert second["stream_options"] == {"include_usage": True}
    last = run.all_messages()[-1]
    hit = server.requests[1]["cache_hit_tokens"]
    assert hit > 0
    assert last.usage.details["prompt_cache_hit_tokens"] == hit
    assert last.usage.input_tokens == server.requests[1]["prompt_tokens"]
    assert run.usage.input_tokens == sum(r["prompt_tokens"] for r in server.requests)
