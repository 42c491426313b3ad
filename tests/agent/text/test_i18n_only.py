"""Issue 15: every user-facing text goes through agent.text.i18n.t. An inline `lang == "zh"` branch is a
text only one reader of the code knows is there: none may come back in the project's source."""

from __future__ import annotations

import ast

from tests.test_architecture import ROOT, source_files

LANGS = ("zh", "en")
# Where choosing by language is the job: the table's lookup and the locale's guess.
ALLOWED = {"agent/text/i18n.py"}


def language_branches(source: str) -> list[int]:
    """Line numbers of comparisons with a language code (`lang == "zh"`, `"en" != x`, `x in ("zh",)`)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Compare):
            continue
        for side in (node.left, *node.comparators):
            values = side.elts if isinstance(side, ast.Tuple | ast.List | ast.Set) else [side]
            if any(isinstance(v, ast.Constant) and v.value in LANGS for v in values):
                found.append(node.lineno)
                break
    return found


def test_the_check_finds_inline_language_branches():
    assert language_branches('label = "摘要" if self.lang == "zh" else "Summary"\n') == [1]
    assert language_branches('zh = state.lang == "zh"\nif "en" != lang:\n    pass\n') == [1, 2]
    assert language_branches('if lang in ("zh", "zh-tw"):\n    pass\n') == [1]
    assert language_branches('text = t("summary", lang)\nchoices = ("zh", "en")\n') == []


def test_no_inline_language_branch_in_the_source():
    branches = {}
    for path in source_files(ROOT):
        name = path.relative_to(ROOT).as_posix()
        if name not in ALLOWED and (lines := language_branches(path.read_text(encoding="utf-8"))):
            branches[name] = lines
    assert branches == {}, f"put the texts in agent/text/i18n_<topic>.py and call t(): {branches}"


def test_no_key_is_in_two_topic_tables():
    """agent.text.i18n merges one table per topic into TEXTS: a key in two would silently lose one of its
    texts. Read from the files, so that a key written twice in one table is caught as well."""
    from agent.text.i18n import TABLES, TEXTS

    seen: dict[str, str] = {}
    twice = []
    for path in sorted((ROOT / "agent" / "text").glob("i18n_*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Dict) and node.keys and all(isinstance(k, ast.Constant) for k in node.keys):
                for key in (k.value for k in node.keys):
                    if isinstance(key, str) and key in seen:
                        twice.append((key, seen[key], path.name))
                    seen.setdefault(key, path.name)
    assert twice == []
    assert len(TEXTS) > 600 and sum(len(table) for table in TABLES) == len(TEXTS)


def test_every_command_is_described_in_both_languages():
    from agent.text.i18n import t
    from ui.commands import unique_commands

    for cmd in unique_commands():
        en, zh = cmd.describe("en"), cmd.describe("zh")
        assert en and zh and en != zh, cmd.name
        assert bool(cmd.hint("en")) == bool(cmd.hint("zh")) == cmd.takes_args, cmd.name
    # The word typed after /compact is not translated.
    assert "/compact undo" in t("cmd_compact", "zh", undo="undo")
