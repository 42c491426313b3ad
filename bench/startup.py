"""Start-up and resume time: `python main.py` in a pseudo-terminal until the prompt takes input.

The agent runs in a pty (pexpect, 120x40, cursor-position requests answered like a terminal does),
pointed at the local server with --base-url and a temp CODING_AGENT_HOME. Two moments are timed
from the spawn: the prompt drawn (prompt_toolkit's first frame with "> "), and input accepted: a key
sent as soon as the prompt is drawn is echoed back (a blocked event loop, e.g. a slow bottom
toolbar, delays this one). The figure is "input accepted".
  start-up  a new session in an empty workspace
  resume    --continue of an 8,000-message session (quick: the quick "large" size)
Baseline: `python -c "import pydantic_ai, openai"`, in the same run. Median of several runs (one
unmeasured run first warms the disk cache). Diagnosis: `python -X importtime` of the same start;
what resuming spends before the prompt, step by step, in a child process; and (full run only)
the start-up again with the background work after the first paint switched off in the child
(agent.tokens.count.preload, agent.turn.warmup.warm_up patched to no-ops) to show what delays the first key.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench import common  # noqa: E402

START_TARGET = 0.5
RESUME_TARGET = 1.5
MARK = "Z"
PROMPT = re.compile(r"\x1b\[\?2004h.*>", re.S)  # bracketed paste on, then the prompt: the app runs


def env_for(home: Path) -> dict[str, str]:
    env = dict(os.environ, CODING_AGENT_HOME=str(home), TERM="xterm-256color", PYDANTIC_AI_NO_BANNER="1")
    env.pop("CODING_AGENT_CONTINUE", None)
    return env


def time_prompt(
    args: list[str], cwd: Path, home: Path, expect: str | None = None, prefix: list[str] | None = None
) -> tuple[float, float]:
    """(seconds until the prompt is drawn, seconds until a key typed then is echoed)."""
    import pexpect

    argv = (prefix or []) + [sys.executable, str(common.ROOT / "main.py"), *args]
    t0 = time.perf_counter()
    child = pexpect.spawn(
        argv[0],
        argv[1:],
        env=env_for(home),
        cwd=str(cwd),
        dimensions=(40, 120),
        encoding="utf-8",
        codec_errors="replace",
        timeout=30,
    )
    out, drawn, accepted, seen = "", None, None, 0
    try:
        while accepted is None:
            if time.perf_counter() - t0 > 60:
                raise RuntimeError(f"no prompt after 60 s; output: {out[-500:]!r}")
            try:
                chunk = child.read_nonblocking(65536, timeout=0.05)
            except pexpect.TIMEOUT:
                continue
            except pexpect.EOF:
                raise RuntimeError(f"the agent exited before its prompt took input; output: {out[-800:]!r}") from None
            out += chunk
            if "\x1b[6n" in chunk:
                child.send("\x1b[40;1R")  # answer the cursor-position request as a terminal would
            if drawn is None and PROMPT.search(out) and (expect is None or expect in out):
                drawn = time.perf_counter() - t0
                seen = len(out)
                child.send(MARK)
            elif drawn is not None and MARK in out[seen:]:
                accepted = time.perf_counter() - t0
    finally:
        child.terminate(force=True)
    return drawn, accepted


EXPERIMENT = (
    "import runpy, sys; sys.path.insert(0, {root!r}); import agent.tokens.count, agent.turn.warmup; {patch}; "
    "sys.argv = sys.argv[2:]; runpy.run_path(sys.argv[0], run_name='__main__')"  # argv: -c python main.py ...
)
PATCHES = {
    "start-up, tokenizer preload switched off": "agent.tokens.count.preload = lambda: None",
    "start-up, preload and agent warm-up switched off": "agent.tokens.count.preload = lambda: None; "
    "agent.turn.warmup.warm_up = lambda state: None",
}


def time_experiment(patch: str, args: list[str], cwd: Path, home: Path) -> tuple[float, float]:
    code = EXPERIMENT.format(root=str(common.ROOT), patch=patch)
    return time_prompt(args, cwd, home, prefix=[sys.executable, "-c", code])


RESUME_STEPS = """
import sys, time
t0 = time.perf_counter()
sys.path.insert(0, {root!r})
import main, session
t1 = time.perf_counter()
from pydantic_ai.messages import ModelMessagesTypeAdapter
t2 = time.perf_counter()
data = session.session_file(session.latest_session()).read_bytes()
t3 = time.perf_counter()
n = len(session.parse_lines(data).messages)
t4 = time.perf_counter()
import ui.app
t5 = time.perf_counter()
print(t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4, n)
"""


def resume_steps(cwd: Path, home: Path) -> list[tuple[str, float]]:
    out = subprocess.run(
        [sys.executable, "-c", RESUME_STEPS.format(root=str(common.ROOT))],
        cwd=cwd,
        env=env_for(home),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    names = [
        "import main, session",
        "import pydantic_ai.messages (for the parse)",
        "read the session file",
        f"parse {int(out[5]):,} lines (session.parse_lines)",
        "import ui.app (prompt_toolkit, rich)",
    ]
    return list(zip(names, map(float, out[:5]), strict=True))


def time_import() -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import pydantic_ai, openai"], check=True)
    return time.perf_counter() - t0


def importtime_top(cwd: Path, home: Path, args: list[str], n: int = 12) -> list[tuple[str, float]]:
    """The slowest top-level imports of a start-up (cumulative ms), from -X importtime."""
    log = home.parent / "importtime.log"
    shell = ["bash", "-c", f'exec "$0" -X importtime "$@" 2>{log}']
    try:
        time_prompt(args, cwd, home, prefix=shell)
    except RuntimeError:
        pass
    rows = []
    for line in log.read_text(errors="replace").splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \| (\s*)(\S+)", line)
        if m and len(m.group(3)) <= 1:  # top-level imports only
            rows.append((m.group(4), int(m.group(2)) / 1000))
    rows.sort(key=lambda r: -r[1])
    return rows[:n]


def main() -> None:
    args = common.parse_args(__doc__)
    quick = args.quick
    repeat = 2 if quick else 7
    report = common.Report("startup: python main.py until the prompt accepts input")
    report.note((__doc__ or "").strip())
    with common.workdir("startup-") as ws, common.server() as server:
        home = Path(os.environ["CODING_AGENT_HOME"])
        base = ["--base-url", server.base_url]
        time_import()
        if not quick:
            time_prompt(base, ws, home)  # warm the disk cache (the import above did most of it)
        imports, starts = [], []
        for _ in range(repeat):  # interleaved: a change in the machine's load hits both alike
            imports.append(time_import())
            starts.append(time_prompt(base, ws, home))

        # a large session to resume, in its own workspace
        rws = ws.parent / "resume-ws"
        rws.mkdir()
        state = common.make_state(server.base_url, rws)
        n = common.large(quick)
        s = common.synth_session(state, n)
        import session

        session.rewrite_messages(state.session_id, s.messages, rws)
        size_mb = session.session_file(state.session_id, rws).stat().st_size / 1e6
        resume_args = [*base, "--continue"]
        expect = f"{n} messages"
        if not quick:
            time_prompt(resume_args, rws, home, expect)
        resumes = [time_prompt(resume_args, rws, home, expect) for _ in range(repeat)]
        top_start = importtime_top(ws, home, base)
        steps = resume_steps(rws, home)
        experiments = {}
        if not quick:
            for name, patch in PATCHES.items():
                runs = [time_experiment(patch, base, ws, home) for _ in range(repeat)]
                experiments[name] = (common.median([d for d, _ in runs]), common.median([a for _, a in runs]))

    med = {
        "import pydantic_ai, openai (baseline)": (None, common.median(imports)),
        "start-up (new session)": (common.median([d for d, _ in starts]), common.median([a for _, a in starts])),
        f"resume --continue ({n:,} messages, {size_mb:.1f} MB)": (
            common.median([d for d, _ in resumes]),
            common.median([a for _, a in resumes]),
        ),
    }
    med.update({f"(experiment) {k}": v for k, v in experiments.items()})
    report.table(
        [f"median of {repeat} (s)", "prompt drawn", "input accepted"],
        [[k, "-" if d is None else f"{d:.3f}", f"{a:.3f}"] for k, (d, a) in med.items()],
    )
    report.table(
        ["resume step, before the prompt", "s"],
        [[k, f"{v:.3f}"] for k, v in steps],
        title=f"resume of {n:,} messages, step by step (one child process)",
    )
    report.table(
        ["top-level import during start-up", "cumulative ms"],
        [[m, f"{t:.0f}"] for m, t in top_start],
        title="python -X importtime, start-up (imports made before the prompt takes input)",
    )
    start = common.median([a for _, a in starts])
    resume = common.median([a for _, a in resumes])
    imp = common.median(imports)
    report.figure("startup_to_input", round(start, 3), "s", f"<= {START_TARGET} s", start <= START_TARGET)
    report.figure("startup_prompt_drawn", round(common.median([d for d, _ in starts]), 3), "s")
    report.figure("startup_baseline_import_pydantic_ai_openai", round(imp, 3), "s")
    report.figure("startup_over_baseline", round(start / imp, 2), "x")
    report.figure(f"resume_{n}_to_input", round(resume, 3), "s", f"<= {RESUME_TARGET} s", resume <= RESUME_TARGET)
    report.finish()


if __name__ == "__main__":
    main()
