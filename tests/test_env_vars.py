"""Every CODING_AGENT_* variable the code reads is in the README's configuration table (and nothing
else is), and the crash tests' kill switch does nothing outside a data folder the harness marked."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from agent.store import faults
from tests.robustness.harness import agent_argv, agent_env, prepare_session, session_path

ROOT = Path(__file__).resolve().parent.parent
NAME = r"CODING_AGENT_[A-Z_]+"
# How the code reads one: os.environ.get("…"), os.environ["…"], os.getenv("…"), and cli.py's
# _env("name") / _env_flag("name") for CODING_AGENT_<NAME>.
READS = [rf'os\.environ\.get\(\s*"({NAME})"', rf'os\.environ\[\s*"({NAME})"\s*\]', rf'getenv\(\s*"({NAME})"']
FLAG_READS = r'_env(?:_flag)?\(\s*"([a-z_]+)"'


def _sources() -> list[Path]:
    top = [p for p in ROOT.glob("*.py")]
    return top + sorted((ROOT / "agent").rglob("*.py")) + sorted((ROOT / "ui").rglob("*.py"))


def code_reads() -> set[str]:
    found: set[str] = set()
    for path in _sources():
        text = path.read_text(encoding="utf-8")
        for pattern in READS:
            found.update(re.findall(pattern, text))
        found.update(f"CODING_AGENT_{name.upper()}" for name in re.findall(FLAG_READS, text))
    return found


def readme_table() -> set[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Configuration\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")]
    return {name for row in rows for name in re.findall(NAME, row)}


def test_the_only_computed_read_is_the_command_lines_env_helper():
    """A name built at run time would escape the grep: only agent.config.env_name builds one, for
    cli.py's _env("…") calls and the settings' check of which flags the environment set."""
    computed = [p.name for p in _sources() if re.search(r'f"CODING_AGENT_\{', p.read_text())]
    assert computed == ["config.py"]


def test_every_variable_the_code_reads_is_documented():
    reads = code_reads()
    # The grep sees each kind of read (so an empty or partial result cannot pass unnoticed).
    assert {"CODING_AGENT_PRINT", "CODING_AGENT_HOME", "CODING_AGENT_TIMEOUT", "CODING_AGENT_FAULT"} <= reads
    documented = readme_table()
    assert reads - documented == set(), "read by the code but not in the README's configuration table"
    assert documented - reads == set(), "in the README's configuration table but read by no code"


def test_the_fault_switch_needs_the_harness_mark(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("CODING_AGENT_FAULT", "append_mid_write")
    monkeypatch.setenv("CODING_AGENT_HOME", str(home))
    assert not faults.armed()
    faults.fault("append_mid_write")  # not armed: returns (armed, it would kill this test run)
    (home / faults.ARMING_FILE).touch()
    assert faults.armed()
    monkeypatch.delenv("CODING_AGENT_HOME")
    assert not faults.armed()  # the default data folder is never armed


def test_an_exported_fault_switch_kills_no_real_session(tmp_path, server):
    """A user's run with CODING_AGENT_FAULT left exported: the turn completes and is saved."""
    home, workspace = tmp_path / "home", tmp_path / "ws"
    workspace.mkdir()
    session_id = prepare_session(home, workspace.resolve(), [])
    env = {**agent_env(home), "CODING_AGENT_FAULT": "append_mid_write"}  # set by hand: no harness mark
    done = subprocess.run(
        agent_argv(server, "--resume", session_id, "-p", "hello"),
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0 and "Echo: hello" in done.stdout, done.stderr
    assert b"Echo: hello" in session_path(home, workspace.resolve(), session_id).read_bytes()
