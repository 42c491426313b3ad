"""The one seam into a dependency's internals (agent/provider/sdk_seam.py) fails loudly when an upgrade moves
it, and no other source file reaches a private name of openai or pydantic_ai (issue 23)."""

from __future__ import annotations

import ast
import functools
import json

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart, UserPromptPart

from agent.config import Config
from agent.provider import sdk_seam
from agent.provider.model import build_model
from agent.provider.prefix import CONTEXT_KEY
from agent.turn.loop import run_turn
from tests.fake_openai import Text
from tests.test_architecture import ROOT, source_files

DEPENDENCIES = ("openai", "pydantic_ai")
# Where a private name of a dependency may be used: the adapter (today it needs none).
ADAPTERS = {"agent/provider/sdk_seam.py"}


def private_uses(source: str) -> set[str]:
    """`openai._x` / `pydantic_ai.y._z` in imports and attribute chains, and `from openai import _x`."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        elif isinstance(node, ast.Attribute):
            chain, inner = [node.attr], node.value
            while isinstance(inner, ast.Attribute):
                chain.insert(0, inner.attr)
                inner = inner.value
            if isinstance(inner, ast.Name):
                names = [".".join([inner.id, *chain])]
        for name in names:
            parts = name.split(".")
            if parts[0] in DEPENDENCIES and any(p.startswith("_") and not p.startswith("__") for p in parts[1:]):
                found.add(name)
    return found


def test_the_private_name_check_sees_each_form():
    assert private_uses(
        "import openai._utils\nfrom openai._base_client import x\nfrom openai import _exceptions\n"
        "y = openai._base_client.z\n"
    ) == {
        "openai._utils",
        "openai._base_client",
        "openai._base_client.x",
        "openai._exceptions",
        "openai._base_client.z",
    }
    assert private_uses("from pydantic_ai.messages import ModelRequest\nimport openai\nopenai.__version__\n") == set()


def test_no_source_file_uses_a_private_name_of_openai_or_pydantic_ai_outside_the_adapter():
    offenders = {}
    for path in source_files(ROOT):
        name = path.relative_to(ROOT).as_posix()
        if name not in ADAPTERS and (uses := private_uses(path.read_text(encoding="utf-8"))):
            offenders[name] = sorted(uses)
    assert offenders == {}, f"use the public API, or put it in the one adapter ({sorted(ADAPTERS)}): {offenders}"


def test_a_create_without_the_arguments_the_seam_wraps_is_refused():
    class Completions:
        async def create(self, *, prompt: str) -> None: ...

    class Client:
        class chat:  # noqa: N801 - the SDK's attribute
            completions = Completions()

    with pytest.raises(sdk_seam.SeamBroken, match="messages, tools, stream and extra_body"):
        sdk_seam.send_untransformed(Client())  # type: ignore[arg-type]


async def test_pydantic_ai_sends_through_the_wrapped_create(make_state, server, monkeypatch):
    """pydantic-ai calls the create the seam took over, never the SDK's own (which would walk and
    encode every message again), and the run's request context reaches the seam (the request is
    recorded) and never the server."""
    from openai.resources.chat import AsyncCompletions

    seen: list[int] = []
    original = AsyncCompletions.create

    @functools.wraps(original)
    async def spy(self, *args, **kwargs):
        seen.append(len(kwargs["messages"]))
        return await original(self, *args, **kwargs)

    monkeypatch.setattr(AsyncCompletions, "create", spy)
    state = make_state()
    server.script(Text("hello"))
    outcome = await run_turn(state, "hi")
    assert outcome.ok, outcome.error
    assert seen == [], "pydantic-ai no longer calls the client's chat.completions.create the seam takes over"
    assert state.scratch.recorder.last is not None, "the run's RequestContext did not reach the seam"
    body = server.requests[-1]["raw"]
    assert CONTEXT_KEY.encode() not in body and json.loads(body)["messages"][-1]["content"] == "hi"


async def test_the_body_is_the_one_the_sdk_would_send(server, workspace):
    """The seam's body is the JSON the SDK's own create sends (its keys in another order), with the
    same headers; and a body encoded with kept message bytes is the bytes of one encoded whole."""
    from openai import AsyncOpenAI
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    history = [
        ModelRequest(parts=[UserPromptPart("读取 a.py please \u2028 \x00")]),
        ModelResponse(parts=[ToolCallPart("read_file", {"path": "a.py"}, tool_call_id="c1")]),
        ModelRequest(parts=[ToolReturnPart("read_file", '{"json": [1, 2]}', tool_call_id="c1")]),
        ModelResponse(parts=[TextPart("done")]),
    ]
    ours = build_model(Config(model="gpt-test", base_url=server.base_url, api_key="k", workspace=workspace))
    plain_client = AsyncOpenAI(base_url=server.base_url, api_key="k", max_retries=0)
    plain = OpenAIChatModel("gpt-test", provider=OpenAIProvider(openai_client=plain_client))
    sent = []
    for model in (ours, plain, ours):
        server.script(Text("ok"))
        await Agent(model, instructions="be brief").run("next", message_history=history)
        sent.append(server.requests[-1])
    await ours.client.close()
    await plain.client.close()
    ours_body, sdk_body = json.loads(sent[0]["raw"]), json.loads(sent[1]["raw"])
    assert ours_body == sdk_body and ours_body["messages"][1]["content"] == "读取 a.py please \u2028 \x00"
    for name in ("authorization", "content-type"):
        assert sent[0]["headers"][name] == sent[1]["headers"][name]


def test_a_body_with_kept_message_bytes_is_the_body_encoded_whole(monkeypatch):
    encoder = sdk_seam.BodyEncoder()
    shared = [{"role": "system", "content": "s"}, {"role": "user", "content": "读 \u2028 \x00messages\x00"}]
    first = {"model": "m", "messages": shared, "stream": True}
    assert encoder.encode(first) == sdk_seam.dumps(first)
    encoded: list[object] = []
    dumps = sdk_seam.dumps
    monkeypatch.setattr(sdk_seam, "dumps", lambda obj: encoded.append(obj) or dumps(obj))
    second = {"model": "m", "messages": [*shared, {"role": "assistant", "content": "a"}], "stream": True}
    assert encoder.encode(second) == dumps(second)
    # The shared messages' bytes were kept: only the new message and the rest of the body were encoded.
    assert {"role": "assistant", "content": "a"} in encoded and not any(m is shared[1] for m in encoded)
    assert encoder.encode({"model": "m"}) == dumps({"model": "m"})
