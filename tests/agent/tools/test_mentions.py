import pytest
from pydantic_ai import Agent, RunContext
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

import session
from agent.state.app import AppState
from agent.state.file_state import ReadFileState
from agent.tools.builtin import TOOLS, read_file
from agent.tools.mentions import build_mention_messages, find_mentions


@pytest.fixture
def state(state: AppState) -> AppState:
    """The shared state (tests/conftest.py), its workspace holding a few files."""
    ws = state.workspace
    (ws / "src").mkdir()
    (ws / "src" / "a.py").write_text("print('a')\n")
    (ws / "b.md").write_text("# B\n")
    (ws / "img.png").write_bytes(b"\x89PNG\0\0")
    return state


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("look at @src/a.py please", ["src/a.py"]),
        ("@b.md and @src/a.py, then @b.md again.", ["b.md", "src/a.py"]),
        ("mail me at me@example.com", []),
        ("(@x.py) @", []),
        ("two\n@lines.txt\t@tabs.txt", ["lines.txt", "tabs.txt"]),
        ("see @src/a.py:", ["src/a.py"]),
    ],
)
def test_find_mentions(text: str, expected: list[str]) -> None:
    assert find_mentions(text) == expected


def test_build_messages_match_read_file(state: AppState, ctx: RunContext[AppState]) -> None:
    messages, notices = build_mention_messages(["src/a.py", "b.md"], state)
    assert notices == []
    response, request = messages
    assert isinstance(response, ModelResponse) and isinstance(request, ModelRequest)
    calls = [p for p in response.parts if isinstance(p, ToolCallPart)]
    returns = [p for p in request.parts if isinstance(p, ToolReturnPart)]
    assert [c.args for c in calls] == [{"path": "src/a.py"}, {"path": "b.md"}]
    assert [c.tool_call_id for c in calls] == [r.tool_call_id for r in returns]
    assert len({c.tool_call_id for c in calls}) == 2
    assert [r.content for r in returns] == [read_file(ctx, "src/a.py"), read_file(ctx, "b.md")]
    assert all(r.tool_name == "read_file" for r in returns)
    assert state.read_file_state.check_fresh(state.workspace / "src/a.py") is None


def test_unreadable_files_skipped_with_notice(state: AppState) -> None:
    messages, notices = build_mention_messages(["nope.txt", "../x", "img.png", "src", "b.md"], state)
    assert len(notices) == 4
    assert notices[0].startswith("@nope.txt skipped: no such file")
    assert "outside the workspace" in notices[1]
    assert "binary" in notices[2]
    # Worded for the user, not the model: no tool names to "use".
    assert notices[3].startswith("@src is a folder") and "list_files" not in notices[3]
    calls = [p for p in messages[0].parts if isinstance(p, ToolCallPart)]
    assert [c.args for c in calls] == [{"path": "b.md"}]


def test_nothing_readable_gives_no_messages(state: AppState) -> None:
    assert build_mention_messages(["nope"], state)[0] == []
    assert build_mention_messages([], state) == ([], [])


def test_explicit_read_file_state(state: AppState) -> None:
    other = ReadFileState()
    build_mention_messages(["b.md"], state, read_file_state=other)
    assert state.workspace / "b.md" in other
    assert len(state.read_file_state) == 0


async def test_messages_round_trip_and_run(state: AppState) -> None:
    messages, _ = build_mention_messages(["b.md"], state)
    assert session.parse_lines(session.dump_messages(messages).encode()).messages == messages
    seen: list[ModelMessage] = []

    def model(history: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.extend(history)
        return ModelResponse(parts=[TextPart("ok")])

    agent = Agent(FunctionModel(model), deps_type=AppState, tools=TOOLS)
    result = await agent.run("what is in @b.md?", message_history=messages, deps=state)
    assert result.output == "ok"
    assert any(isinstance(p, ToolReturnPart) and "# B" in p.content for m in seen for p in m.parts)
