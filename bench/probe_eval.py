"""Summary quality after compaction, by probes (Factory's method, "Evaluating Context Compression for
AI Agents", 2025): each recorded session (bench/probe_sessions/) is compressed by each strategy
(bench/probe_strategies.py: ours, cheap, seed, none), then asked its recall, artifact, continuation
and decision probes; a judge model scores each answer on six dimensions from 0 to 5 with a rubric
(bench/probe_judge.py), and a probe with one right answer is also checked exactly.

  python bench/probe_eval.py --base-url URL --model M [--judge-model J]   a real model (key: API_KEY,
                                                     DEEPSEEK_API_KEY or OPENAI_API_KEY)
  python bench/probe_eval.py [--quick]               the emulator (tests/fake_probe.py): mechanical
                                                     stand-ins, which check the harness, not a model
  python bench/probe_eval.py [--quick] --llama       a llama-server started here (tests/local_model/lane.py);
                                                     --quick: one session, strategy ours

Options: --sessions NAME..., --strategies NAME..., --window N (default: the smallest of 8k, 16k, ...
that holds the session), --concurrency N (requests at once, default 4).
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path[0] = str(Path(__file__).resolve().parent.parent)
# Read before bench.common, which clears the key variables for the emulator's sake.
KEY = next((os.environ[n] for n in ("API_KEY", "DEEPSEEK_API_KEY", "OPENAI_API_KEY") if os.environ.get(n)), None)

from bench import common  # noqa: E402
from bench.probe_judge import DIMENSIONS, Grade, grade  # noqa: E402
from bench.probe_load import KINDS, Probe, Session, all_sessions  # noqa: E402
from bench.probe_strategies import STRATEGIES, Compressed, ask, compress, prepare  # noqa: E402

WINDOWS = (8192, 16_384, 32_768, 65_536, 131_072)
QUICK_SESSIONS = ["en-retry-backoff", "en-lru-leak", "zh-login-lockout", "zh-pagination"]
# The llama.cpp lane: one session a language, short answers: a 135M model on two CPU cores reads
# about a thousand tokens a second at best, and every probe sends the whole compressed session.
LLAMA_SESSIONS, LLAMA_ANSWER = ["en-lru-leak", "zh-pagination"], 200
# --quick --llama (CI) checks the path end to end, not scores: one session, our strategy only, so that
# it ends well within CI's time on two cores.
LLAMA_QUICK = (["en-lru-leak"], ["ours"])
LOSSY_KEEP = 0.2  # the emulated summarizer's knob for the row that shows the harness can fail


@dataclass
class Row:
    session: str
    strategy: str
    probe: Probe
    answer: str
    grade: Grade
    compressed: Compressed


def window_for(session: Session, state_of: Any) -> int:
    """The smallest standard window whose largest request holds the session."""
    from agent import compaction

    for window in WINDOWS:
        figs = compaction.figures(state_of(window))
        if figs.count(session.messages) <= figs.request_limit:
            return window
    return WINDOWS[-1]


def judge_agent(base_url: str, model: str, api_key: str | None, max_tokens: int | None = None) -> Any:
    from pydantic_ai import Agent

    from agent.config import Config
    from agent.provider.model import build_model, model_settings

    config = Config(model=model, base_url=base_url, api_key=api_key)
    settings = {**model_settings(config), **({"max_tokens": max_tokens} if max_tokens else {})}
    return Agent(build_model(config), model_settings=settings)  # type: ignore[arg-type]


async def one(
    base_url: str,
    model: str,
    judge: Any,
    session: Session,
    strategy: str,
    window: int,
    limit: asyncio.Semaphore,
    max_tokens: int | None,
) -> list[Row]:
    with common.workdir("probe-") as ws:
        state = prepare(base_url, model, KEY, session, ws, window)
        compressed = await compress(strategy, state)

        async def answer(p: Probe) -> str:
            async with limit:
                try:
                    return await ask(state, compressed.history, p.question, max_tokens)
                except Exception as exc:  # a refused request is a failed answer, not a crashed run
                    return f"(no answer: {type(exc).__name__})"

        async def judged(p: Probe, said: str) -> Row:
            async with limit:
                try:
                    graded = await grade(judge, p, said)
                except Exception as exc:
                    graded = Grade(None, None, f"judge failed: {type(exc).__name__}")
            return Row(session.name, strategy, p, said, graded, compressed)

        try:
            # Every answer, then every grade: the answers share the session's prefix, the grades the
            # rubric's, so a server's prompt cache serves each run of them (one slot on llama.cpp).
            said = await asyncio.gather(*(answer(p) for p in session.probes))
            return list(await asyncio.gather(*(judged(p, a) for p, a in zip(session.probes, said, strict=True))))
        finally:
            if state.scratch.agent is not None:
                await state.scratch.agent.model.client.close()


async def evaluate(
    base_url: str,
    model: str,
    judge_model: str,
    sessions: list[Session],
    strategies: list[str],
    *,
    window: int = 0,
    concurrency: int = 4,
    label: str = "",
    max_tokens: int | None = None,
) -> list[Row]:
    """Every session under every strategy; `label` names the rows (default: the strategy); `max_tokens`
    caps the answers and the judge's replies (a small local model may otherwise write to its limit)."""
    judge, limit, rows = judge_agent(base_url, judge_model, KEY, max_tokens), asyncio.Semaphore(concurrency), []
    try:
        for s in sessions:
            with common.workdir("probe-size-") as ws:
                size = window or window_for(s, lambda w: common.make_state(base_url, ws, w, model=model))
            for strategy in strategies:
                for row in await one(base_url, model, judge, s, strategy, size, limit, max_tokens):
                    row.strategy = label or strategy
                    rows.append(row)
    finally:
        await judge.model.client.close()
    return rows


def mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else float("nan")


def overall(rows: list[Row]) -> float:
    return mean([r.grade.overall for r in rows if r.grade.overall is not None])


def summary(report: common.Report, rows: list[Row]) -> None:
    names = list(dict.fromkeys(r.strategy for r in rows))
    table = []
    for name in names:
        mine = [r for r in rows if r.strategy == name]
        scored = [r.grade.scores for r in mine if r.grade.scores]
        exact = [r.grade.exact for r in mine if r.grade.exact is not None]
        seen = {(r.session, id(r.compressed)): r.compressed for r in mine}.values()
        ratio = mean([c.after / c.before for c in seen if c.before])
        failed = sum(1 for c in seen if c.error)
        table.append(
            [
                name,
                overall(mine),
                *(mean([s[d] for s in scored]) for d in DIMENSIONS),
                f"{sum(exact)}/{len(exact)}",
                f"{ratio:.2f}",
                len(mine) - len(scored),
                failed,
            ]
        )
        report.figure(f"probe_overall_{name}", overall(mine), "/5")
        report.figure(f"probe_exact_{name}", 100 * sum(exact) / len(exact) if exact else 0.0, "%")
    short = ["overall", "accur.", "aware", "artif.", "compl.", "contin.", "instr."]
    report.table(
        ["strategy", *short, "exact", "tokens after/before", "unscored", "compaction failed"],
        table,
        "Scores by strategy (0-5, mean over probes):",
    )
    report.table(
        ["strategy", *KINDS],
        [[n, *(overall([r for r in rows if r.strategy == n and r.probe.kind == k]) for k in KINDS)] for n in names],
        "Overall by probe kind:",
    )
    sessions = list(dict.fromkeys(r.session for r in rows))
    report.table(
        ["session", *names],
        [[s, *(overall([r for r in rows if r.session == s and r.strategy == n]) for n in names)] for s in sessions],
        "Overall by session:",
    )
    errors = {(r.session, r.strategy): r.compressed.error for r in rows if r.compressed.error}
    for (s, n), error in errors.items():
        report.note(f"compaction failed ({n}, {s}): {error}")


async def on_emulator(sessions: list[Session], strategies: list[str], window: int, concurrency: int) -> list[Row]:
    from pydantic_ai import models

    from tests.fake_probe import ProbeEmulator

    models.ALLOW_MODEL_REQUESTS = True
    with ProbeEmulator(keep=1.0, model=common.MODEL) as server:
        rows = await evaluate(
            server.base_url, common.MODEL, common.MODEL, sessions, strategies, window=window, concurrency=concurrency
        )
        if "ours" in strategies:
            server.keep = LOSSY_KEEP
            rows += await evaluate(
                server.base_url,
                common.MODEL,
                common.MODEL,
                sessions,
                ["ours"],
                window=window,
                concurrency=concurrency,
                label=f"ours-keep{LOSSY_KEEP * 100:.0f}",
            )
    return rows


async def on_llama(sessions: list[Session], strategies: list[str], report: common.Report) -> list[Row] | None:
    from pydantic_ai import models

    from tests.local_model.lane import MODEL, LlamaServer, missing

    if reason := missing():
        report.note(f"skipped: {reason}")
        return None
    models.ALLOW_MODEL_REQUESTS = True
    window = 8192
    server = LlamaServer(window, True, Path(tempfile.mkdtemp(prefix="llama-probe-")) / "llama.log")
    try:
        server.wait_ready()
        return await evaluate(
            server.base_url, MODEL, MODEL, sessions, strategies, window=window, concurrency=1, max_tokens=LLAMA_ANSWER
        )
    finally:
        server.stop()


def options(p: Any) -> None:
    p.add_argument("--base-url", help="an OpenAI-compatible endpoint; without it, the emulator")
    p.add_argument("--model", help="the model that summarizes and answers")
    p.add_argument("--judge-model", help="the model that grades (default: --model)")
    p.add_argument("--llama", action="store_true", help="a llama-server started here (the llama.cpp lane)")
    p.add_argument("--sessions", nargs="*", help="session names (bench/probe_sessions/NAME.toml)")
    p.add_argument("--strategies", nargs="*", choices=STRATEGIES, help="default: all of them")
    p.add_argument("--window", type=int, default=0, help="the context window (default: per session)")
    p.add_argument("--concurrency", type=int, default=4)


async def main() -> None:
    args = common.parse_args(__doc__, options)
    names = args.sessions or (LLAMA_SESSIONS if args.llama else QUICK_SESSIONS if args.quick else None)
    strategies = args.strategies or list(STRATEGIES)
    if args.llama and args.quick:
        names, strategies = args.sessions or LLAMA_QUICK[0], args.strategies or LLAMA_QUICK[1]
    sessions = all_sessions(names)
    if args.base_url:
        if not args.model:
            raise SystemExit("--model is required with --base-url")
        report = common.Report(
            f"probe evaluation: {args.model} at {args.base_url}, judge {args.judge_model or args.model}",
            on_emulator=False,
        )
        rows = await evaluate(
            args.base_url,
            args.model,
            args.judge_model or args.model,
            sessions,
            strategies,
            window=args.window,
            concurrency=args.concurrency,
        )
    elif args.llama:
        report = common.Report("probe evaluation on a real llama-server (SmolLM2-135M, -c 8192)", on_emulator=False)
        report.note(
            "A 135M model summarizes, answers and judges here: its scores say little about summary "
            "quality; this run checks that the evaluation works end to end on a real server."
        )
        rows = await on_llama(sessions, strategies, report)
    else:
        report = common.Report("probe evaluation on the emulator (tests/fake_probe.py)")
        report.note(
            "Mechanical stand-ins: a summarizer keeping a set share of the statements, a reader that "
            "answers with the facts its context holds, a judge scoring which facts an answer holds. "
            "They check that the harness tells a lossy summary from a faithful one, not any model. "
            f"ours-keep{LOSSY_KEEP * 100:.0f}: ours with the summarizer keeping {LOSSY_KEEP:.0%} of them."
        )
        rows = await on_emulator(sessions, strategies, args.window, args.concurrency)
    if rows:
        report.note(f"{len(sessions)} sessions, {sum(len(s.probes) for s in sessions)} probes each strategy")
        summary(report, rows)
    report.finish()


if __name__ == "__main__":
    asyncio.run(main())
