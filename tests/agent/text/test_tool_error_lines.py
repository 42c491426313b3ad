"""The tools' failures on the REPL's `⎿` line in the user's language (agent.text.i18n_tools): every
literal failure text of agent/tools/ has its wording there, and a line is rendered with its values."""

from __future__ import annotations

import ast
from io import StringIO

from rich.console import Console

from agent.events import ToolResult
from agent.text.i18n import t
from agent.text.i18n_tools import TOOL_TEXTS, match_error
from tests.test_architecture import ROOT
from ui.render import Renderer, error_line

# The exceptions whose text becomes "Error: <text>" for the model, and the functions whose returned
# text does (a refused write, a stale read).
FAILURES = {"Refused", "ToolError", "PathError"}
FAILURE_RETURNS = {("agent/tools/write_guard.py", "refusal"), ("agent/state/file_state.py", "check_fresh")}
VALUE = " <value>"  # what an f-string's value is in a sample (with a space: edit_file's hint starts with one)


def _sample(node: ast.expr) -> str | None:
    """The text a literal or f-string makes, each value a placeholder; None if not one."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else VALUE for v in node.values)
    return None


def failure_texts() -> dict[str, str]:
    """sample -> where, for every literal failure text of the tools."""
    found = {}
    paths = [*sorted((ROOT / "agent" / "tools").glob("*.py")), ROOT / "agent" / "state" / "file_state.py"]
    for path in paths:
        name = path.relative_to(ROOT).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        pieces = {id(v) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for v in node.values}
        for node in ast.walk(tree):
            if id(node) in pieces:
                continue  # a piece of an f-string: the whole is looked at
            texts = []
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") in FAILURES and node.args:
                texts.append(_sample(node.args[0]))
            elif (
                isinstance(node, ast.JoinedStr | ast.Constant)
                and (text := _sample(node))
                and text.startswith("Error: ")
            ):
                texts.append(text.removeprefix("Error: "))
            elif isinstance(node, ast.FunctionDef) and (name, node.name) in FAILURE_RETURNS:
                texts += [_sample(r.value) for r in ast.walk(node) if isinstance(r, ast.Return) and r.value]
            for text in texts:
                first = (text or "").split("\n")[0]
                if first.replace(VALUE, "").strip():  # "Error: {exc}": the text comes from elsewhere
                    found[first] = f"{name}:{node.lineno}"
    return found


def test_the_scan_finds_the_known_failures():
    texts = failure_texts()
    assert "the user declined to run this command" in texts
    assert f"{VALUE} is outside the workspace {VALUE}" in texts  # workspace.py's PathError
    assert f"you have not read {VALUE}; read it first with read_file" in texts  # file_state.check_fresh
    assert len(texts) > 30


def test_every_literal_failure_of_the_tools_has_its_wording_in_both_languages():
    missing = {where: text for text, where in failure_texts().items() if match_error(text) is None}
    assert missing == {}, "add the wording to agent/text/i18n_tools.py's TOOL_TEXTS"


def test_a_line_keeps_its_values_and_the_longest_wording_wins():
    assert match_error("no such file: a b.txt; use write_file to create it") == (
        "te_no_such_file_edit",
        {"path": "a b.txt"},
    )
    assert match_error("no such file: notes.txt") == ("te_no_such_file", {"path": "notes.txt"})
    copy = " Copy the text exactly as read_file shows"
    assert match_error("old_string was not found in a.b.txt." + copy)[1] == {"path": "a.b.txt", "hint": ""}
    hint = " The closest line is 3: 'x = 1.5'."
    assert match_error(f"old_string was not found in notes.txt.{hint}{copy}")[1] == {"path": "notes.txt", "hint": hint}
    assert error_line("Error: src/x.py is outside the workspace /ws", "zh") == "错误：src/x.py 在工作区 /ws 之外"
    assert error_line("Error: something new", "zh") == "错误：something new"  # the detail as the tool said it
    assert (
        error_line("Error: the user declined to run this command", "en")
        == "Error: the user declined to run this command"
    )
    for key, (en, zh) in TOOL_TEXTS.items():
        assert en and zh and (key == "te_http" or en != zh), key


def test_the_repl_draws_a_declined_command_in_chinese():
    out = StringIO()
    renderer = Renderer(Console(file=out, width=120), "zh")
    renderer(ToolResult("c1", "run_command", "Error: the user declined to run this command", is_error=True))
    renderer.stop_spinner()
    assert f"⎿ {t('tool_error', 'zh', text='你拒绝了运行这条命令')}" in out.getvalue()
