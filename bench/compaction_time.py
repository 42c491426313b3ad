"""Compaction wall time minus the model's own time, and tokens after / before, on the large session.

`compact.run_compact` (manual) on the large session (about 920k tokens in a full run), against the
local server with no added latency. The model's time is what the server spends on the request
(measured inside its handler: reading the body, counting tokens as a provider's prefill would,
answering); everything else is the agent's: the checks before the call, fitting the request,
building it (pydantic-ai + openai client) and reading the answer, then archive, restore, summary
message, recount and rewrite. A second figure leaves out the request's client side too (pydantic-ai
and the openai SDK building and sending it): the compaction's own steps. Two starting points:
  live     a session that grew in this process: a turn has just ended (its request is the one the
           compaction request starts with, agent/provider/prefix.py), and the per-message token counts the
           turns computed (every message but the final text answers) are cached
  resumed  the session was just loaded from disk (--continue): no count cached, no request sent;
           the warm-up has built (not sent) the request the history makes, in its worker thread
           while the user types (agent/provider/prefix.py; its time is the "prime" row, not in the total)
  resumed, not primed   the same, had the warm-up not done it: pydantic-ai builds the whole
           request (~0.5 s at 8,000 messages)
"""

from __future__ import annotations

import asyncio
import inspect
import sys
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench import common  # noqa: E402

TARGET_MS = 300


@contextmanager
def timers(spec: list[tuple[Any, str, str]], buckets: dict[str, float]) -> Iterator[None]:
    """Wrap obj.attr to add its wall time to buckets[name] (sync or async functions)."""
    saved = []
    for obj, attr, name in spec:
        original = getattr(obj, attr)
        if inspect.iscoroutinefunction(original):

            async def wrapper(*a: Any, __f: Any = original, __n: str = name, **k: Any) -> Any:
                t0 = time.perf_counter()
                try:
                    return await __f(*a, **k)
                finally:
                    buckets[__n] += time.perf_counter() - t0
        else:

            def wrapper(*a: Any, __f: Any = original, __n: str = name, **k: Any) -> Any:
                t0 = time.perf_counter()
                try:
                    return __f(*a, **k)
                finally:
                    buckets[__n] += time.perf_counter() - t0

        setattr(obj, attr, wrapper)
        saved.append((obj, attr, original))
    try:
        yield
    finally:
        for obj, attr, original in reversed(saved):
            setattr(obj, attr, original)


def warm_live(history: list) -> None:
    """Cache the counts a live session has: all but the final text-only answers."""
    from pydantic_ai.messages import ModelResponse, ToolCallPart

    from agent.tokens import count as tokens

    for m in history:
        if isinstance(m, ModelResponse) and not any(isinstance(p, ToolCallPart) for p in m.parts):
            continue
        tokens.count_message(m)


async def one(server: Any, ws: Path, s: Any, scenario: str, window: int) -> dict[str, float]:
    import compact
    import session
    from agent.compaction import flow, request, restore, summary, watermark
    from tests.fake_openai import Text

    state = common.make_state(server.base_url, ws, window)
    common.install_session(state, s)
    if scenario == "live":
        from agent.turn.loop import run_turn

        server.script(Text("Done: the tests pass."))
        outcome = await run_turn(state, "run the tests once more")
        assert outcome.ok and state.scratch.recorder.covering(state.history) is not None, outcome
        warm_live(state.history)
    prime = 0.0
    if scenario == "resumed":
        from agent.turn.warmup import warm_up

        t0 = time.perf_counter()
        await asyncio.get_running_loop().run_in_executor(None, warm_up, state)
        prime = time.perf_counter() - t0
        assert state.scratch.recorder.covering(state.history) is not None
    server.script(Text(common.summary_text()))
    buckets: dict[str, float] = defaultdict(float)
    spec = [
        (watermark, "figures", "before: the figures"),
        (watermark, "request_tokens", "count: before and after"),
        (request, "fit_request", "fit request (count history)"),
        (request, "_call", "request call"),
        (session, "archive_session", "archive (copy + fsync)"),
        (summary, "files_touched", "summary: files touched"),
        (summary, "carried_and_older", "summary: user messages"),
        (restore, "restore_files", "restore files"),
        (restore, "summary_messages", "summary message"),
        (session, "rewrite_messages", "rewrite (+ fsync)"),
        (flow, "checkpoints_cut", "drop checkpoints"),
    ]
    server.handler_times.clear()
    with timers(spec, buckets):
        t0 = time.perf_counter()
        result = await compact.run_compact(state)
        total = time.perf_counter() - t0
    model = sum(server.handler_times)
    buckets["request call"] -= model
    buckets["request: client side (pydantic-ai, openai, HTTP)"] = buckets.pop("request call")
    out = dict(buckets)
    out["total"] = total
    out["model (server)"] = model
    out["agent"] = total - model
    out["before"] = result.tokens_before
    out["after"] = result.tokens_after
    out["messages_after"] = len(state.history)
    out["prime"] = prime
    await state.scratch.agent.model.client.close()
    return out


async def run(quick: bool) -> None:
    report = common.Report("compaction_time: compaction wall time minus the model's time")
    report.note((__doc__ or "").strip())
    n = common.large(quick)
    repeat = 2 if quick else 3
    results: dict[str, list[dict[str, float]]] = {"live": [], "resumed": [], "resumed, not primed": []}
    with common.workdir("compact-time-") as ws, common.server() as server:
        state = common.make_state(server.base_url, ws)
        s = common.synth_session(state, n)
        window = common.WINDOW
        if quick:
            # The warm-up primes a session past 85% of the threshold: the quick session (~190k tokens)
            # gets a window it nearly fills, as the full one (~920k) nearly fills DeepSeek V4's 1M.
            from agent.compaction.watermark import context_tokens

            common.install_session(state, s)
            window = int(context_tokens(state) / 0.8)
        for _ in range(repeat):
            for scenario in results:
                results[scenario].append(await one(server, ws, s, scenario, window))
    # Per scenario, the run with the median agent time (its steps add up to its total).
    med = {sc: sorted(rs, key=lambda r: r["agent"])[len(rs) // 2] for sc, rs in results.items()}
    fixed = ("total", "model (server)", "agent", "before", "after", "messages_after", "prime")
    keys = [k for k in med["live"] if k not in fixed]
    rows = [[k, *(1000 * med[sc][k] for sc in med)] for k in keys]
    rows += [
        ["(rest of run_compact)", *(1000 * (med[sc]["agent"] - sum(med[sc][k] for k in keys)) for sc in med)],
        ["= agent total (wall - model)", *(1000 * med[sc]["agent"] for sc in med)],
        ["model (server handler)", *(1000 * med[sc]["model (server)"] for sc in med)],
        ["wall", *(1000 * med[sc]["total"] for sc in med)],
        ["prime, before: warm-up thread after the resume", *(1000 * med[sc]["prime"] for sc in med)],
    ]
    report.table(
        [f"step, ms (median run of {repeat})", *med],
        rows,
        title=f"{n:,}-message session, {med['live']['before']:,.0f} tokens before",
    )
    report.table(
        ["", "tokens before", "tokens after", "after / before", "messages after"],
        [
            [sc, m["before"], m["after"], f"{100 * m['after'] / m['before']:.2f}%", m["messages_after"]]
            for sc, m in med.items()
        ],
    )
    live = med["live"]
    for sc, name in (("live", "live"), ("resumed", "resumed")):
        ms = 1000 * med[sc]["agent"]
        report.figure(f"compaction_overhead_{name}", round(ms, 1), "ms", f"<= {TARGET_MS} ms", ms <= TARGET_MS)
    report.figure("compaction_overhead_resumed_not_primed", round(1000 * med["resumed, not primed"]["agent"], 1), "ms")
    report.figure("prime_after_resume", round(1000 * med["resumed"]["prime"], 1), "ms")
    own = {sc: m["agent"] - m["request: client side (pydantic-ai, openai, HTTP)"] for sc, m in med.items()}
    report.figure(
        "compaction_own_steps_live",
        round(1000 * own["live"], 1),
        "ms",
        f"<= {TARGET_MS} ms",
        1000 * own["live"] <= TARGET_MS,
    )
    report.figure("compaction_own_steps_resumed", round(1000 * own["resumed"], 1), "ms")
    report.figure("compaction_tokens_after_over_before", round(100 * live["after"] / live["before"], 2), "%")
    report.finish()


if __name__ == "__main__":
    common.main(run, __doc__)
