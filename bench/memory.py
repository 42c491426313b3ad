"""Peak memory with the large session loaded and compacted (about 1M tokens in a full run).

A child process does what `python main.py --continue` then `/compact` does: imports the app, loads
the session file, computes the context gauge, runs one turn (its request carries the whole
history), then compacts, against the local server running in this (parent) process, whose memory
is not counted. The peak is the child's maximum resident set size, ru_maxrss of the child's own
rusage (os.wait4 in the parent: the same figure as getrusage(RUSAGE_CHILDREN) for one child). The
session is generated in a separate "prepare" child, so the parent stays small: Linux counts the
parent's RSS at fork/exec time in a child's ru_maxrss, which would otherwise inflate it. The child
also reports VmRSS / VmHWM from /proc/self/status after each step. Baseline: a child that only
imports the same modules and loads the tokenizer.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench import common  # noqa: E402

TARGET_MB = 300


def child(args: list[str]) -> None:
    """In the child: --child <mode> <base_url> <workspace> <session_id>."""
    mode, base_url, ws, session_id = args
    stages = []

    def mark(name: str) -> None:
        cur, peak = common.rss_mb()
        stages.append((name, cur, peak))

    mark("interpreter + bench.common")
    import compact  # noqa: F401
    import main  # noqa: F401
    import ui.app  # noqa: F401
    from agent.tokens import count as tokens
    from agent.turn.loop import get_agent

    state = common.make_state(base_url, Path(ws))
    get_agent(state)
    tokens.count_text("warm the tokenizer")
    mark("imports + agent + tokenizer")
    if mode == "session":
        asyncio.run(_session(state, session_id, mark))
    print("STAGES " + json.dumps(stages), flush=True)


async def _session(state, session_id, mark) -> None:
    import compact
    import session
    from agent import compaction
    from agent.state.transcript import Transcript
    from main import on_submit

    state.transcript = Transcript(session_id, state.workspace, session.load(session_id, state.workspace).messages)
    mark(f"session loaded ({len(state.history):,} messages)")
    compaction.context_tokens(state)
    mark("context gauge")
    state.config.auto_compact = False
    await on_submit(state, "Where are we? One line, please.")
    mark("one turn (whole history sent)")
    result = await compact.run_compact(state)
    mark(f"compacted ({result.tokens_before:,} -> {result.tokens_after:,} tokens)")


def prepare(args: list[str]) -> None:
    """In the prepare child: <n> <workspace>: write the session file, print its id and size."""
    import session

    n, ws = int(args[0]), Path(args[1])
    state = common.make_state("http://127.0.0.1:9/v1", ws)
    s = common.synth_session(state, n)
    session.rewrite_messages(state.session_id, s.messages, ws)
    size = session.session_file(state.session_id, ws).stat().st_size
    print(f"PREPARED {state.session_id} {s.tokens} {size}", flush=True)


def spawn(*args: str) -> tuple[float, str]:
    """Run this script with `args` in a child; (its peak RSS in MB from its own rusage, its stdout)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen([sys.executable, __file__, *args], stdout=out, stderr=err, env=dict(os.environ))
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if proc.returncode != 0:
            raise RuntimeError(f"the child {args[:2]} failed:\n{err.read()[-3000:]}")
        return usage.ru_maxrss / 1024, out.read()  # ru_maxrss is in kilobytes on Linux


def run_child(mode: str, base_url: str, ws: Path, session_id: str) -> tuple[float, list]:
    peak, stdout = spawn("--child", mode, base_url, str(ws), session_id)
    stages = next(json.loads(line[7:]) for line in stdout.splitlines() if line.startswith("STAGES "))
    return peak, stages


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2:])
        return
    if len(sys.argv) > 1 and sys.argv[1] == "--prepare":
        prepare(sys.argv[2:])
        return
    args = common.parse_args(__doc__)
    report = common.Report("memory: peak RSS with the large session loaded and compacted")
    report.note((__doc__ or "").strip())
    from tests.fake_openai import Text

    n = common.large(args.quick)
    with common.workdir("memory-") as ws, common.server() as server:
        _, prepared = spawn("--prepare", str(n), str(ws))
        session_id, tokens_before, size = next(
            line.split()[1:] for line in prepared.splitlines() if line.startswith("PREPARED ")
        )
        tokens_before, size_mb = int(tokens_before), int(size) / 1e6
        parent_mb = common.rss_mb()[0]
        base_peak, _ = run_child("baseline", server.base_url, ws, session_id)
        server.script(Text("Noted; nothing is pending."), Text(common.summary_text()))
        peak, stages = run_child("session", server.base_url, ws, session_id)
    report.table(
        ["child step", "VmRSS MB", "VmHWM (peak so far) MB"],
        [[k, f"{c:.0f}", f"{p:.0f}"] for k, c, p in stages],
        title=f"session: {n:,} messages, {tokens_before:,} tokens, file {size_mb:.1f} MB",
    )
    report.table(
        ["process", "peak RSS MB (ru_maxrss)"],
        [
            ["baseline (imports + tokenizer)", f"{base_peak:.0f}"],
            ["session loaded + turn + compacted", f"{peak:.0f}"],
            ["(parent's RSS when the children start)", f"{parent_mb:.0f}"],
        ],
    )
    report.figure(f"peak_rss_{n}_compacted", round(peak), "MB", f"<= {TARGET_MB} MB", peak <= TARGET_MB)
    report.figure("peak_rss_baseline_imports", round(base_peak), "MB")
    report.figure("peak_rss_session_share", round(peak - base_peak), "MB")
    report.finish()


if __name__ == "__main__":
    main()
