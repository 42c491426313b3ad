"""fetch_url's bounds, against a real HTTP server on 127.0.0.1 (tests/agent/tools/test_fetch_limits.py's SlowSite):

loop stall   the longest gap between the turns of a 10 ms ticker on the event loop while
             fetch_url converts a 3 MB page of inline markup (the REPL's responsiveness)
cancel       from cancelling that call (what Ctrl-C does) to the call ended and its worker gone
cap          how long the worker takes to convert MAX_HTML characters of that markup
trickle      the whole call against a server that sends a byte every 50 ms, with a 3 s deadline
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench import common  # noqa: E402

DEADLINE = 3.0


async def _ticker(gaps: list[float], stop: asyncio.Event) -> None:
    last = time.perf_counter()
    while not stop.is_set():
        await asyncio.sleep(0.01)
        now = time.perf_counter()
        gaps.append(now - last - 0.01)
        last = now


async def run(quick: bool) -> None:
    from agent.tools import fetch_url as fetch
    from agent.tools.html_worker import convert
    from tests.agent.tools.test_fetch_limits import BIG, SlowSite, html_workers
    from tests.agent.tools.test_fetch_url import LOOPBACK, make_ctx

    report = common.Report("fetch_url: the loop, Ctrl-C and the deadline", on_emulator=False)
    site = SlowSite()
    workspace = Path(tempfile.mkdtemp())
    try:
        ctx = make_ctx(workspace, fetch_allow_networks=LOOPBACK)
        gaps: list[float] = []
        stop = asyncio.Event()
        ticker = asyncio.create_task(_ticker(gaps, stop))
        task = asyncio.create_task(fetch.fetch_url(ctx, f"{site.url}/big"))
        while not html_workers() and not task.done():
            await asyncio.sleep(0.01)
        gaps.clear()
        await asyncio.sleep(1.0 if quick else 3.0)  # the worker converts meanwhile
        stall = max(gaps)
        cancelled = time.perf_counter()
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            pass
        while html_workers():
            await asyncio.sleep(0.001)
        cancel = time.perf_counter() - cancelled
        stop.set()
        await ticker

        html = BIG.decode()[: fetch.MAX_HTML]
        started = time.perf_counter()
        await convert(html, 600)
        cap = time.perf_counter() - started

        os.environ["CODING_AGENT_FETCH_TIMEOUT"] = str(DEADLINE)
        started = time.perf_counter()
        answer = await fetch.fetch_url(ctx, f"{site.url}/trickle")
        trickle = time.perf_counter() - started
        assert "took longer than" in answer, answer
    finally:
        site.close()
    report.table(
        ["what", "figure"],
        [
            ["longest loop stall while converting (ms)", stall * 1000],
            ["cancel to call ended, worker gone (ms)", cancel * 1000],
            [f"converting MAX_HTML = {fetch.MAX_HTML:,} characters (s)", cap],
            [f"trickling server, {DEADLINE:g} s deadline: the call (s)", trickle],
        ],
    )
    report.figure("fetch_loop_stall_ms", stall * 1000, "ms", "<= 100 ms", stall <= 0.1)
    report.figure("fetch_cancel_ms", cancel * 1000, "ms", "<= 1000 ms", cancel <= 1.0)
    report.figure("fetch_convert_cap_s", cap, "s")
    report.figure("fetch_trickle_s", trickle, "s", f"<= {DEADLINE + 1:g} s", trickle <= DEADLINE + 1)
    report.finish()


if __name__ == "__main__":
    common.main(run, __doc__)
