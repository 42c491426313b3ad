"""Play a seeded session through the real turn path, in-process: every input goes the way the REPL's
submit sends it (main._fit_or_attach, main.on_submit, ui.commands.dispatch), against the strict
emulator over real HTTP, with skewed counting and an evicting prefix cache.

Ctrl-C is the REPL's: the input's task is cancelled, here at its n-th event. --continue is a fresh
state resumed from the session file (controller.start_state), as a new process would make it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.deepseek_template import Skew, counter
from tests.fuzz.model import ScriptedModel
from tests.fuzz.oracle import Oracle
from tests.fuzz.plan import Session, Step
from tests.workdir import workdir

MODEL = "deepseek-v4-flash"
SKEW = Skew()  # +15% system text and tool schemas, +10% CJK, -5% code


@dataclass
class Played:
    session: Session
    oracle: Oracle
    records: list[dict[str, Any]]  # the emulator's, without bodies
    interrupted: int = 0
    resumed: int = 0
    errors: list[str] = field(default_factory=list)  # error lines the user saw


class Channel:
    """The UI's side of the event channel: records what the user is shown, answers questions (yes to
    /compact undo, no to "attach it as a file?": the message is then not sent), and presses Ctrl-C at
    the n-th event of an input."""

    def __init__(self) -> None:
        self.task: asyncio.Task[Any] | None = None
        self.cancel_at: int | None = None
        self.count = 0
        self.told: list[str] = []
        self.errors: list[str] = []
        self.answer = "y"

    def arm(self, task: asyncio.Task[Any] | None, cancel_at: int | None, answer: str) -> None:
        self.task, self.cancel_at, self.count, self.told = task, cancel_at, 0, []
        self.answer = answer

    def __call__(self, event: Any) -> Any:
        from agent.events import Notice, Question

        self.count += 1
        if self.task is not None and self.count == self.cancel_at:
            self.task.cancel()
        if isinstance(event, Notice) and event.level in ("warn", "error"):
            self.told.append(event.text)
            if event.level == "error":
                self.errors.append(event.text)
        if isinstance(event, Question):
            return _answer(self.answer)
        return None


async def _answer(text: str) -> str:
    return text


def _new_state(base_url: str, ws: Path, s: Session, channel: Channel) -> Any:
    from agent.config import Config
    from controller import start_state

    config = Config(
        model=MODEL, base_url=base_url, api_key="fuzz", context_window=s.window, workspace=ws, lang=s.lang, yes=True
    )
    state = start_state(argparse.Namespace(cont=True, resume=None), config)
    state.emit = channel
    return state


async def _close(state: Any) -> None:
    from agent.compaction.background import cancel_background

    cancel_background(state)
    if state.scratch.agent is not None:
        await state.scratch.agent.model.client.close()
    state.transcript.close()


async def _submit(host: Any, text: str, channel: Channel, oracle: Oracle) -> None:
    """main.submit without its catch-all: an exception out of the turn path is a finding."""
    import main
    from ui.commands import dispatch

    try:
        if text.startswith("/"):
            await dispatch(host, text)
        else:
            sent = await main._fit_or_attach(host, text)
            if sent is None:
                oracle.not_sent()
            else:
                await main.on_submit(host.state, sent)
    finally:
        main.save_stats(host.state)


async def play(s: Session, *, skew: Skew | None = SKEW, cache_tokens: int | None = None) -> Played:
    from pydantic_ai import models

    allowed, models.ALLOW_MODEL_REQUESTS = models.ALLOW_MODEL_REQUESTS, True
    try:
        return await _play(s, skew, cache_tokens)
    finally:
        models.ALLOW_MODEL_REQUESTS = allowed


async def _play(s: Session, skew: Skew | None, cache_tokens: int | None) -> Played:
    from tests.fake_openai import FakeOpenAI

    oracle = Oracle(s.window)
    model = ScriptedModel(s.window)
    channel = Channel()
    capacity = cache_tokens if cache_tokens is not None else max(4 * s.window, 262_144)
    played = Played(s, oracle, [])
    with workdir("fuzz-") as ws, FakeOpenAI(model=MODEL, max_context=s.window, skew=skew, cache_tokens=capacity) as srv:
        srv.keep_bodies = False
        srv.observe(oracle.see)
        srv.script(*([model] * 100_000))
        for path, text in s.files.items():
            (ws / path).parent.mkdir(parents=True, exist_ok=True)
            (ws / path).write_text(text, encoding="utf-8")
        state = _new_state(srv.base_url, ws, s, channel)
        try:
            for i, step in enumerate(s.steps):
                if step.kind == "continue":
                    await _close(state)
                    state = _new_state(srv.base_url, ws, s, channel)
                    played.resumed += 1
                    continue
                state = await _play_step(i, step, state, s, channel, oracle, model, played)
        finally:
            await _close(state)
        played.records = list(srv.requests)
    played.errors = channel.errors
    counter().forget()  # the next session's texts are other texts
    return played


async def _play_step(
    i: int, step: Step, state: Any, s: Session, channel: Channel, oracle: Oracle, model: ScriptedModel, played: Played
) -> Any:
    from ui.registry import CommandHost

    command = step.text.startswith("/")
    firsts = {p: s.files[p].splitlines()[0] for p in step.mentions}
    oracle.begin(i, None if command else step.text, firsts)
    model.start(step.replies)
    task = asyncio.ensure_future(_submit(CommandHost(state), step.text, channel, oracle))
    channel.arm(task, step.cancel_at, "y" if command else "n")
    try:
        await task
    except asyncio.CancelledError:
        played.interrupted += 1
        oracle.interrupted()
    except Exception:  # noqa: BLE001 - the REPL would print it and go on; the fuzzer counts it
        oracle.crashed(f"step {i} ({step.kind}): {traceback.format_exc(limit=-3)[-600:]}")
    told = "\n".join(channel.told)
    channel.arm(None, None, "y")
    # A person reads the answer and types the next input: a background summary has had its time.
    background = state.compaction.background
    if background is not None:
        with contextlib.suppress(BaseException):
            await asyncio.wait([background.task])
    oracle.end(told)
    return state
