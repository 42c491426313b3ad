"""Shared by the bench scripts: environment, the local server, states, timing, the report format.

Every script prints one or more tables and ends with its figures, one a line, after a line
"figures:":   name: value unit (target ...: PASS|MISS)   or   name: value unit (no target)
bench/run.py reads those lines back.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from datetime import date
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

os.environ.setdefault("PYDANTIC_AI_NO_BANNER", "1")
os.environ["CODING_AGENT_MAX_RETRIES"] = "0"
os.environ.setdefault("CODING_AGENT_TIMEOUT", "600")
for _name in ("API_KEY", "DEEPSEEK_API_KEY", "OPENAI_API_KEY"):
    os.environ.pop(_name, None)

MODEL = "deepseek-flash"
WINDOW = 1_000_000
ON_EMULATOR = (
    "(measured on the emulator, tests/fake_openai.py: our DeepSeek-style template, DeepSeek's tokenizer, "
    "a 64-token prefix cache, not DeepSeek's API; `python -m pytest -m live -s` measures the real thing)"
)


def parse_args(doc: str | None, extra: Callable[[argparse.ArgumentParser], None] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=(doc or "").strip().splitlines()[0] if doc else None)
    p.add_argument("--quick", action="store_true", help="a small version (CI): smaller sessions, fewer repeats")
    if extra:
        extra(p)
    return p.parse_args()


def main(run: Callable[[bool], Any], doc: str | None) -> None:
    """Run a benchmark script's `async run(quick)` with its command-line arguments."""
    import asyncio

    asyncio.run(run(parse_args(doc).quick))


def sizes(quick: bool) -> list[int]:
    """Session sizes in messages; the last is the "large" one (about 920k tokens in a full run: 8,000
    messages, since tool calls cost their DSML markup, fill what 10,000 did before that was counted)."""
    return [100, 1_000, 2_000] if quick else [100, 1_000, 8_000]


def large(quick: bool) -> int:
    return sizes(quick)[-1]


# ---- the report --------------------------------------------------------------------------------


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        if value == 0:
            return "0"
        if abs(value) >= 100:
            return f"{value:,.0f}"
        if abs(value) >= 1:
            return f"{value:.2f}"
        return f"{value:.3g}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


class Report:
    def __init__(self, title: str, on_emulator: bool = True) -> None:
        self.title = title
        self.figures: list[str] = []
        print(f"== {title} ==", flush=True)
        if on_emulator:
            print(ON_EMULATOR, flush=True)

    def note(self, text: str) -> None:
        print(text, flush=True)

    def table(self, headers: list[str], rows: list[list[Any]], title: str | None = None) -> None:
        cells = [[str(h) for h in headers]] + [[_fmt(c) for c in row] for row in rows]
        widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
        if title:
            print(f"\n{title}")
        else:
            print()
        line = "  ".join("-" * w for w in widths)
        for n, row in enumerate(cells):
            cols = enumerate(zip(row, widths, strict=True))
            print("  ".join(c.rjust(w) if n and i else c.ljust(w) for i, (c, w) in cols))
            if n == 0:
                print(line)
        sys.stdout.flush()

    def figure(self, name: str, value: Any, unit: str, target: str | None = None, ok: bool | None = None) -> None:
        """`target` like "<= 10 ms"; `ok` None means the row has no pass/miss verdict."""
        text = f"{name}: {_fmt(value)} {unit}".rstrip()
        if target is None:
            text += " (no target)"
        elif ok is None:
            text += f" (target {target})"
        else:
            text += f" (target {target}: {'PASS' if ok else 'MISS'})"
        self.figures.append(text)

    def finish(self) -> None:
        print("\nfigures:")
        for line in self.figures:
            print(line)
        sys.stdout.flush()


# ---- timing ------------------------------------------------------------------------------------


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def timed(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """Median seconds of `repeat` calls, and the last result."""
    times, result = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return median(times), result


# ---- places ------------------------------------------------------------------------------------


# The owner is tests/workdir.py (the fuzzer uses it too); bench scripts call it as common.workdir.
from tests.workdir import workdir  # noqa: E402, F401

# ---- the local server --------------------------------------------------------------------------

_patched = False


def _time_handler() -> None:
    """Record how long the server spends on each request (its "model" time), per server."""
    global _patched
    if _patched:
        return
    from tests import fake_openai

    original = fake_openai._Handler.do_POST

    def do_post(self: Any) -> None:
        t0 = time.perf_counter()
        try:
            original(self)
        finally:
            times = getattr(self.fake, "handler_times", None)
            if times is not None:
                times.append(time.perf_counter() - t0)

    fake_openai._Handler.do_POST = do_post
    _patched = True


@contextlib.contextmanager
def server(latency: float = 0.0) -> Iterator[Any]:
    """The local OpenAI-compatible server (tests.fake_openai) in this process, on a thread."""
    from pydantic_ai import models

    from tests.fake_openai import FakeOpenAI

    models.ALLOW_MODEL_REQUESTS = True
    _time_handler()
    fake = FakeOpenAI(latency=latency, model=MODEL)
    fake.handler_times = []
    with fake:
        yield fake


# ---- states and sessions -----------------------------------------------------------------------


def make_state(
    base_url: str, workspace: Path, window: int = WINDOW, *, model: str = MODEL, lang: str = "en", **config: Any
) -> Any:
    import session
    from agent.config import Config
    from agent.events import EventLog
    from agent.state.app import AppState
    from agent.state.transcript import Transcript

    cfg = Config(
        model=model,
        base_url=base_url,
        api_key="bench",
        context_window=window,
        workspace=workspace,
        lang=lang,
        yes=True,
        **config,
    )
    state = AppState(config=cfg, transcript=Transcript(session.new_session_id(), workspace))
    state.emit = EventLog()
    return state


def agent_prefix(state: Any) -> tuple[str, int]:
    """The agent's instructions and its fixed prefix tokens (system prompt + tool definitions)."""
    from agent.compaction.watermark import fixed_prefix_tokens

    fixed = fixed_prefix_tokens(state)  # renders the instructions into state.scratch.instructions
    return state.scratch.instructions, fixed


def synth_session(state: Any, n_messages: int, seed: int = 1) -> Any:
    """A synthetic session whose usage figures match this state's agent."""
    from bench import synth

    instructions, fixed = agent_prefix(state)
    return synth.generate(n_messages, seed, instructions=instructions, fixed_prefix=fixed)


def install_session(state: Any, s: Any, *, reload: bool = True, files: int = 5) -> None:
    """Write the session file, make it the state's history (reloaded from disk, as a resume does:
    fresh objects, cold token caches) and put the `files` newest-read project files on disk,
    recorded as read (what a compaction restores)."""
    import session
    from agent.state.transcript import Transcript
    from bench import synth

    session.rewrite_messages(state.session_id, s.messages, state.workspace)
    messages = session.load(state.session_id, state.workspace).messages if reload else list(s.messages)
    state.transcript = Transcript(state.session_id, state.workspace, messages)
    recent = s.reads[-files:] if files else []
    synth.write_project(s, state.workspace, recent)
    for path in recent:
        state.read_file_state.record(state.workspace / path)


def prices() -> Any:
    """The prices of MODEL a figure is priced at (agent.provider.prices.for_reports: off-peak)."""
    from agent.provider import prices as source

    found = source.for_reports(MODEL)
    assert found is not None, f"no prices for {MODEL}"
    return found


def cost(hit: int, miss: int, out: int) -> float:
    from agent.provider.prices import money

    return money(hit, miss, out, prices())


def prices_text() -> str:
    p = prices()
    return (
        f"{MODEL} off-peak prices of {date.today()} (genai-prices): ${p.hit:g} hit / ${p.miss:g} miss / "
        f"${p.output:g} output per M tokens"
    )


def summary_text(seed: int = 7, sections: int = 8, words: int = 2_400) -> str:
    """A realistic model summary (~4k tokens), the same for every method compared."""
    import random

    from bench.synth import EN_CLAUSES, ZH_CLAUSES

    rng = random.Random(seed)
    body = []
    for i in range(1, sections + 1):
        sentences = [rng.choice(EN_CLAUSES) + "." for _ in range(words // sections // 9)]
        sentences += [rng.choice(ZH_CLAUSES) + "。" for _ in range(4)]
        body.append(f"{i}. Section {i}: " + " ".join(sentences))
    return (
        "<analysis>Walked through the conversation in order.</analysis>\n<summary>\n"
        + "\n\n".join(body)
        + "\n</summary>"
    )


def rss_mb() -> tuple[float, float]:
    """(current RSS, peak RSS) of this process in MB, from /proc/self/status."""
    cur = peak = 0.0
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                cur = int(line.split()[1]) / 1024
            elif line.startswith("VmHWM:"):
                peak = int(line.split()[1]) / 1024
    return cur, peak


def tokens_of(text: str) -> int:
    from agent.tokens import count as tokens

    return tokens.count_text(text)
