"""The model client sends exactly what pydantic-ai builds, without the SDK's per-message pass."""

from __future__ import annotations

from pydantic_ai import Agent
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart, UserPromptPart

from agent.config import Config
from agent.provider.model import build_model


async def test_request_body_is_complete(server, workspace):
    model = build_model(Config(base_url=server.base_url, api_key="k", workspace=workspace))
    history = [
        ModelRequest(parts=[UserPromptPart("读取 a.py please")]),
        ModelResponse(parts=[ToolCallPart("read_file", {"path": "a.py"}, tool_call_id="c1")]),
        ModelRequest(parts=[ToolReturnPart("read_file", '{"json": [1, 2]}', tool_call_id="c1")]),
        ModelResponse(parts=[TextPart("done")]),
    ]
    agent = Agent(model, instructions="be brief")
    result = await agent.run("next", message_history=history)
    assert result.output
    body = server.requests[-1]["body"]
    assert [m["role"] for m in body["messages"]] == ["system", "user", "assistant", "tool", "assistant", "user"]
    assert body["messages"][1]["content"] == "读取 a.py please"
    assert body["messages"][2]["tool_calls"][0]["function"] == {"name": "read_file", "arguments": '{"path":"a.py"}'}
    assert body["messages"][3] == {"role": "tool", "tool_call_id": "c1", "content": '{"json": [1, 2]}'}
    assert body["messages"][-1]["content"] == "next"
    assert body["model"] == "deepseek-flash"  # the default
    await model.client.close()
