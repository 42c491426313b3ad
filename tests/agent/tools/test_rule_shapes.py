"""Permission rules against the shapes a hostile model gives a command (tests/robustness/attacks_rules.py
plays the same through `-p`): each shape is first run under /bin/sh to show it does what it hides,
then put to the real matcher. Deny and ask rules see every shape; allow rules match only commands
the parser fully resolved; "always for this project" saves rules that match exactly their command."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agent.tools.permissions import Permissions, decide
from agent.tools.rule_match import parse_rule
from tests.robustness.attacks_rules import ALLOW_BYPASSES, ALLOW_RULES, DENY_SHAPES


def perms(**rules: list[str]) -> Permissions:
    p = Permissions()
    p.rules = {kind: [parse_rule(r) for r in rules.get(kind, [])] for kind in ("allow", "ask", "deny")}
    return p


def verdict(p: Permissions, command: str) -> str:
    return decide(p, "run_command", Path("."), command=command)[0]


def sh(command: str, cwd) -> None:
    subprocess.run(["/bin/sh", "-c", command], cwd=cwd, capture_output=True, timeout=30, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("shape", DENY_SHAPES)
def test_each_shape_deletes_its_file_under_sh(shape, tmp_path):
    if shape.startswith("time") and shutil.which("time") is None:
        pytest.skip("dash runs /usr/bin/time, which a minimal Debian lacks")
    (tmp_path / "victim").write_text("x")
    sh(shape.replace("@", "victim"), tmp_path)
    assert not (tmp_path / "victim").exists()


@pytest.mark.parametrize("rule", ["Bash(rm:*)", "Bash(rm *)", "run_command(rm -f:*)"])
@pytest.mark.parametrize("shape", DENY_SHAPES)
def test_deny_and_ask_rules_see_each_shape(shape, rule):
    command = shape.replace("@", "victim")
    assert verdict(perms(deny=[rule], allow=["Bash"]), command) == "deny"
    assert verdict(perms(ask=[rule], allow=["Bash"]), command) == "ask"


# Fail closed must not mean "deny everything": these run nothing the rule names, and are not denied.
HARMLESS = [
    "ls -la",
    "git status",
    "echo rm",
    "grep -rn 'rm -f' .",
    "rmdir build",
    "timeout 5 ls",
    "sh -c 'ls'",
    "find . -name '*.py'",
    "find . -name x -exec ls {} +",
    "env FOO=1 make",
    "xargs -n1 echo",
    "git log HEAD~1",
    "cat <<EOF\nhello $USER\nEOF",
    "[ -f x ] && ls",
    "f() { ls; }; f",
    "npm run build 2>&1 | tail -5",
    "nice -n 5 make",
    "echo rm -f x | tee notes",
    "ls *.py",
    "command -v git",
]


@pytest.mark.parametrize("command", HARMLESS)
def test_a_deny_rule_leaves_other_commands_alone(command):
    assert verdict(perms(deny=["Bash(rm:*)"]), command) == "none"


@pytest.mark.parametrize("shape", ALLOW_BYPASSES)
def test_a_hidden_substitution_really_runs_under_sh(shape, tmp_path):
    sh(shape.replace("@", "made"), tmp_path)
    assert (tmp_path / "made").exists()


@pytest.mark.parametrize("shape", ALLOW_BYPASSES)
def test_a_wildcard_allow_rule_never_covers_a_hidden_substitution(shape):
    assert verdict(perms(allow=ALLOW_RULES), shape.replace("@", "made")) == "none"


@pytest.mark.parametrize(
    ("rule", "command", "allowed"),
    [
        ("Bash(git status:*)", "git status", True),
        ("Bash(git status:*)", "git status -s -- ~/src 'a b'", True),
        ("Bash(git status:*)", "git status ~other", False),  # another user's home: the shell decides it
        ("Bash(git status:*)", "git status *", False),  # a glob the shell expands (to `--output=...`?)
        ("Bash(git diff:*)", "git diff HEAD~1", True),
        ("Bash(npm test:*)", "timeout 60 npm test", True),  # a plain wrapper in front, as Claude Code
        ("Bash(npm test:*)", "nice -n 5 nohup npm test -- --ci", True),
        ("Bash(npm test:*)", "env LD_PRELOAD=x.so npm test", False),  # env is no plain wrapper
        ("Bash(npm test:*)", "xargs npm test", False),
        ("Bash(npm test:*)", "\\time -o ~/.bashrc npm test", False),  # /usr/bin/time -o writes a file
        ("Bash(ls*)", "lsof -i", True),  # no space before the star: no word boundary
        ("Bash(git log *)", "git log --oneline 'a b'", True),
        ("Bash(git log *)", "'git log' x", False),  # one word: a program named "git log"
        ("Bash(echo a\\*b *)", "echo 'a*b' c", True),  # `\*` is a literal star
        ("Bash(echo a\\*b *)", "echo axb c", False),
        ("Bash(echo a\\*b *)", "echo a*b c", False),  # unquoted, the shell expands it
        ("Bash(rm \\*.pyc)", "rm *.pyc", True),  # exact, with an escaped star
        ("Bash(rm \\*.pyc)", "rm -rf precious x.pyc", False),
    ],
)
def test_claude_codes_rule_forms_still_mean_what_they_say(rule, command, allowed, workspace):
    assert (decide(perms(allow=[rule]), "run_command", workspace, command=command)[0] == "allow") is allowed


SAVED = ["rm *.pyc", "rm '*.pyc'", "ls a\\*b", "echo \\\\* done", "find . -name '*.py' -exec ls {} +", "a:*"]


@pytest.mark.parametrize("command", SAVED)
def test_a_saved_command_matches_itself_and_nothing_else(command):
    from agent.tools.rule_match import command_allows, escape_command

    spec = escape_command(command)
    assert command_allows(spec, command)
    others = [c for c in [*SAVED, "rm -rf precious x.pyc", "rm x.pyc", "a:b", command + " x"] if c != command]
    assert [c for c in others if command_allows(spec, c)] == []


@pytest.mark.parametrize("name", ["notes[1].md", "a*.txt", "q?.py", "{a,b}.js", "plain.txt", "trail "])
def test_a_saved_path_matches_that_file_only(name, workspace):
    from agent.tools.rule_match import escape_path, path_matches

    spec = escape_path(name)
    assert path_matches(spec, workspace / name, workspace)
    others = ["notes1.md", "ab.txt", "a.txt", "qx.py", "a.js", "sub/" + name, "trail", "x" + name]
    assert [o for o in others if o != name and path_matches(spec, workspace / o, workspace)] == []


def test_the_sandbox_asks_the_same_question():
    """A sandbox that runs commands unasked stops only where a deny or ask rule matches: one answer."""
    from agent.tools.permissions import command_decision

    p = perms(deny=["Bash(rm:*)"], ask=["Bash(git push:*)"], allow=["Bash(ls:*)"])
    assert [command_decision(p, c)[0] for c in ("env rm x", "timeout 9 git push", "ls -la", "make")] == [
        "deny",
        "ask",
        "allow",
        "none",
    ]


def test_no_parser_no_rules():
    """Without bashlex the rules cannot be judged: importing them fails, rather than matching by guess."""
    code = "import sys; sys.modules['bashlex'] = None; import agent.tools.permissions"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and "bashlex" in done.stderr


async def test_the_model_is_told_why_a_line_it_could_not_read_was_refused(ctx, workspace):
    from agent.tools.builtin import run_command

    ctx.deps.permissions = perms(deny=["Bash(rm:*)"])
    answer = await run_command(ctx, "case a in a) touch made;; esac")
    assert "could not be read for sure" in answer and not (workspace / "made").exists()
    answer = await run_command(ctx, "env rm -f made")
    assert "'Bash(rm:*)' (deny) refuses this call" in answer and "could not be read" not in answer
