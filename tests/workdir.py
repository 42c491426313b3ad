"""A temporary data folder and workspace for code that runs outside pytest's fixtures: the bench
scripts (bench/common.py) and the fuzzer (tests/fuzz/player.py)."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def workdir(prefix: str = "bench-") -> Iterator[Path]:
    """A temp folder with home/ (CODING_AGENT_HOME) and ws/ (the workspace, made the cwd); both are
    put back and the folder removed on the way out."""
    root = Path(tempfile.mkdtemp(prefix=f"coding-agent-{prefix}"))
    (root / "home").mkdir()
    ws = root / "ws"
    ws.mkdir()
    old_cwd, old_home = os.getcwd(), os.environ.get("CODING_AGENT_HOME")
    os.environ["CODING_AGENT_HOME"] = str(root / "home")
    os.chdir(ws)
    try:
        yield ws.resolve()
    finally:
        os.chdir(old_cwd)
        if old_home is None:
            os.environ.pop("CODING_AGENT_HOME", None)
        else:
            os.environ["CODING_AGENT_HOME"] = old_home
        shutil.rmtree(root, ignore_errors=True)
