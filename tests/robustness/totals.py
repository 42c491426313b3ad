"""Run the robustness scenarios and print the totals the README quotes:

    python -m tests.robustness.totals [--seeds N]

Fault points: SIGKILL at every named step of a compaction and at seeded random moments of
ordinary turns, each followed by a restart with --continue; a session is intact when it loads,
is the pre- or the post-compaction version, lost no line and its next request is accepted.
Bad inputs: corrupt session lines and files, random bytes, misbehaving endpoints, hostile paths
and bad command-line values. Attacks: issue 11's, played as a hostile model would (attacks.py).
A crash is a traceback or any exception the agent did not handle.
The last line reads: robustness: N fault points, N intact, N bad inputs, 0 crashes
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from tests.robustness import harness


@dataclass
class Tally:
    name: str
    tried: int = 0
    ok: int = 0
    crashes: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    ok_word: str = "ok"

    def check(self, label: str, run: Callable[[], list[str] | None]) -> None:
        """`run` returns what went wrong (empty: fine); an exception out of it is a crash."""
        self.tried += 1
        try:
            problems = run() or []
        except Exception:  # noqa: BLE001 - counting crashes is the point
            self.crashes.append(f"{label}: {traceback.format_exc(limit=3)}")
            return
        self._judge(label, problems)

    async def acheck(self, label: str, run: Callable[[], Awaitable[list[str]]]) -> None:
        self.tried += 1
        try:
            problems = await run()
        except Exception:  # noqa: BLE001 - counting crashes is the point
            self.crashes.append(f"{label}: {traceback.format_exc(limit=3)}")
            return
        self._judge(label, problems)

    def _judge(self, label: str, problems: list[str]) -> None:
        if problems:
            self.failures.append(f"{label}: {problems[:2]}")
        else:
            self.ok += 1


def _dirs(base: Path, name: str) -> tuple[Path, Path]:
    root = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=base))
    workspace = root / "ws"
    workspace.mkdir()
    return root / "home", workspace.resolve()


# --- fault points --------------------------------------------------------------------------


def fault_points(base: Path, seeds: int) -> Tally:
    tally = Tally("fault points")
    outcomes: list[harness.KillOutcome] = []

    def kill(run: Callable[[], harness.KillOutcome]) -> Callable[[], list[str]]:
        def go() -> list[str]:
            outcome = run()
            outcomes.append(outcome)
            tally.crashes.extend(outcome.crashes)
            return outcome.problems

        return go

    for point in harness.COMPACTION_POINTS:
        folder = Path(tempfile.mkdtemp(prefix=point, dir=base))
        tally.check(f"compaction:{point}", kill(lambda p=point, f=folder: harness.compaction_kill(p, f)))
    kinds = ["stream", "tool"]
    for seed in range(seeds):
        for kind in kinds:
            folder = Path(tempfile.mkdtemp(prefix=kind, dir=base))
            tally.check(f"{kind}:{seed}", kill(lambda k=kind, s=seed, f=folder: harness.turn_kill(k, 100 + s, f)))
    folder = Path(tempfile.mkdtemp(prefix="append", dir=base))
    tally.check("append", kill(lambda f=folder: harness.turn_kill("append", 0, f)))
    return tally


# --- bad inputs ----------------------------------------------------------------------------


def corrupt_sessions(base: Path) -> Tally:
    """Each bad line in the middle of a good file, a torn last line, an empty file, random bytes."""
    import session
    from agent.turn.repair import repair_history

    tally = Tally("corrupt session files")
    good = session.dump_messages(harness.long_history(turns=3, words=20)).encode()
    lines = harness.lines_of(good)

    def load(data: bytes, keep: int) -> list[str]:
        loaded = session.parse_lines(data)
        messages, _ = repair_history(loaded.messages)
        problems = harness.history_problems(messages)
        if len(loaded.messages) < keep:
            problems.append(f"kept {len(loaded.messages)} of {keep} good messages")
        return problems

    for kind, bad in harness.bad_lines(lines[0]).items():
        data = b"\n".join(lines[:2] + [bad] + lines[2:]) + b"\n"
        tally.check(f"line:{kind}", lambda d=data: load(d, len(lines)))
    torn = b"".join(line + b"\n" for line in lines[:-1]) + lines[-1][:40]
    tally.check("torn-last-line", lambda: load(torn, len(lines) - 1))
    tally.check("empty-file", lambda: load(b"", 0))
    rng = random.Random(5)
    for i in range(300):
        blob = rng.randbytes(rng.randint(0, 2048))
        if i % 3 == 0:  # garbage among good lines, cut anywhere
            mixed = b"\n".join(rng.sample(lines, rng.randint(0, len(lines))) + [blob])
            blob = mixed[: rng.randint(0, len(mixed))]
        tally.check(f"random-bytes:{i}", lambda b=blob: load(b, 0))
    home, workspace = _dirs(base, "unreadable")
    session_id = harness.prepare_session(home, workspace, [])
    path = harness.session_path(home, workspace, session_id)
    path.unlink()
    path.mkdir()  # a folder in the file's place

    def unreadable() -> list[str]:
        with harness.data_home(home):
            loaded = session.load(session_id, workspace)
        return [] if loaded.skipped and not loaded.messages else ["an unreadable file was not reported"]

    tally.check("unreadable-file", unreadable)
    return tally


def endpoint_faults(base: Path) -> Tally:
    """Every misbehaviour of test_endpoint_faults, run against the local server."""
    from pydantic_ai import models

    import session
    from agent.config import Config
    from agent.events import EventLog, Notice
    from agent.state.app import AppState
    from agent.state.transcript import Transcript
    from main import on_submit
    from tests.fake_openai import FakeOpenAI
    from tests.robustness.test_endpoint_faults import FAULTS, RECOVERED

    models.ALLOW_MODEL_REQUESTS = True
    tally = Tally("endpoint faults")
    os.environ["CODING_AGENT_MAX_RETRIES"] = "2"
    os.environ["CODING_AGENT_TIMEOUT"] = "20"

    async def scenario(replies: list, expect_error: bool, base_url: str | None = None) -> list[str]:
        home, workspace = _dirs(base, "endpoint")
        with harness.data_home(home), FakeOpenAI() as server:
            config = Config(base_url=base_url or server.base_url, api_key="k", workspace=workspace, lang="en", yes=True)
            state = AppState(config=config, transcript=Transcript(session.new_session_id(), workspace))
            state.emit = log = EventLog()
            server.script(*replies)
            await on_submit(state, "read notes.txt")
            errors = [n.text for n in log.of(Notice) if n.level == "error"]
            problems = harness.history_problems(state.history)
            if expect_error != bool(errors) or len(errors) > 1:
                problems.append(f"error lines: {errors}")
            loaded = session.load(state.session_id, workspace)
            if session.dump_messages(loaded.messages) != session.dump_messages(state.history) or loaded.skipped:
                problems.append("the session file differs from the history")
            server.clear_script()
            await on_submit(state, "next")
            if base_url is None and server.requests:
                problems += harness.request_problems(server.last_request["body"])
            return problems

    async def run_all() -> None:
        # One event loop for all: the openai client's connections close on the loop that opened them.
        for name, (replies, _phrase, _n) in FAULTS.items():
            await tally.acheck(f"fault:{name}", lambda r=replies: scenario(r, True))
        for name, (replies, _phrase) in RECOVERED.items():
            await tally.acheck(f"recovered:{name}", lambda r=replies: scenario(r, False))
        await tally.acheck("connection-refused", lambda: scenario([], True, "http://127.0.0.1:9/v1"))

    asyncio.run(run_all())
    return tally


def hostile_paths(base: Path) -> Tally:
    """Paths out of the workspace, through every file tool and @-mention."""
    from pydantic_ai import RunContext, ToolReturn
    from pydantic_ai.models.test import TestModel
    from pydantic_ai.usage import RunUsage

    from agent.config import Config
    from agent.state.app import AppState
    from agent.state.transcript import Transcript
    from agent.tools.builtin import edit_file, grep, read_file, write_file
    from agent.tools.mentions import build_mention_messages

    tally = Tally("hostile paths")
    home, workspace = _dirs(base, "paths")
    outside = workspace.parent / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("SECRET\n")
    os.symlink(outside / "secret.txt", workspace / "link_out.txt")
    os.symlink(outside, workspace / "dir_out")
    paths = [
        "../outside/secret.txt",
        "sub/../../outside/secret.txt",
        str(outside / "secret.txt"),
        "/etc/passwd",
        "link_out.txt",
        "dir_out/secret.txt",
        "a\0b",
        "~/../../etc/passwd",
        str(home / "x.jsonl"),
    ]
    state = AppState(config=Config(workspace=workspace, yes=True), transcript=Transcript("s1", workspace))
    ctx = RunContext(deps=state, model=TestModel(), usage=RunUsage())

    def text(answer: object) -> str:
        return str(answer.return_value if isinstance(answer, ToolReturn) else answer)

    def refused(path: str) -> list[str]:
        with harness.data_home(home):
            answers = [
                read_file(ctx, path),
                asyncio.run(grep(ctx, ".", path)),
                text(asyncio.run(write_file(ctx, path, "x"))),
                text(asyncio.run(edit_file(ctx, path, "SECRET", "x"))),
            ]
            _, notices = build_mention_messages([path], state)
        leaks = [a for a in answers if "SECRET" in a or not (a.startswith("Error:") or a == "No matches")]
        return leaks + ([] if notices else ["the @-mention was not refused"])

    for path in paths:
        tally.check(f"path:{path!r}", lambda p=path: refused(p))
    if (outside / "secret.txt").read_text() != "SECRET\n" or len(list(outside.iterdir())) != 1:
        tally.failures.append("a file outside the workspace changed")
    return tally


def bad_arguments(base: Path) -> Tally:
    tally = Tally("bad command-line values")
    home, workspace = _dirs(base, "args")

    def refused(args: list[str]) -> list[str]:
        done = subprocess.run(
            [sys.executable, str(harness.MAIN), "--base-url", "http://127.0.0.1:9/v1", *args, "-p", "hi"],
            cwd=workspace,
            env=harness.agent_env(home),
            capture_output=True,
            text=True,
            timeout=60,
        )
        if crash := harness.crash_text(done.stderr):
            raise RuntimeError(crash)
        # One line (argparse puts its usage above its own).
        last = (done.stderr.strip().splitlines() or [""])[-1]
        return [] if done.returncode != 0 and (args[0] in last or "No session" in last) else [done.stderr]

    for args in (
        ["--compact-at", "garbage"],
        ["--compact-at", "-5"],
        ["--context-window", "-100"],
        ["--context-window", "lots"],
        ["--resume", "../../../etc/passwd"],
        ["--resume", "no-such-session"],
    ):
        tally.check(" ".join(args), lambda a=args: refused(a))
    return tally


def attacks(base: Path) -> Tally:
    """The attacks of issue 11 (tests/robustness/attacks.py): held when nothing got through."""
    from tests.robustness.attacks import SCENARIOS

    tally = Tally("attacks (issue 11)", ok_word="held")
    home = Path(tempfile.mkdtemp(prefix="attacks-home-", dir=base))
    with harness.data_home(home):
        for name, run in SCENARIOS.items():
            tally.check(name, lambda r=run: r(base))
    return tally


def round_two(base: Path) -> Tally:
    """The attacks of issue 19 (tests/robustness/attacks_19.py): held when nothing got through."""
    from tests.robustness.attacks import ROUND_TWO

    tally = Tally("attacks (issue 19)", ok_word="held")
    home = Path(tempfile.mkdtemp(prefix="attacks19-home-", dir=base))
    with harness.data_home(home):
        for name, run in ROUND_TWO.items():
            tally.check(name, lambda r=run: r(base))
    return tally


def later_rounds(base: Path) -> list[Tally]:
    """Each later review's attacks (attack_kit.attack_round), a row each: held when nothing got through."""
    from tests.robustness.attacks import ROUNDS

    tallies = []
    for name, scenarios in ROUNDS.items():
        tally = Tally(f"attacks ({name})", ok_word="held")
        home = Path(tempfile.mkdtemp(prefix="attacks-round-", dir=base))
        with harness.data_home(home):
            for label, run in scenarios.items():
                tally.check(label, lambda r=run: r(base))
        tallies.append(tally)
    return tallies


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3, help="random kill moments per kind of turn (default 3)")
    args = parser.parse_args(argv)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="robustness-") as tmp:
        base = Path(tmp)
        faults = fault_points(base, args.seeds)
        inputs = [corrupt_sessions(base), endpoint_faults(base), hostile_paths(base), bad_arguments(base)]
        held = [attacks(base), round_two(base), *later_rounds(base)]
    for tally in [faults, *inputs, *held]:
        print(f"  {tally.name:<26} {tally.tried:>4} tried  {tally.ok:>4} {tally.ok_word}  {len(tally.crashes)} crashes")
        for line in tally.failures + tally.crashes:
            print(f"    ! {line}")
    crashes = sum(len(t.crashes) for t in [faults, *inputs, *held])
    bad = sum(t.tried for t in inputs)
    handled = all(not t.failures for t in [*inputs, *held])
    print(f"  ({time.monotonic() - started:.0f} s)")
    print(f"robustness: {faults.tried} fault points, {faults.ok} intact, {bad} bad inputs, {crashes} crashes")
    return 0 if crashes == 0 and faults.ok == faults.tried and handled else 1


if __name__ == "__main__":
    sys.exit(main())
