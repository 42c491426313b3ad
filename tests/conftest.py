"""Shared fixtures: a private data folder, a workspace, the local OpenAI-compatible server."""

from __future__ import annotations

import pytest
from pydantic_ai import models

from agent.config import Config
from agent.state.app import AppState
from agent.state.transcript import Transcript
from tests.fake_openai import FakeOpenAI
from tests.state_maker import StateMaker

# No test reaches a real model: only the fixture below, pointed at 127.0.0.1, allows requests.
models.ALLOW_MODEL_REQUESTS = False


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests that drive a real terminal (pexpect) wait on what the screen shows, with timeouts: on
    two cores, two of them at once beside the rest of the suite starve each other. They share one
    xdist worker (`--dist loadgroup`), the other runs everything else."""
    for item in items:
        module = getattr(item, "module", None)
        if module is not None and _drives_a_terminal(module) and not item.get_closest_marker("xdist_group"):
            item.add_marker(pytest.mark.xdist_group("terminal"))


def _drives_a_terminal(module: object) -> bool:
    """pexpect imported, or a helper of tests/pty_kit.py."""
    names = vars(module).values()
    return hasattr(module, "pexpect") or any(getattr(v, "__module__", None) == "tests.pty_kit" for v in names)


@pytest.fixture(autouse=True)
def _quick_client(monkeypatch: pytest.MonkeyPatch) -> None:
    # The openai client's retries back off for seconds; tests that test retries turn them back on.
    monkeypatch.setenv("CODING_AGENT_MAX_RETRIES", "0")
    # A request that never ends fails the test, but only after 2 minutes: a loaded 2-core CI machine
    # once took over 20 s for an ordinary one. Tests of timeouts set their own.
    monkeypatch.setenv("CODING_AGENT_TIMEOUT", "120")
    for name in ("API_KEY", "DEEPSEEK_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(autouse=True)
def _terminal_size_from_the_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    # pytest-xdist's workers run with COLUMNS=80 and LINES=24, which rich prefers to the terminal's size:
    # a REPL spawned in a 140-column pseudo-terminal drew for 80 under `python -m pytest`, but for 140
    # alone (-n 0), and the banner broke where a test's pattern did not expect it.
    for name in ("COLUMNS", "LINES"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    """Every test keeps its data (sessions, archives, input history) in a temporary folder."""
    path = tmp_path / "home"
    monkeypatch.setenv("CODING_AGENT_HOME", str(path))
    # Claude Code's user folder too: the machine's own ~/.claude must not reach a test.
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude-home"))
    return path


@pytest.fixture
def workspace(tmp_path, monkeypatch):
    ws = tmp_path / "ws"
    ws.mkdir()
    monkeypatch.chdir(ws)
    return ws.resolve()


@pytest.fixture
def state(workspace) -> AppState:
    """A state with no model, for calling the tools directly."""
    return AppState(config=Config(workspace=workspace), transcript=Transcript("s1", workspace))


@pytest.fixture
def ctx(state):
    from pydantic_ai import RunContext
    from pydantic_ai.models.test import TestModel
    from pydantic_ai.usage import RunUsage

    return RunContext(deps=state, model=TestModel(), usage=RunUsage())


@pytest.fixture
def server(monkeypatch, request):
    """The strict emulator; `@pytest.mark.parametrize("server", [{"skew": Skew()}], indirect=True)`
    passes FakeOpenAI options (skewed counting, the cache's bound)."""
    monkeypatch.setattr(models, "ALLOW_MODEL_REQUESTS", True)
    with FakeOpenAI(**getattr(request, "param", {})) as fake:
        yield fake


@pytest.fixture
async def make_state(home, workspace, server):
    """An AppState talking to the local server; its `emit` is an EventLog to assert on."""
    make = StateMaker(base_url=server.base_url, api_key="test-key", workspace=workspace)
    yield make
    await make.close()


@pytest.fixture
async def offline_state(home, workspace):
    """Like `make_state`, with no server: for a model scripted in the test (tests/scripted_model.py)."""
    make = StateMaker(base_url="http://127.0.0.1:9/v1", api_key="test-key", workspace=workspace)
    yield make
    await make.close()


@pytest.fixture
def live_server():
    """The emulator for a REPL in a pseudo-terminal (tests/pty_kit.py): its own process talks to it."""
    with FakeOpenAI() as fake:
        yield fake
