"""The session file's format version and its numbered upgrades (agent.store.session_format).

tests/fixtures/session_v0.jsonl is a real session file written on 2026-12-01 by the code of commit
a348869 (before the version header), driven with `-p` and `--continue` against the emulator: a
compaction's summary with its metadata, a tool call and its result, thinking parts. It must keep loading.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from pydantic_ai.messages import ModelRequest, ToolCallPart, ToolReturnPart, UserPromptPart

import main
import session
from agent.events import Notice
from agent.store import session_format

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "session_v0.jsonl"
V0_LINES = FIXTURE.read_bytes().splitlines()


def _install(workspace: Path, data: bytes, session_id: str = "20261201-164818-35d72e") -> Path:
    path = session.session_file(session_id, workspace)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def test_the_version_0_fixture_loads_whole():
    loaded = session.parse_lines(FIXTURE.read_bytes())
    assert loaded.version == 0 and loaded.skipped == [] and len(loaded.messages) == len(V0_LINES) == 8
    first = loaded.messages[0]
    assert isinstance(first, ModelRequest) and (first.metadata or {}).get("compact_summary")
    calls = [p for m in loaded.messages for p in m.parts if isinstance(p, ToolCallPart)]
    results = [p for m in loaded.messages for p in m.parts if isinstance(p, ToolReturnPart)]
    assert [c.tool_call_id for c in calls] == [r.tool_call_id for r in results] and calls
    # What pydantic-ai writes back of each message is the line as it was: nothing lost in the upgrade.
    assert [session.dump_message(m).encode() for m in loaded.messages] == V0_LINES


def test_new_files_start_with_the_header(workspace):
    old = session.parse_lines(FIXTURE.read_bytes()).messages
    session.append_messages("fresh", old[:2], workspace)
    session.rewrite_messages("whole", old, workspace)
    for name, n in (("fresh", 2), ("whole", 8)):
        data = session.session_file(name, workspace).read_bytes()
        assert data.splitlines()[0] == b'{"coding_agent_session": 1}'
        loaded = session.parse_lines(data)
        assert loaded.version == session_format.CURRENT and loaded.skipped == [] and len(loaded.messages) == n


def test_appending_to_an_old_file_upgrades_it_first(workspace):
    path = _install(workspace, FIXTURE.read_bytes())
    session.append_messages(path.stem, [ModelRequest(parts=[UserPromptPart("one more")])], workspace)
    lines = path.read_bytes().splitlines()
    assert lines[0] == b'{"coding_agent_session": 1}' and lines[1:-1] == V0_LINES and b"one more" in lines[-1]
    loaded = session.load(path.stem, workspace)
    assert loaded.version == 1 and loaded.skipped == [] and len(loaded.messages) == 9


def test_resuming_the_fixture_in_a_real_process(workspace, home, server):
    """--continue of a version-0 session: it loads, answers, and the file goes up to version 1."""
    import subprocess
    import sys

    path = _install(workspace, FIXTURE.read_bytes())
    done = subprocess.run(
        [sys.executable, str(Path(main.__file__)), "--continue", "--base-url", server.base_url, "-p", "and now?"],
        cwd=workspace,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "CODING_AGENT_HOME": str(home)},
    )
    assert done.returncode == 0 and "Echo: and now?" in done.stdout, done.stderr
    assert "skipped" not in done.stderr
    lines = path.read_bytes().splitlines()
    assert lines[0] == b'{"coding_agent_session": 1}' and lines[1:9] == V0_LINES and len(lines) > 9


def test_a_newer_file_says_so_and_loads_what_it_can(workspace):
    _install(workspace, b'{"coding_agent_session": 7}\n' + FIXTURE.read_bytes())
    args = main.parse_args(["--continue"])
    state = main.start_state(args, main.build_config(args))
    try:
        [notice] = [n for n in state.emit.of(Notice) if n.level == "warn"]
        assert "newer coding-agent-compact (file format 7; this one reads up to 1)" in notice.text
        assert len(state.history) == 8
    finally:
        state.transcript.close()


def test_upgrades_are_numbered_one_per_version():
    assert len(session_format.UPGRADES) == session_format.CURRENT
    assert [f.__name__ for f in session_format.UPGRADES] == [f"upgrade_{n}" for n in range(session_format.CURRENT)]


def test_a_future_upgrade_runs_after_the_ones_before(monkeypatch, workspace):
    """The mechanism with a real change. Say version 1 wrote user prompts as "user-prompt-v1" parts
    (the way a pydantic-ai schema change would leave old lines): version 2's upgrade_1 turns them into
    today's, and a version-0 file goes through upgrade_0, then upgrade_1."""
    old_kind, kind = b'"part_kind":"user-prompt-v1"', b'"part_kind":"user-prompt"'
    seen: list[int] = []

    def upgrade_0(lines: list[bytes]) -> list[bytes]:
        seen.append(0)
        return [line.replace(kind, old_kind) for line in session_format.upgrade_0(lines)]

    def upgrade_1(lines: list[bytes]) -> list[bytes]:
        seen.append(1)
        return [line.replace(old_kind, kind) for line in lines]

    v1 = b'{"coding_agent_session": 1}\n' + FIXTURE.read_bytes().replace(kind, old_kind)
    assert len(session.parse_lines(v1).skipped) > 0  # version 1's lines do not load as they are
    monkeypatch.setattr(session_format, "CURRENT", 2)
    monkeypatch.setattr(session_format, "UPGRADES", [upgrade_0, upgrade_1])
    loaded = session.parse_lines(v1)
    assert (loaded.version, len(loaded.messages), loaded.skipped, seen) == (1, 8, [], [1])
    seen.clear()
    loaded = session.parse_lines(FIXTURE.read_bytes())
    assert (loaded.version, len(loaded.messages), loaded.skipped, seen) == (0, 8, [], [0, 1])
    path = _install(workspace, v1)
    session.append_messages(path.stem, [ModelRequest(parts=[UserPromptPart("x")])], workspace)
    data = path.read_bytes()
    assert data.splitlines()[0] == b'{"coding_agent_session": 2}' and old_kind not in data
    assert len(session.load(path.stem, workspace).messages) == 9


@pytest.mark.parametrize(
    "first",
    [
        b'{"coding_agent_session": "1"}',
        b'{"coding_agent_session": -1}',
        b'{"coding_agent_session": true}',
        b'{"coding_agent_session": 1',
    ],
)
def test_a_bad_header_is_a_bad_line(first):
    loaded = session.parse_lines(first + b"\n" + FIXTURE.read_bytes())
    assert len(loaded.messages) == 8 and len(loaded.skipped) == 1 and loaded.skipped[0].startswith("line 1:")
