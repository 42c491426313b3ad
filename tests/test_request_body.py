"""The request body reuses the previous request's message bytes and is still the SDK's body."""

from __future__ import annotations

from openai._utils import _json

from agent.provider import request_body
from agent.provider.request_body import BodyEncoder
from main import on_submit
from tests.builders import responder, script_forever
from tests.fake_openai import FakeOpenAI, Text, ToolCalls


def _body(messages: list) -> dict:
    return {"messages": messages, "model": "deepseek-v4-flash", "stream": True, "tools": [{"type": "function"}]}


def test_the_bytes_are_the_sdks_and_shared_messages_are_not_encoded_again(monkeypatch):
    shared = [{"role": "system", "content": "指令"}, {"role": "user", "content": 'a "quote"\n\x00messages\x00 é'}]
    encoder = BodyEncoder()
    first = _body(list(shared))
    assert encoder.encode(first) == _json.openapi_dumps(first)
    calls = []
    real = _json.openapi_dumps
    monkeypatch.setattr(_json, "openapi_dumps", lambda obj: (calls.append(obj), real(obj))[1])
    second = _body(shared + [{"role": "assistant", "content": "好"}])
    assert encoder.encode(second) == real(second)
    # The new message and the body around the messages; not the two shared ones.
    assert calls[0] == {"role": "assistant", "content": "好"} and len(calls) == 2
    # An equal but different dict is encoded again: identity, never equality, decides.
    calls.clear()
    third = _body([dict(m) for m in shared])
    assert encoder.encode(third) == real(third) and len(calls) == 3


def test_a_body_without_messages_is_left_to_the_sdk():
    assert BodyEncoder().encode({"model": "m"}) is None
    assert BodyEncoder().encode(_body([])) is None


async def test_turns_send_the_same_bytes_with_and_without_it(make_state, workspace, server, monkeypatch):
    (workspace / "a.py").write_text("print('a')\n" * 40)
    turns = [("what does a.py do?", [ToolCalls([("read_file", {"path": "a.py"})], reasoning="look"), Text("prints")]),
             ("你好", [Text("你好！", reasoning="中文")]), ("again", [Text("yes")])]

    async def run(state, srv) -> list[bytes]:
        for text, replies in turns:
            script_forever(srv, responder(list(replies)))
            await on_submit(state, text)
        return [r["raw"] for r in srv.requests]

    spied = []
    original = BodyEncoder.encode
    monkeypatch.setattr(BodyEncoder, "encode", lambda self, body: spied.append(1) or original(self, body))
    ours = await run(make_state(), server)
    assert len(spied) == len(ours)  # every request went through the encoder
    monkeypatch.setattr(request_body.BodyEncoder, "encode", lambda self, body: None)
    with FakeOpenAI() as other:
        sdk = await run(make_state(base_url=other.base_url), other)
    assert ours == sdk
