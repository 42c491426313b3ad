"""A job that reads many files, done inline vs handed to a sub-agent (the `task` tool): how much the
parent's context grows, and what the session costs, for the job and for the turns after it.

The model is scripted (the same reads both ways: one response reading every file, then a short
answer or report), so the difference is only where the reads land. Costs are what the emulator's
requests bill at DeepSeek V4 flash prices, its prefix cache included.

    python bench/subagent.py [--quick]
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench.common import Report, cost, main, make_state, server, workdir  # noqa: E402

SUB = "You are now a sub-agent"
ANSWER = "The function is defined in f3.py line 12; nothing else defines it."


def write_files(workspace: Any, count: int, lines: int) -> list[str]:
    names = []
    for n in range(count):
        name = f"f{n}.py"
        body = "".join(
            f"def helper_{n}_{i}(value):\n    return value * {i}  # step {i} of file {n}\n" for i in range(lines // 2)
        )
        (workspace / name).write_text(body)
        names.append(name)
    return names


def scripted(names: list[str], delegate: bool) -> Any:
    """The replies: the reads (by the parent, or by the sub-agent it asks), then answers."""
    from tests.fake_openai import Text, ToolCalls, smart_reply

    reads = ToolCalls([("read_file", {"path": name}) for name in names])
    job = {
        "description": "find the definition",
        "prompt": "Read " + ", ".join(names) + " and say where the function is defined, as file:line.",
    }
    parent = [ToolCalls([("task", job)]), Text(ANSWER)] if delegate else [reads, Text(ANSWER)]
    child = [reads, Text(ANSWER)]

    def reply(body: dict[str, Any]) -> Any:
        queue = child if SUB in str(body["messages"][0].get("content")) else parent
        return queue.pop(0) if queue else smart_reply(body)

    return reply


def billed(requests: list[dict[str, Any]]) -> float:
    return sum(
        cost(r["cache_hit_tokens"], r["prompt_tokens"] - r["cache_hit_tokens"], r["completion_tokens"])
        for r in requests
        if r.get("billed")
    )


async def run_one(files: int, lines: int, follow_ups: int, delegate: bool) -> dict[str, Any]:
    import main as agent_main
    from agent.compaction.watermark import context_tokens

    with workdir("subagent-") as workspace, server() as fake:
        names = write_files(workspace, files, lines)
        state = make_state(fake.base_url, workspace)
        fake.script(*[scripted(names, delegate)] * 500)
        await agent_main.on_submit(state, "Where is the function defined?")
        before = context_tokens(state)
        first = len(fake.requests)
        job_cost = billed(fake.requests)
        for n in range(follow_ups):  # the turns after it carry what the job left in the context
            await agent_main.on_submit(state, f"follow-up question {n}")
        return {
            "context": before,
            "requests": len(fake.requests),
            "job": job_cost,
            "later": billed(fake.requests[first:]),
            "total": billed(fake.requests),
            "sub_requests": state.stats.subagent_requests,
        }


async def run(quick: bool) -> None:
    files, lines, follow_ups = (10, 120, 5) if quick else (30, 200, 20)
    report = Report(f"sub-agent: a job reading {files} files of {lines} lines, then {follow_ups} turns")
    inline = await run_one(files, lines, follow_ups, delegate=False)
    delegated = await run_one(files, lines, follow_ups, delegate=True)
    rows = [
        [name, r["context"], r["requests"], r["sub_requests"], r["job"], r["later"], r["total"]]
        for name, r in (("inline", inline), ("delegated", delegated))
    ]
    report.table(
        [
            "how",
            "parent context after the job (tokens)",
            "requests",
            "of them sub-agent's",
            "$ job",
            f"$ {follow_ups} later turns",
            "$ session",
        ],
        rows,
    )
    report.figure("parent_context_after_job_inline", inline["context"], "tokens")
    report.figure("parent_context_after_job_delegated", delegated["context"], "tokens")
    report.figure("session_cost_inline", round(inline["total"], 6), "USD")
    report.figure("session_cost_delegated", round(delegated["total"], 6), "USD")
    report.finish()


if __name__ == "__main__":
    main(run, __doc__)
