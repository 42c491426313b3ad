import asyncio
import time
import tracemalloc
from pathlib import Path

import pytest
from pydantic_ai import RunContext

from agent.state.app import AppState
from agent.tools import shell
from agent.tools.builtin import run_command
from agent.tools.shell import HeadTail, command_env
from tests.fake_ui import FakeUI


def test_head_tail_keeps_ends() -> None:
    out = HeadTail(head=4, tail=4)
    for chunk in [b"ab", b"cdef", b"x" * 100, b"wxyz"]:
        out.add(chunk)
    assert out.text() == "abcd\n[... 102 bytes cut ...]\nwxyz"
    assert HeadTail(4, 4).text() == ""


# --- run_command ---------------------------------------------------------------------------


def _approver(answer: str, asked: list[str]):
    async def approve(command: str) -> str:
        asked.append(command)
        return answer

    return approve


async def test_run_command_approval(ctx: RunContext[AppState], workspace: Path) -> None:
    asked: list[str] = []
    ctx.deps.emit = FakeUI(approve=_approver("n", asked))
    assert await run_command(ctx, "touch made") == "Error: the user declined to run this command"
    assert not (workspace / "made").exists()
    ctx.deps.emit = FakeUI(approve=_approver("y", asked))
    assert await run_command(ctx, "echo hi") == "hi\n[exit code: 0]"
    assert ctx.deps.always_allowed == set()
    ctx.deps.emit = FakeUI(approve=_approver("always", asked))
    assert await run_command(ctx, "echo once") == "once\n[exit code: 0]"
    ctx.deps.emit = FakeUI(approve=_approver("n", asked))
    assert await run_command(ctx, "echo once") == "once\n[exit code: 0]"  # not asked again
    assert "declined" in await run_command(ctx, "echo once && touch made")
    assert asked == ["touch made", "echo hi", "echo once", "echo once && touch made"]
    assert not (workspace / "made").exists()


async def test_run_command_yes_exit_code_and_cwd(ctx: RunContext[AppState], workspace: Path) -> None:
    ctx.deps.config.yes = True
    assert await run_command(ctx, "pwd; echo err >&2; exit 3") == f"{workspace}\nerr\n[exit code: 3]"
    assert await run_command(ctx, "true") == "(no output)\n[exit code: 0]"


async def test_run_command_env_has_no_api_keys(ctx: RunContext[AppState], monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ["API_KEY", "DEEPSEEK_API_KEY", "OPENAI_API_KEY", "MY_SERVICE_API_KEY"]:
        monkeypatch.setenv(name, "secret-value")
    monkeypatch.setenv("OTHER_SETTING", "visible")
    assert not any(k.endswith("API_KEY") for k in command_env())
    ctx.deps.config.yes = True
    out = await run_command(ctx, "env")
    assert "secret-value" not in out and "OTHER_SETTING=visible" in out


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"  # a zombie is dead, just not reaped


async def _wait_dead(pid: int) -> bool:
    for _ in range(50):
        if not _alive(pid):
            return True
        await asyncio.sleep(0.05)
    return False


async def test_run_command_timeout_kills_group(
    ctx: RunContext[AppState], workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shell, "KILL_GRACE", 0.3)
    ctx.deps.config.yes = True
    # The child ignores SIGTERM: only the SIGKILL after the grace period ends it.
    command = "echo started; (trap '' TERM; sleep 30) & echo $! > child.pid; wait"
    start = time.monotonic()
    out = await run_command(ctx, command, timeout=1)
    assert time.monotonic() - start < 5
    assert out == "started\n[killed: timed out after 1 seconds]"
    assert await _wait_dead(int((workspace / "child.pid").read_text()))


async def test_run_command_cancel_kills_group(
    ctx: RunContext[AppState], workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shell, "KILL_GRACE", 0.3)
    ctx.deps.config.yes = True
    task = asyncio.create_task(run_command(ctx, "sleep 30 & echo $! > child.pid; wait"))
    while not (workspace / "child.pid").exists() or not (workspace / "child.pid").read_text():
        await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await _wait_dead(int((workspace / "child.pid").read_text()))


async def test_run_command_background_child_does_not_block(ctx: RunContext[AppState]) -> None:
    ctx.deps.config.yes = True
    start = time.monotonic()
    out = await run_command(ctx, "sleep 30 & echo quick")
    assert out == "quick\n[exit code: 0]"
    assert time.monotonic() - start < 10


async def test_run_command_big_output_bounded(ctx: RunContext[AppState]) -> None:
    ctx.deps.config.yes = True
    tracemalloc.start()
    try:
        out = await run_command(ctx, "yes | head -c 50000000; echo; echo tail-marker")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 5_000_000
    assert len(out) < shell.COMMAND_HEAD + shell.COMMAND_TAIL + 200
    assert "bytes cut ...]" in out
    assert out.endswith("tail-marker\n[exit code: 0]")
