"""The compaction's size, as a newcomer meets it: its modules and lines, and the functions one
compaction runs.

    python bench/compaction_shape.py

Modules and lines: every .py file of agent/compaction/ (the package), and beside it the top-level
entry point compact.py; each split into code, docstrings, comments
and blank lines. Functions: `sys.settrace` records every
function of the project's own source (not tests/, bench/ or installed packages; module bodies,
comprehensions counted apart) that runs during one compaction against the emulator
(tests/fake_openai.py) at a 16k window: the pre-turn check's automatic compaction of a session
of file reads and chatter that crossed the threshold, and one /compact on the same session.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench import common  # noqa: E402

ROOT = common.ROOT
PACKAGE = ROOT / "agent" / "compaction"
ENTRY_POINTS = ("compact.py",)
WINDOW = 16_384
MAX_MODULES, MAX_LINES, MAX_FUNCTIONS = 12, 2_000, 120
COMPREHENSIONS = ("<listcomp>", "<dictcomp>", "<setcomp>", "<genexpr>")


def lines_of(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def package_size() -> tuple[int, int]:
    files = sorted(PACKAGE.glob("*.py"))
    return len(files), sum(lines_of(p) for p in files)


def line_kinds(path: Path) -> list[int]:
    """A file's lines by kind: code, docstrings, comments, blank (`ruff format` puts two between
    top-level definitions)."""
    import ast

    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    docs: set[int] = set()
    for node in ast.walk(ast.parse(text)):
        body = getattr(node, "body", None)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body:
            first = body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                docs.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    blank = sum(1 for line in lines if not line.strip())
    comments = sum(1 for i, line in enumerate(lines, 1) if line.strip().startswith("#") and i not in docs)
    return [len(lines) - len(docs) - comments - blank, len(docs), comments, blank]


def own_source(filename: str) -> bool:
    path = Path(filename)
    if not path.is_absolute() or ROOT not in path.parents:
        return False
    first = path.relative_to(ROOT).parts[0]
    return first not in ("tests", "bench") and not first.startswith(".") and "site-packages" not in path.parts


async def traced(start: Callable[[], Awaitable[Any]]) -> tuple[set[tuple[str, int, str]], Any]:
    """The project's functions that ran while `start()` was awaited (this thread: the agent's)."""
    seen: set[tuple[str, int, str]] = set()

    def tracer(frame: Any, event: str, arg: Any) -> None:
        code = frame.f_code
        if event == "call" and code.co_name != "<module>" and own_source(code.co_filename):
            seen.add((code.co_filename, code.co_firstlineno, code.co_qualname))

    sys.setprofile(None)
    sys.settrace(tracer)
    try:
        result = await start()
    finally:
        sys.settrace(None)
    return seen, result


def write_files(workspace: Path, count: int) -> list[str]:
    names = []
    for i in range(count):
        name = f"src/part_{i}.py"
        (workspace / "src").mkdir(exist_ok=True)
        body = "".join(
            f"def step_{i}_{n}(value):\n    return value * {n} + {i}  # keeps record {n}\n" for n in range(40)
        )
        (workspace / name).write_text(body)
        names.append(name)
    return names


async def grown_session(server: Any, workspace: Path) -> Any:
    """A 16k session past its threshold: turns that read a file, answer at length, or chat."""
    from agent import compaction
    from agent.turn.loop import run_turn
    from tests.fake_openai import Text, ToolCalls

    state = common.make_state(server.base_url, workspace, WINDOW)
    files = write_files(workspace, 12)
    n = 0
    while compaction.context_tokens(state) < compaction.auto_limit(state):
        path = files[n % len(files)]
        answer = Text(f"Answer {n}: " + "the change keeps each record and its step in order; " * 30)
        if n % 4 != 0:  # chatter three turns in four: clearing is not enough, a summary is written
            server.script(answer)
            outcome = await run_turn(state, f"[{n}] and what about the order of the records? " * 4)
        else:
            server.script(ToolCalls([("read_file", {"path": path})]), answer)
            outcome = await run_turn(state, f"[{n}] look at {path} and explain it")
        assert outcome.ok, outcome
        n += 1
    return state


def summarize(seen: set[tuple[str, int, str]]) -> tuple[int, int, int]:
    """Functions (defs and lambdas), the modules they are in, and every code object (comprehensions too)."""
    functions = {f for f in seen if f[2].rsplit(".", 1)[-1] not in COMPREHENSIONS}
    return len(functions), len({filename for filename, _line, _name in functions}), len(seen)


async def one(kind: str) -> tuple[set[tuple[str, int, str]], str]:
    import compact
    from agent.events import CompactionFinished
    from tests.fake_openai import Text

    with common.workdir("compaction-shape-") as ws, common.server() as server:
        state = await grown_session(server, ws)
        server.script(Text(common.summary_text(words=600)))
        if kind == "auto":
            seen, _ = await traced(lambda: compact.auto_compact_if_needed(state))
        else:
            seen, _ = await traced(lambda: compact.run_compact(state))
        finished = state.emit.of(CompactionFinished)
        assert len(finished) == 1, f"{kind}: no compaction ({[type(e).__name__ for e in state.emit.events][-5:]})"
        await state.scratch.agent.model.client.close()
        return seen, finished[0].tier


async def run(listing: bool) -> None:
    report = common.Report("compaction_shape: the compaction's modules, lines and functions per compaction")
    report.note((__doc__ or "").strip())
    modules, lines = package_size()
    entry = [(name, lines_of(ROOT / name)) for name in ENTRY_POINTS if (ROOT / name).exists()]
    kinds = [sum(column) for column in zip(*(line_kinds(p) for p in sorted(PACKAGE.glob("*.py"))), strict=True)]
    rows = [["agent/compaction/", modules, lines, *kinds]]
    rows += [[name, 1, n, *line_kinds(ROOT / name)] for name, n in entry]
    rows += [[f"  {p.name}", 1, lines_of(p), *line_kinds(p)] for p in sorted(PACKAGE.glob("*.py"))]
    report.table(["part", "modules", "lines", "code", "docstrings", "comments", "blank"], rows, title="size")
    results = {kind: await one(kind) for kind in ("auto", "manual")}
    table = []
    for kind, (seen, tier) in results.items():
        table.append([kind, tier, *summarize(seen)])
    report.table(
        ["compaction", "tier", "distinct functions", "modules they are in", "with comprehensions"],
        table,
        title=f"one compaction at a {WINDOW:,}-token window (sys.settrace, the project's own functions)",
    )
    by_part: dict[str, int] = {}
    for filename, _line, name in results["auto"][0]:
        if name.rsplit(".", 1)[-1] not in COMPREHENSIONS:
            parts = Path(filename).relative_to(ROOT).parts
            part = "/".join(parts[:2]) + "/" if len(parts) > 2 else f"{parts[0]}/*.py" if len(parts) == 2 else parts[0]
            by_part[part] = by_part.get(part, 0) + 1
    report.table(
        ["folder or module", "distinct functions"],
        sorted(by_part.items(), key=lambda item: -item[1]),
        title="where the functions of one automatic compaction are",
    )
    outside = sum(n for part, n in by_part.items() if part != "agent/compaction/")
    report.figure("functions_per_automatic_compaction_outside_the_package", outside, "")
    report.figure("compaction_package_modules", modules, "", f"<= {MAX_MODULES}", modules <= MAX_MODULES)
    report.figure("compaction_package_lines", lines, "", f"<= {MAX_LINES:,}", lines <= MAX_LINES)
    report.figure("compaction_package_code_lines", kinds[0], "")
    report.figure(
        "compaction_flow_lines", lines_of(PACKAGE / "flow.py"), "", "<= ~150", lines_of(PACKAGE / "flow.py") <= 150
    )
    report.figure("compaction_entry_point_lines", sum(n for _name, n in entry), "")
    auto_functions = summarize(results["auto"][0])[0]
    report.figure(
        "functions_per_automatic_compaction", auto_functions, "", f"<= {MAX_FUNCTIONS}", auto_functions <= MAX_FUNCTIONS
    )
    report.figure("functions_per_manual_compaction", summarize(results["manual"][0])[0], "")
    if listing:
        for kind, (seen, _tier) in results.items():
            print(f"\n{kind}:")
            for filename, line, name in sorted(seen):
                print(f"  {Path(filename).relative_to(ROOT)}:{line} {name}")
    report.finish()


if __name__ == "__main__":

    def _listing(p: Any) -> None:
        p.add_argument("--list", action="store_true", help="print every function that ran")

    args = common.parse_args(__doc__, _listing)
    asyncio.run(run(args.list))
