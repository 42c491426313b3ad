import subprocess
import tracemalloc
from pathlib import Path

from pydantic_ai import Agent, RunContext, ToolReturn
from pydantic_ai.messages import (
    FunctionToolResultEvent,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

import session
from agent.state.app import AppState
from agent.tools import builtin as tools
from agent.tools import reading
from agent.tools.answers import cap_text
from agent.tools.builtin import (
    TOOLS,
    edit_file,
    grep,
    list_files,
    read_file,
    write_file,
)


def _text(result: ToolReturn | str) -> str:
    return result.return_value if isinstance(result, ToolReturn) else result  # type: ignore[return-value]


def _diff(result: ToolReturn | str) -> str:
    assert isinstance(result, ToolReturn), result
    return result.metadata["diff"]


# --- cap_text -------------------------------------------------------------------------


def test_cap_text() -> None:
    assert cap_text("short", 10) == "short"
    capped = cap_text("a" * 50 + "b" * 50, 20)
    assert capped.startswith("a" * 10) and capped.endswith("b" * 10)
    assert "[... 80 characters cut ...]" in capped


# --- read_file -----------------------------------------------------------------------------


def test_read_file_numbered(ctx: RunContext[AppState], workspace: Path) -> None:
    (workspace / "a.txt").write_text("one\ntwo\r\nthree")
    assert read_file(ctx, "a.txt") == "     1\tone\n     2\ttwo\n     3\tthree"
    assert workspace / "a.txt" in ctx.deps.read_file_state


def test_read_file_offset_limit(ctx: RunContext[AppState], workspace: Path) -> None:
    (workspace / "a.txt").write_text("".join(f"line {i}\n" for i in range(1, 11)))
    out = read_file(ctx, "a.txt", offset=3, limit=2)
    assert out == "     3\tline 3\n     4\tline 4\n[more lines follow; the file has 10 lines; continue with offset=5]"
    assert reading.read_span(out) == (3, 4, 10)
    assert reading.read_span(read_file(ctx, "a.txt", offset=9)) == (9, 10, 10)  # the last part: no marker
    assert reading.read_span(read_file(ctx, "a.txt")) is None  # the whole file
    assert read_file(ctx, "a.txt", offset=10) == "    10\tline 10"
    assert read_file(ctx, "a.txt", offset=11).startswith("Error: offset=11 is past the end of the file (10 lines)")
    assert read_file(ctx, "a.txt", offset=0).startswith("Error: ")


def test_read_file_errors(ctx: RunContext[AppState], workspace: Path) -> None:
    (workspace / "bin").write_bytes(b"\x89PNG\0\0data")
    (workspace / "dir").mkdir()
    (workspace / "empty").write_text("")
    assert read_file(ctx, "missing.txt") == "Error: no such file: missing.txt"
    assert "binary" in read_file(ctx, "bin")
    assert "directory" in read_file(ctx, "dir")
    assert "outside the workspace" in read_file(ctx, "../x")
    assert read_file(ctx, "empty") == "[the file is empty]"
    assert "bin" not in ctx.deps.read_file_state


def test_read_file_archive_allowed(ctx: RunContext[AppState], workspace: Path) -> None:
    archive = session.archive_dir(workspace)
    archive.mkdir(parents=True, exist_ok=True)
    (archive / "old.jsonl").write_text('{"x": 1}\n')
    assert read_file(ctx, str(archive / "old.jsonl")) == '     1\t{"x": 1}'


async def test_write_into_archive_refused(ctx: RunContext[AppState], workspace: Path) -> None:
    archive = session.archive_dir(workspace)
    archive.mkdir(parents=True, exist_ok=True)
    target = archive / "old.jsonl"
    target.write_text("{}\n")
    read_file(ctx, str(target))
    result = await write_file(ctx, str(target), "forged")
    assert _text(result).startswith("Error: ") and "data folder" in _text(result)
    result = await edit_file(ctx, str(target), "{}", "[]")
    assert "data folder" in _text(result)
    assert target.read_text() == "{}\n"


def test_read_file_huge_single_line_capped(ctx: RunContext[AppState], workspace: Path) -> None:
    (workspace / "big.txt").write_bytes(b"x" * 5_000_000 + b"\nend\n")
    out = read_file(ctx, "big.txt")
    assert len(out) < 3000
    assert "[... line cut at 2000 characters]" in out and out.endswith("     2\tend")


def test_read_file_output_capped_with_offset_note(ctx: RunContext[AppState], workspace: Path) -> None:
    (workspace / "wide.txt").write_text(("y" * 150 + "\n") * 1500)
    out = read_file(ctx, "wide.txt")
    assert len(out) <= reading.READ_CAP + 200
    last = out.splitlines()[-1]
    # Issue 20: the cap relative to the window (16,384 tokens of a 131k one) comes before 100k characters.
    assert last.startswith(
        "[output capped at 16384 tokens (a share of the context window); the file has 1500 lines; continue with offset="
    )
    offset = int(last.rsplit("=", 1)[1].rstrip("]"))
    assert read_file(ctx, "wide.txt", offset=offset).startswith(f"{offset:6}\t")


def test_read_file_bounded_memory(ctx: RunContext[AppState], workspace: Path) -> None:
    line = b"z" * 99 + b"\n"
    with (workspace / "huge.txt").open("wb") as f:
        f.write(b"w" * 20_000_000 + b"\n")  # one 20 MB line too
        f.write(line * 300_000)
    tracemalloc.start()
    try:
        out = read_file(ctx, "huge.txt", limit=100_000)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert "[output capped" in out
    assert peak < 5_000_000
    assert workspace / "huge.txt" in ctx.deps.read_file_state


# --- write_file / edit_file ----------------------------------------------------------------


async def test_write_new_file_with_diff(ctx: RunContext[AppState], workspace: Path) -> None:
    ctx.deps.file_history.make_checkpoint(0, "turn")
    result = await write_file(ctx, "pkg/new.py", "print(1)\n")
    assert _text(result) == "Created pkg/new.py (1 line)"
    assert (workspace / "pkg/new.py").read_text() == "print(1)\n"
    diff = _diff(result)
    assert "+++ b/pkg/new.py" in diff and "+print(1)" in diff
    assert ctx.deps.read_file_state.check_fresh(workspace / "pkg/new.py") is None
    assert ctx.deps.file_history.checkpoints[-1].files == {(workspace / "pkg/new.py").resolve(): None}


async def test_overwrite_requires_fresh_read(ctx: RunContext[AppState], workspace: Path) -> None:
    path = workspace / "a.txt"
    path.write_text("old\n")
    assert "read it first with read_file" in _text(await write_file(ctx, "a.txt", "new\n"))
    read_file(ctx, "a.txt")
    path.write_text("changed by the user\n")
    assert "changed on disk" in _text(await write_file(ctx, "a.txt", "new\n"))
    assert path.read_text() == "changed by the user\n"
    read_file(ctx, "a.txt")
    result = await write_file(ctx, "a.txt", "new\n")
    assert _text(result) == "Wrote a.txt (1 line)"
    assert "-changed by the user\n+new" in _diff(result)


async def test_write_outside_refused(ctx: RunContext[AppState], tmp_path: Path) -> None:
    assert "outside the workspace" in _text(await write_file(ctx, "../evil.txt", "x"))
    assert "outside the workspace" in _text(await write_file(ctx, str(tmp_path / "evil.txt"), "x"))
    assert not (tmp_path / "evil.txt").exists()


async def test_edit_unique_match(ctx: RunContext[AppState], workspace: Path) -> None:
    path = workspace / "m.py"
    path.write_text("def f():\n    return 1\n")
    assert "read it first" in _text(await edit_file(ctx, "m.py", "return 1", "return 2"))
    read_file(ctx, "m.py")
    result = await edit_file(ctx, "m.py", "return 1", "return 2")
    assert _text(result) == "Edited m.py: replaced 1 occurrence"
    assert path.read_text() == "def f():\n    return 2\n"
    assert "-    return 1\n+    return 2" in _diff(result)
    # The agent knows what it wrote: a second edit needs no new read.
    assert _text(await edit_file(ctx, "m.py", "f()", "g()")) == "Edited m.py: replaced 1 occurrence"


async def test_edit_errors(ctx: RunContext[AppState], workspace: Path) -> None:
    path = workspace / "m.py"
    path.write_text("x = 1\nx = 1\n    value = compute(a, b)\n")
    read_file(ctx, "m.py")
    many = _text(await edit_file(ctx, "m.py", "x = 1", "x = 2"))
    assert many.startswith("Error: old_string occurs 2 times in m.py") and "replace_all" in many
    indent = _text(await edit_file(ctx, "m.py", "value = compute(a, b)\n  more", "v"))
    assert indent.startswith("Error: old_string was not found") and "Line 3" in indent
    close = _text(await edit_file(ctx, "m.py", "value = compute(a, c)", "v"))
    assert "closest line is 3" in close
    assert "no such file" in _text(await edit_file(ctx, "nope.py", "a", "b"))
    assert "empty" in _text(await edit_file(ctx, "m.py", "", "b"))
    assert "identical" in _text(await edit_file(ctx, "m.py", "x", "x"))
    result = await edit_file(ctx, "m.py", "x = 1", "x = 2", replace_all=True)
    assert _text(result) == "Edited m.py: replaced 2 occurrences"
    assert path.read_text().startswith("x = 2\nx = 2\n")


async def test_edit_stale_refused(ctx: RunContext[AppState], workspace: Path) -> None:
    path = workspace / "m.py"
    path.write_text("a = 1\n")
    read_file(ctx, "m.py")
    path.write_text("a = 1\nb = 2\n")
    assert "changed on disk since you read it" in _text(await edit_file(ctx, "m.py", "a = 1", "a = 3"))
    assert path.read_text() == "a = 1\nb = 2\n"


async def test_edit_crlf_and_non_utf8_preserved(ctx: RunContext[AppState], workspace: Path) -> None:
    path = workspace / "w.txt"
    path.write_bytes(b"caf\xe9\r\none\r\ntwo\r\n")
    read_file(ctx, "w.txt")
    result = await edit_file(ctx, "w.txt", "one\ntwo", "uno\ndos")
    assert _text(result).startswith("Edited")
    assert path.read_bytes() == b"caf\xe9\r\nuno\r\ndos\r\n"


async def test_undo_after_tool_writes(ctx: RunContext[AppState], workspace: Path) -> None:
    (workspace / "keep.txt").write_text("original\n")
    ctx.deps.file_history.make_checkpoint(0, "turn")
    read_file(ctx, "keep.txt")
    await edit_file(ctx, "keep.txt", "original", "edited")
    await write_file(ctx, "made.txt", "new\n")
    checkpoint = ctx.deps.file_history.undo(workspace, "en")
    assert checkpoint is not None
    assert (workspace / "keep.txt").read_text() == "original\n"
    assert not (workspace / "made.txt").exists()


# --- through an Agent run ------------------------------------------------------------------


async def test_agent_run_diff_in_metadata_not_sent_to_model(state: AppState, workspace: Path) -> None:
    seen: list[ToolReturnPart] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart("write_file", {"path": "x.py", "content": "a\n"}, "c1")])
        last = messages[-1]
        assert isinstance(last, ModelRequest)
        seen.extend(p for p in last.parts if isinstance(p, ToolReturnPart))
        return ModelResponse(parts=[TextPart("done")])

    agent = Agent(FunctionModel(model), deps_type=AppState, tools=TOOLS)
    events: list[FunctionToolResultEvent] = []
    async with agent.iter("go", deps=state) as run:
        async for node in run:
            if agent.is_call_tools_node(node):
                async with node.stream(run.ctx) as stream:
                    events.extend([e async for e in stream if isinstance(e, FunctionToolResultEvent)])
    assert [e.part.content for e in events] == ["Created x.py (1 line)"]
    assert "+a" in events[0].part.metadata["diff"]
    assert seen[0].content == "Created x.py (1 line)"
    assert "+a" not in seen[0].model_response_str()


def test_tool_names_and_descriptions() -> None:
    assert [t.name for t in TOOLS] == ["read_file", "write_file", "edit_file", "list_files", "grep", "run_command"]
    assert all(t.description and "Args:" not in t.description for t in TOOLS)


# --- list_files / grep ---------------------------------------------------------------------


def _git_repo(workspace: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=workspace, check=True)
    (workspace / ".gitignore").write_text("build/\n*.log\n")


def _tree(workspace: Path) -> None:
    for rel, text in {
        "src/app.py": "def main():\n    return 'needle'\n",
        "src/util.py": "x = 1\n",
        "build/out.py": "needle\n",
        "debug.log": "needle\n",
        "README.md": "Needle here\n",
    }.items():
        (workspace / rel).parent.mkdir(parents=True, exist_ok=True)
        (workspace / rel).write_text(text)
    (workspace / "blob.bin").write_bytes(b"needle\0\0")


def test_list_files_respects_gitignore(ctx: RunContext[AppState], workspace: Path) -> None:
    _git_repo(workspace)
    _tree(workspace)
    assert list_files(ctx, "**/*.py") == "src/app.py\nsrc/util.py"
    assert list_files(ctx) == ".gitignore\nREADME.md\nblob.bin\nsrc/app.py\nsrc/util.py"
    assert list_files(ctx, "*.md") == "README.md"
    assert list_files(ctx, "*.rs") == "No files match *.rs"
    assert list_files(ctx, "../**").startswith("Error: ")


def test_list_files_without_git_and_cap(ctx: RunContext[AppState], workspace: Path, monkeypatch) -> None:
    _tree(workspace)
    assert "build/out.py" in list_files(ctx, "**/*.py")
    monkeypatch.setattr(tools, "LIST_CAP", 2)
    out = list_files(ctx)
    assert out.splitlines()[:2] == ["README.md", "blob.bin"]
    assert "[... 4 more files not shown" in out


async def test_grep(ctx: RunContext[AppState], workspace: Path) -> None:
    _git_repo(workspace)
    _tree(workspace)
    assert await grep(ctx, "needle") == "src/app.py:2:    return 'needle'"
    assert await grep(ctx, "(?i)needle") == "README.md:1:Needle here\nsrc/app.py:2:    return 'needle'"
    assert await grep(ctx, "x", "src/util.py") == "src/util.py:1:x = 1"
    assert await grep(ctx, "zzz") == "No matches"
    assert (await grep(ctx, "(")).startswith("Error: invalid regular expression")
    assert "outside" in await grep(ctx, "x", "..")
    assert "no such file" in await grep(ctx, "x", "nope")


async def test_grep_cap(ctx: RunContext[AppState], workspace: Path, monkeypatch) -> None:
    (workspace / "many.txt").write_text("hit\n" * 50)
    monkeypatch.setattr(tools, "GREP_CAP", 5)
    lines = (await grep(ctx, "hit")).splitlines()
    assert len(lines) == 6 and lines[-1].startswith("[stopped after 5 matches")


async def test_grep_finds_matches_past_the_shown_part(ctx: RunContext[AppState], workspace: Path) -> None:
    (workspace / "wide.txt").write_text("x" * 1000 + "needle\n")
    out = await grep(ctx, "needle")
    assert out.startswith("wide.txt:1:xxx") and out.endswith(" [...]") and len(out) < 600
