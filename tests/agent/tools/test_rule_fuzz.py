"""Seeded random command lines run under /bin/sh, with `rm`, `ls` and `touch` on PATH replaced by
scripts that log their calls: the shell, not a copy of the matcher, says what ran. Whenever the
shell ran `rm`, the deny rule `Bash(rm:*)` saw it coming; whenever the allow rule `Bash(ls:*)` let a
line through, the shell ran nothing but `ls`."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest

from agent.tools.permissions import Permissions, decide
from agent.tools.rule_match import parse_rule

WRAPPERS = [
    "",
    "env",
    "env -i",
    "env A=1",
    "nice",
    "nice -n 3",
    "nohup",
    "timeout 5",
    "stdbuf -oL",
    "command",
    "exec",
    "time",
    "time -o /dev/null",
    "xargs",
    "setsid",
    "builtin",
]
NAMES = ["rm", "'rm'", "\\rm", 'r"m"', "$(echo rm)", "r${x}m", "rm$IFS-f", '"$(echo rm)"', "`echo rm`"]
CONTEXTS = [
    "{c}",
    "ls; {c}",
    "true && {c}",
    "false || {c}",
    "echo x | {c}",
    "echo $({c})",
    "echo `{c}`",
    "({c})",
    "{{ {c}; }}",
    "if true; then {c}; fi",
    "for i in 1; do {c}; done",
    "g() {{ {c}; }}; g",
    "sh -c '{c}'",
    "bash -c '{c}'",
    "eval '{c}'",
    "echo ~$({c})",
    "echo ${{x:-$({c})}}",
    "find . -maxdepth 0 -exec {c} \\;",
    "echo x | xargs {c}",
    "A=1 {c}",
    "! {c}",
    "case a in a) {c};; esac",
    "{c} & wait",
    'echo "$({c})"',
    "echo ~x`{c}`",
    "x=~$({c})",
    "echo a$({c})b",
    "cat <<E\n$({c})\nE",
    "while {c}; do break; done",
    "echo {c} | sh",
    'echo "~$({c})"',
    "echo $(echo $({c}))",
    "echo ${{x:=$({c})}}",
    'echo "${{x:-`{c}`}}"',
    '[ -n "$({c})" ]',
    "test -n `{c}`",
    "trap '{c}' EXIT",
    "alias q='{c}'\nq",
    "echo '{c}' | bash",
    "echo '{c}' > .e; BASH_ENV=.e bash -c true",
]
# What may follow `ls` in a line an allow rule is asked about.
ARGS = [
    "-la",
    "x",
    "'a b'",
    '"c d"',
    "~",
    "~/src",
    "HEAD~1",
    "2>&1",
    "--",
    "'$(touch q)'",
    '"$(touch q)"',
    "$(touch q)",
    "`touch q`",
    "~$(touch q)",
    "~x`touch q`",
    "~${x:-$(touch q)}",
    "${x:-$(touch q)}",
    "; touch q",
    "&& touch q",
    "| touch q",
    "> out",
    "*",
    "\\$(touch q)",
    "$'\\x41'",
    "\ntouch q",
    "#$(touch q)",
    "~/$(touch q)",
    "~root",
    "{a,b}",
    "a=$(touch q)",
    "<(touch q)",
    "$IFS",
    "\\\ntouch q",
    "~'$(touch q)'",
]


def verdict(kind: str, rule: str, line: str) -> str:
    p = Permissions()
    p.rules = {k: [parse_rule(rule)] if k == kind else [] for k in ("allow", "ask", "deny")}
    return decide(p, "run_command", Path("."), command=line)[0]


TRACE = '#!/bin/sh\necho "{name} $*" >> "$(dirname "$0")/../ran"\n'


@pytest.fixture
def shell(tmp_path: Path):
    """Runs a line under /bin/sh; returns the programs it ran, as logged by the traced scripts."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("rm", "ls", "touch"):
        (bin_dir / name).write_text(TRACE.format(name=name))
        (bin_dir / name).chmod(0o755)
    (tmp_path / "work").mkdir()
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(tmp_path)}

    def run(line: str) -> set[str]:
        (tmp_path / "ran").unlink(missing_ok=True)
        try:
            subprocess.run(
                ["/bin/sh", "-c", line],
                cwd=tmp_path / "work",
                env=env,
                capture_output=True,
                timeout=10,
                stdin=subprocess.DEVNULL,
            )
        except subprocess.TimeoutExpired:
            pass
        log = (tmp_path / "ran").read_text() if (tmp_path / "ran").exists() else ""
        return {entry.split(" ", 1)[0] for entry in log.splitlines()}

    return run


@pytest.mark.parametrize("seed", [1, 2])
def test_whenever_the_shell_ran_rm_the_deny_rule_saw_it(seed, shell):
    rng = random.Random(seed)
    missed, ran = [], 0
    for _ in range(150):
        line = rng.choice(CONTEXTS).format(c=" ".join(filter(None, [rng.choice(WRAPPERS), rng.choice(NAMES), "x"])))
        if "rm" in shell(line):
            ran += 1
            if verdict("deny", "Bash(rm:*)", line) != "deny":
                missed.append(line)
    assert missed == []
    assert ran > 75  # most lines did run rm: the check above was not empty


@pytest.mark.parametrize("seed", [1, 2])
def test_whatever_the_allow_rule_let_through_ran_nothing_but_ls(seed, shell):
    rng = random.Random(seed)
    leaked, allowed = [], 0
    for _ in range(150):
        line = " ".join(["ls", *rng.sample(ARGS, rng.randint(1, 3))])
        if verdict("allow", "Bash(ls:*)", line) == "allow":
            allowed += 1
            if shell(line) - {"ls"}:
                leaked.append(line)
    assert leaked == []
    assert allowed > 10  # plain lines do pass: the rule is not "never"
