"""Issue 19, finding 3: the diff a write shows is bounded and computed off the event loop, so a
file shaped to make difflib quadratic (old lines 0..n, new ones interleaved) cannot freeze the REPL."""

from __future__ import annotations

import difflib
import os
import subprocess

from hypothesis import example, given, settings
from hypothesis import strategies as st
from pydantic_ai import ToolReturn

from agent.tools.builtin import edit_file, read_file, write_file
from agent.tools.file_diff import _diff


def _interleaved(n: int) -> tuple[str, str]:
    return "".join(f"{i}\n" for i in range(n)), "".join(f"{i}\nx{i}\n" for i in range(n))


async def test_a_pathological_write_is_summarised(ctx, workspace):
    for n in (8_000, 20_000):
        old, new = _interleaved(n)
        (workspace / f"f{n}.txt").write_text(old)
        read_file(ctx, f"f{n}.txt")
        result = await write_file(ctx, f"f{n}.txt", new)
        assert isinstance(result, ToolReturn), result
        assert (workspace / f"f{n}.txt").read_text() == new
        diff = result.metadata["diff"]
        assert f"no line-by-line diff: {n} old and {2 * n} new lines" in diff
        # What the new file adds is listed all the same, each line after its number.
        assert "\n+2: x0\n" in diff and f"\n+{2 * n}: x{n - 1}\n" in diff


async def test_an_edit_in_a_long_file_keeps_its_line_numbers(ctx, workspace):
    old = "".join(f"line {i}\n" for i in range(20_000))
    (workspace / "long.txt").write_text(old)
    read_file(ctx, "long.txt")
    result = await edit_file(ctx, "long.txt", "line 15000\n", "changed\n")
    expected = "".join(
        difflib.unified_diff(
            old.splitlines(True), old.replace("line 15000\n", "changed\n").splitlines(True), "a/long.txt", "b/long.txt"
        )
    )
    assert result.metadata["diff"] == expected
    assert "@@ -14998,7 +14998,7 @@" in expected


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.sampled_from(["a\n", "b\n", "c\n", "d", ""]), max_size=40),
    st.lists(st.sampled_from(["a\n", "b\n", "x\n", "y\n"]), max_size=10),
    st.integers(0, 40),
    st.integers(0, 5),
)
# Found by CI: difflib aligned the cut-down middle otherwise than the cut ends assumed, and a hunk lost
# its trailing context at the cut, which git apply reads as "at the end of the file".
@example(lines=["b\n", "b\n", "a\n", "a\n", "a\n"], inserted=["a\n", "a\n"], at=1, dropped=0)
def test_the_diff_applies_with_git_apply(tmp_path_factory, lines, inserted, at, dropped):
    # git's own applier (no fuzz, checks "\ No newline at end of file") rather than GNU patch: git is one of
    # the three things the README asks for, patch is not on a minimal system, and the Python appliers
    # (whatthepatch, patch-ng) ignore the missing final newline this test is here to check.
    old = "".join(lines)
    new = "".join(lines[:at] + inserted + lines[at + dropped :])
    diff = _diff(old.encode(), new.encode(), "f", "en")
    if old == new:
        assert diff == ""
        return
    folder = tmp_path_factory.mktemp("apply")
    (folder / "f").write_text(old)
    # Outside any repository git apply works as patch does; the ceiling keeps it from finding one above.
    env = {**os.environ, "GIT_CEILING_DIRECTORIES": str(folder.parent)}
    done = subprocess.run(
        ["git", "apply", "--whitespace=nowarn", "-"], input=diff, text=True, cwd=folder, capture_output=True, env=env
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert (folder / "f").read_text() == new


async def test_a_risky_write_whose_change_is_too_long_to_show_is_not_asked_about(ctx, workspace):
    """An instructions file is never written on an approval the user could not read: a change longer
    than the question shows whole is refused before anyone is asked."""
    from agent.events import ApprovalRequest
    from tests.fake_ui import FakeUI
    from tests.robustness.attack_kit import Approver

    old = "".join(f"rule {i}\n" for i in range(3_000))
    (workspace / "AGENTS.md").write_text(old)
    ctx.deps.emit = FakeUI(approve=Approver("y"))
    read_file(ctx, "AGENTS.md")
    new = "".join(f"rule {i} (stricter, and a long reason that makes the listing long)\n" for i in range(3_000))
    answer = await write_file(ctx, "AGENTS.md", new)
    assert "too long to show the user whole" in str(answer) and "nothing was written" in str(answer)
    assert ctx.deps.emit.of(ApprovalRequest) == []
    assert (workspace / "AGENTS.md").read_text() == old


async def test_an_ordinary_write_cut_for_the_question_is_not_called_whole(ctx, workspace):
    import io

    from rich.console import Console

    from agent.events import ApprovalRequest
    from ui.render import Renderer

    seen: list[ApprovalRequest] = []
    out = io.StringIO()

    async def no(question: str, fresh: bool, edit: str | None = None) -> str:
        return "n"

    renderer = Renderer(Console(file=out, width=200), "en", read_answer=no)

    def emit(event):
        if isinstance(event, ApprovalRequest):
            seen.append(event)
        return renderer(event)

    ctx.deps.emit = emit
    ctx.deps.permissions.mode = "default"
    answer = await write_file(ctx, "data.txt", "".join(f"row {i}\n" for i in range(20_000)))
    assert "declined" in str(answer)
    [asked] = seen
    assert not asked.whole and "characters cut" in asked.detail
    assert "NOT shown whole" in out.getvalue()
