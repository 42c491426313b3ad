"""Per-turn overhead outside the model, at 100, 1,000 and 8,000 messages.

Each simulated turn does what main.on_submit and agent.turn.loop do around the model calls, on a session
loaded from disk: parse @-mentions and build the pending input, the watermark check
(compaction.context_tokens), the checkpoint (file_history.make_checkpoint), the session append
(loop.sync_history after each of the turn's 4 messages), the toolbar text (ui.app.App.toolbar), and
the mid-turn guard before each of the turn's 2 model requests (agent.turn.guard's ContextGuard, running
compact.before_request). The turn's messages (a tool call, a ~200-token tool result, an answer) are appended
with realistic usage, so the next turn's check anchors on the newest usage as in a live session.

Baseline: recounting the whole history each turn with no per-message cache (the DeepSeek
tokenizer over every message).

Not in the figure, shown beside it: what building each model request costs on the client (pydantic-ai
preparing and mapping the history, the openai SDK serializing it, HTTP), measured on real turns
through main.on_submit as wall time minus the server's handler time; and what the one seam into the
openai client (agent/provider/sdk_seam.py) saves: the last request sent through the SDK's own create,
and through a client the seam took over.
"""

from __future__ import annotations

import io
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench import common  # noqa: E402

TARGET_MS = 10.0
STEPS = [
    "input + mentions",
    "watermark (context_tokens)",
    "checkpoint",
    "session append (x4)",
    "toolbar text",
    "mid-turn guard (x2)",
]


def recount_uncached(state: Any) -> int:
    from agent.compaction.watermark import fixed_prefix_tokens
    from agent.tokens import count as tokens

    total = fixed_prefix_tokens(state)
    for m in state.history:
        for om in tokens.openai_messages(m):
            total += tokens.count_pieces(tokens.render_message(om))
    return total


def turn_messages(state: Any, i: int, context: int) -> tuple[list, int]:
    """A tool round and an answer, with the usage the server would report."""
    from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
    from pydantic_ai.usage import RequestUsage

    from agent.tokens import count as tokens

    body = "\n".join(f"{n:6}\tvalue_{i}_{n} = compute_{n % 7}(items[{n}], limit={n * 3})  # 第{n}行" for n in range(14))
    call = ToolCallPart("read_file", {"path": f"src/mod_{i}.py", "offset": 1, "limit": 14}, tool_call_id=f"c{i}")
    msgs: list = []
    r1 = ModelResponse(parts=[call], usage=RequestUsage(input_tokens=context, output_tokens=20))
    msgs.append(r1)
    context += tokens.count_message(r1)
    ret = ModelRequest(
        parts=[ToolReturnPart("read_file", body, tool_call_id=f"c{i}")], instructions=state.scratch.instructions
    )
    msgs.append(ret)
    context += tokens.count_message(ret)
    answer = ModelResponse(
        parts=[TextPart(f"Done with step {i}: the value is computed once now. 已完成第{i}步。")],
        usage=RequestUsage(input_tokens=context, output_tokens=25),
    )
    msgs.append(answer)
    context += tokens.count_message(answer)
    return msgs, context


class Run:
    """One session size: its state, app, and the simulated turns' timings."""

    def __init__(self, n: int, server: Any, ws: Path) -> None:
        from rich.console import Console

        import compact
        from agent.provider.prefix import RequestContext
        from agent.turn import guard
        from agent.turn.run_state import Turn
        from ui.app import App

        async def _submit(app: Any, text: str, typed: bool = True) -> None:
            pass

        self.n = n
        self.state = state = common.make_state(server.base_url, ws, compact_at="980000")
        common.install_session(state, common.synth_session(state, n))
        self.app = App(state, _submit, console=Console(file=io.StringIO(), width=120))
        renderer, self.events = state.emit, []
        state.emit = lambda e: (self.events.append(e), renderer(e))
        self.guard = guard.Guard(
            compact.before_request, RequestContext(state.scratch.recorder), Turn(start=[], base=[], offset=0)
        )
        self.times: dict[str, list[float]] = {k: [] for k in STEPS}
        self.client: list[float] = []
        self.app.toolbar()  # the first prompt drew it already

    async def turn(self, i: int) -> None:
        from pydantic_ai.messages import ModelRequest, UserPromptPart

        from agent import compaction
        from agent.state.file_state import ReadFileState
        from agent.tools.mentions import build_mention_messages, find_mentions
        from agent.turn.loop import sync_history

        state, times = self.state, self.times
        text = f"Step {i}: now make compute_{i % 7} skip empty items, then run the tests. 然后跑一下测试。"
        t0 = time.perf_counter()
        mentions = find_mentions(text)
        preview, _ = build_mention_messages(mentions, state, read_file_state=ReadFileState())
        user = ModelRequest(parts=[UserPromptPart(text)], instructions=state.scratch.instructions)
        pending = preview + [user]
        t1 = time.perf_counter()
        used = compaction.context_tokens(state, pending)
        compaction.threshold(state)
        t2 = time.perf_counter()
        state.turns += 1
        state.file_history.make_checkpoint(len(state.history), text)
        t3 = time.perf_counter()
        times["input + mentions"].append(t1 - t0)
        times["watermark (context_tokens)"].append(t2 - t1)
        times["checkpoint"].append(t3 - t2)

        new, _ = turn_messages(state, i, used)
        messages = list(state.history) + [user]
        append = guard_t = 0.0
        for k, m in enumerate([None, *new]):
            if m is not None:
                messages = messages + [m]
            if k in (0, 2):  # before each model request: the first, and after the tool result
                ctx = SimpleNamespace(deps=state, messages=list(messages), model_settings=None)
                t0 = time.perf_counter()
                await self.guard.before_model_request(ctx, SimpleNamespace(messages=list(messages)))
                guard_t += time.perf_counter() - t0
            t0 = time.perf_counter()
            sync_history(state, messages)
            append += time.perf_counter() - t0
        times["session append (x4)"].append(append)
        times["mid-turn guard (x2)"].append(guard_t)
        t0 = time.perf_counter()
        self.app.toolbar()
        times["toolbar text"].append(time.perf_counter() - t0)

    async def real_turn(self, server: Any, i: int) -> None:
        """A real turn, one model request: the client side of building and sending it."""
        from main import on_submit
        from tests.fake_openai import Text

        self.state.config.auto_compact = False
        server.script(Text("Done."))
        server.handler_times.clear()
        t0 = time.perf_counter()
        await on_submit(self.state, f"Is step {i} done?")
        self.client.append(time.perf_counter() - t0 - sum(server.handler_times))

    async def seam_benefit(self, server: Any, repeats: int) -> None:
        """What agent/provider/sdk_seam.py saves: the last request sent through the SDK's own create
        (it walks every message against its types and encodes the whole body) and through a client the
        seam took over (each message encoded once, its bytes kept), interleaved; wall time, the server's
        share alike in both."""
        from openai import AsyncOpenAI

        from agent.provider.sdk_seam import send_untransformed
        from tests.fake_openai import Text

        sent = self.state.scratch.recorder.last
        assert sent is not None, "no request was recorded"
        clients = {
            way: AsyncOpenAI(base_url=server.base_url, api_key="k", max_retries=0)
            for way in ("transformed", "untransformed")
        }
        send_untransformed(clients["untransformed"])
        self.sdk: dict[str, list[float]] = {way: [] for way in clients}
        try:
            for _ in range(repeats):
                for way, client in clients.items():
                    server.script(Text("ok"))
                    t0 = time.perf_counter()
                    await client.chat.completions.create(model=common.MODEL, messages=sent.messages, tools=sent.tools)
                    self.sdk[way].append(time.perf_counter() - t0)
        finally:
            for client in clients.values():
                await client.close()

    def finish(self, recounts: int) -> dict[str, Any]:
        assert not any(type(e).__name__.startswith("Compaction") for e in self.events), (
            "a compaction ran during the overhead run"
        )
        med: dict[str, Any] = {k: common.median(v) for k, v in self.times.items()}
        med["total"] = sum(med.values())
        t_recount, counted = common.timed(lambda: recount_uncached(self.state), recounts)
        med["baseline recount"] = t_recount
        med["tokens"] = counted
        # The first real turn sends a history never sent before (nothing to reuse): not in the median.
        med["request client side"] = common.median(self.client[1:])
        med["sdk transformed"] = common.median(self.sdk["transformed"])
        med["sdk untransformed"] = common.median(self.sdk["untransformed"])
        return med


async def run(quick: bool) -> None:
    report = common.Report("overhead: per-turn work outside the model")
    report.note((__doc__ or "").strip())
    turns = 25 if quick else 60
    results = {}
    with common.workdir("overhead-") as ws, common.server() as server:
        runs = []
        for n in common.sizes(quick):
            sub = ws / f"ws-{n}"
            sub.mkdir()
            runs.append(Run(n, server, sub))
        # Interleaved, so that a change in the machine's load hits every size alike.
        for i in range(turns):
            for r in runs:
                await r.turn(i)
        # Real turns interleaved too; the first of each size is left out of its median (see finish).
        for i in range(6 if quick else 10):
            for r in runs:
                await r.real_turn(server, i)
        for r in runs:
            await r.seam_benefit(server, 3 if quick else 5)
        for r in runs:
            results[r.n] = r.finish(3 if r.n >= 5_000 else 5)
    sizes = list(results)
    rows = [[k, *(1000 * results[n][k] for n in sizes)] for k in STEPS]
    rows.append(["= per-turn overhead", *(1000 * results[n]["total"] for n in sizes)])
    rows.append(["baseline: recount whole history", *(1000 * results[n]["baseline recount"] for n in sizes)])
    rows.append(["(history tokens at the end)", *(results[n]["tokens"] for n in sizes)])
    rows.append(
        ["not included: model request, client side", *(1000 * results[n]["request client side"] for n in sizes)]
    )
    rows.append(["  the SDK's create, messages transformed", *(1000 * results[n]["sdk transformed"] for n in sizes)])
    rows.append(
        ["  the same through agent/provider/sdk_seam.py", *(1000 * results[n]["sdk untransformed"] for n in sizes)]
    )
    report.table(["median ms per turn", *(f"{n:,} msgs" for n in sizes)], rows)
    small, big = results[sizes[0]], results[sizes[-1]]
    ratio = big["total"] / small["total"]
    ms = 1000 * big["total"]
    report.figure(f"turn_overhead_{sizes[-1]}", round(ms, 3), "ms", f"<= {TARGET_MS:g} ms", ms <= TARGET_MS)
    report.figure(f"turn_overhead_{sizes[0]}", round(1000 * small["total"], 3), "ms")
    report.figure(f"turn_overhead_ratio_{sizes[-1]}_over_{sizes[0]}", round(ratio, 2), "x", "<= 2x", ratio <= 2)
    report.figure(f"turn_overhead_baseline_recount_{sizes[-1]}", round(1000 * big["baseline recount"], 1), "ms")
    report.figure("turn_overhead_baseline_over_ours", round(big["baseline recount"] / big["total"]), "x")
    report.figure(f"request_client_side_{sizes[-1]}", round(1000 * big["request client side"]), "ms")
    report.figure(f"request_client_side_{sizes[0]}", round(1000 * small["request client side"], 1), "ms")
    # Each turn builds only what follows the last request (agent.provider.prefix.reuse): the median of the real
    # turns is one that reused (the first sends a history that was never sent before).
    client_ratio = big["request client side"] / small["request client side"]
    report.figure(
        f"request_client_side_ratio_{sizes[-1]}_over_{sizes[0]}",
        round(client_ratio, 2),
        "x",
        "<= 2x",
        client_ratio <= 2,
    )
    # The one seam into the openai client (agent/provider/sdk_seam.py) is kept for this figure.
    for n in (sizes[1], sizes[-1]):
        report.figure(f"sdk_transform_{n}", round(1000 * results[n]["sdk transformed"]), "ms")
        report.figure(f"sdk_untransformed_{n}", round(1000 * results[n]["sdk untransformed"], 1), "ms")
    seam = results[sizes[-1]]["sdk transformed"] / max(1e-9, results[sizes[-1]]["sdk untransformed"])
    report.figure(f"sdk_seam_saves_{sizes[-1]}", round(seam, 1), "x")
    report.finish()


if __name__ == "__main__":
    common.main(run, __doc__)
