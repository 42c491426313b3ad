"""The README's test command passes on a fresh Debian or Ubuntu that has only python3, python3-venv and git:
every program the project and its tests call is one such a system has (tests/fixtures/
fresh_debian_commands.txt, taken from that root as docs/testing.md says), a console script of the
project's own install step, or named in the README's Tests section (as needed, or as optional where the
tests that use it skip without it)."""

from __future__ import annotations

import importlib.metadata
import re
from pathlib import Path

from tests.programs_called import programs_in
from tests.test_architecture import ROOT

FRESH = ROOT / "tests" / "fixtures" / "fresh_debian_commands.txt"

# Words of "run ..." messages that a scripted model answers, so the emulator never runs them; and a hook
# entry that is only loaded. Each was read where it stands.
NEVER_RUN = {
    "it": "tests/ui/test_permissions_pty.py types 'run it' while the server plays a script",
    "my": "tests/robustness/test_hidden_pty.py types 'run my script' while the server plays a script",
    "ok": "tests/agent/tools/test_hooks.py loads a hook named 'ok' and never fires it",
    "pytest": "tests/test_fake_openai.py checks how the emulator reads 'run pytest -q tests'",
}


def python_files(root: Path) -> list[Path]:
    envs = {cfg.parent.name for cfg in root.glob("*/pyvenv.cfg")}
    return sorted(
        p
        for p in root.rglob("*.py")
        if not any(
            part.startswith(".") or part in envs or part == "build" or part.endswith(".egg-info")
            for part in p.relative_to(root).parts
        )
    )


def called(root: Path) -> dict[str, list[str]]:
    """Each program the sources under `root` call, with where."""
    found: dict[str, list[str]] = {}
    for path in python_files(root):
        relative = path.relative_to(root)
        for name, line in programs_in(path, messages=relative.parts[0] == "tests"):
            found.setdefault(name, []).append(f"{relative.as_posix()}:{line}")
    return found


def fresh_commands() -> set[str]:
    return {line for line in FRESH.read_text().splitlines() if line and not line.startswith("# ")}


def installed_scripts() -> set[str]:
    """The console scripts that `pip install -e ".[test]"` puts on PATH: the project's own and those of
    every package it requires, followed down."""
    seen: set[str] = set()
    todo = ["coding-agent-compact"]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            requires = importlib.metadata.requires(name) or []
        except importlib.metadata.PackageNotFoundError:
            continue
        for requirement in requires:
            extra = re.search(r"extra\s*==\s*['\"]([^'\"]+)", requirement)
            if extra is None or (name == "coding-agent-compact" and extra.group(1) == "test"):
                todo.append(re.match(r"[A-Za-z0-9_.-]+", requirement).group(0).lower().replace("_", "-"))
    scripts: set[str] = set()
    for name in seen:
        try:
            points = importlib.metadata.distribution(name).entry_points
        except importlib.metadata.PackageNotFoundError:
            continue
        scripts |= {point.name for point in points if point.group == "console_scripts"}
    return scripts


def readme_names(readme: str) -> set[str]:
    """The `names` in the README's Tests section."""
    section = readme.split("\n## Tests\n", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"`([^`\s]+)`", section))


def unnamed(found: dict[str, list[str]], readme: str) -> dict[str, list[str]]:
    known = fresh_commands() | installed_scripts() | readme_names(readme) | set(NEVER_RUN)
    return {name: where for name, where in found.items() if name not in known}


def test_every_program_the_suite_calls_is_on_a_fresh_system_or_named_in_the_readme():
    missing = unnamed(called(ROOT), (ROOT / "README.md").read_text())
    assert missing == {}, (
        "programs a fresh Debian with python3, python3-venv and git does not have: call a Python "
        "package's (a dependency in pyproject.toml) or one it has, or name them in the README's "
        f"Tests section, as optional where their tests skip without them: {missing}"
    )


def test_the_scan_sees_the_programs_the_suite_is_known_to_call():
    found = {name: {where.split(":")[0] for where in places} for name, places in called(ROOT).items()}
    assert "agent/tools/workspace.py" in found["git"]  # shutil.which("git")
    assert "tests/agent/tools/test_file_diff.py" in found["git"]  # an argv
    assert "tests/ui/test_repl_pty.py" in found["sleep"]  # a tool call's command
    assert "tests/robustness/attacks_git.py" in found["env"]  # a #! script
    assert "tests/agent/tools/test_hooks.py" in found["sleep"]  # a hook's command
    assert "tests/robustness/test_no_secrets.py" in found["env"]  # the emulator's "run env"
    assert "llama-server" in found and "llama-server" in readme_names((ROOT / "README.md").read_text())
    stale = {word for word in NEVER_RUN if word not in found}
    assert stale == set(), f"no longer in the sources: take off NEVER_RUN: {stale}"


def test_a_program_a_fresh_system_lacks_is_caught(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text(
        "import subprocess\nfrom shutil import which\n"
        "subprocess.run(['patch', '-s', '-p1'], input='')\n"
        "which('bwrap')\n"
        "server.script(ToolCalls([('run_command', {'command': 'cd src && make -j2 | tee log'})]))\n"
        "type_line(child, 'run env FOO=1 curl http://127.0.0.1:9')\n"
    )
    readme = "# x\n\n## Tests\n\nOptional: `bwrap` (bubblewrap; the sandbox's tests skip without it).\n\n## More\n"
    assert unnamed(called(tmp_path), readme) == {
        "patch": ["tests/test_x.py:3"],
        "make": ["tests/test_x.py:5"],
        "curl": ["tests/test_x.py:6"],
    }
