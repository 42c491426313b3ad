"""What the attack scenarios (attacks.py, attacks_git.py, attacks_19.py) share: the registry, folders, a user at
the approval question, and tool calls from sync code."""

from __future__ import annotations

import asyncio
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from pydantic_ai import RunContext, ToolReturn
from pydantic_ai.models.test import TestModel
from pydantic_ai.usage import RunUsage

from agent.config import Config
from agent.state.app import AppState
from agent.state.transcript import Transcript
from tests.fake_ui import FakeUI

Scenario = Callable[[Path], list[str]]
SCENARIOS: dict[str, Scenario] = {}
ROUND_TWO: dict[str, Scenario] = {}  # issue 19's (attacks_19.py)
GIT_ENV = {
    "PATH": os.environ.get("PATH", ""),
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "HOME": "/nonexistent",
}


def scenario(fn: Scenario) -> Scenario:
    SCENARIOS[fn.__name__] = fn
    return fn


def scenario_19(fn: Scenario) -> Scenario:
    ROUND_TWO[fn.__name__] = fn
    return fn


# Later reviews, each a row of its own in totals.py: the round's name -> its scenarios.
ROUNDS: dict[str, dict[str, Scenario]] = {}


def attack_round(name: str) -> Callable[[Scenario], Scenario]:
    """Registers a scenario under a review round: `@attack_round("cloned repository")`."""

    def register(fn: Scenario) -> Scenario:
        ROUNDS.setdefault(name, {})[fn.__name__] = fn
        return fn

    return register


def _dirs(base: Path) -> tuple[Path, Path]:
    root = Path(tempfile.mkdtemp(dir=base))
    (root / "ws").mkdir()
    return root / "home", (root / "ws").resolve()


class Approver:
    """The user at the approval question: answers `answer`, remembers what was asked."""

    def __init__(self, answer: str) -> None:
        self.answer = answer
        self.asked: list[tuple[str, str | None]] = []

    async def __call__(self, command: str, why: str | None = None) -> str:
        self.asked.append((command, why))
        return self.answer


def _ctx(workspace: Path, answer: str = "n") -> tuple[RunContext[AppState], Approver]:
    state = AppState(config=Config(workspace=workspace, yes=False, lang="en"), transcript=Transcript("s1", workspace))
    approver = Approver(answer)
    state.emit = FakeUI(approve=approver)
    return RunContext(deps=state, model=TestModel(), usage=RunUsage()), approver


def _text(answer: object) -> str:
    return str(answer.return_value if isinstance(answer, ToolReturn) else answer)


def _run(call):  # noqa: ANN001, ANN202 - a tool call from sync code (grep was sync before issue 11)
    return asyncio.run(call) if asyncio.iscoroutine(call) else call


def _search_everything(ctx: RunContext[AppState]) -> None:
    from agent.tools.builtin import grep, list_files

    list_files(ctx)
    _run(grep(ctx, "x"))
    _run(grep(ctx, "x", "."))
