"""Who is asked when commands run in the sandbox: nobody, unless a deny or ask rule (or a hook) speaks;
as before in danger-full-access and for allow rules marked `"sandbox": false`; and, once per command,
whether a command the sandbox stopped may run again outside it. Through run_command, with a real
bubblewrap sandbox (SKIPPED where there is none)."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest
from pydantic_ai import RunContext
from pydantic_ai.models.test import TestModel
from pydantic_ai.usage import RunUsage

from agent.config import Config, SandboxPolicy
from agent.events import ApprovalRequest, Notice
from agent.state.app import AppState
from agent.state.transcript import Transcript
from agent.tools import permissions
from agent.tools.builtin import run_command
from agent.tools.rule_match import parse_rule
from tests.fake_ui import FakeUI
from tests.sandbox_kit import bubblewrap


class User:
    """The user at the question: answers `answer`, remembers each request."""

    def __init__(self, answer: str) -> None:
        self.answer, self.asked = answer, []

    async def __call__(self, subject: str, why: str | None = None) -> str:
        self.asked.append(subject)
        return self.answer


def context(workspace, answer="n", mode="workspace-write", yes=False, allow=(), ask=(), deny=(), outside=()):
    config = Config(workspace=workspace, lang="en", yes=yes, sandbox=SandboxPolicy(mode=mode))
    state = AppState(config=config, transcript=Transcript("s1", workspace))
    state.permissions.rules = {
        "allow": [parse_rule(r) for r in (*allow, *outside)],
        "ask": [parse_rule(r) for r in ask],
        "deny": [parse_rule(r) for r in deny],
    }
    state.permissions.outside_sandbox = [parse_rule(r) for r in outside]
    user = User(answer)
    state.emit = ui = FakeUI(approve=user)
    return RunContext(deps=state, model=TestModel(), usage=RunUsage()), user, ui


def call(ctx, command: str) -> str:
    return asyncio.run(run_command(ctx, command))


@pytest.fixture(autouse=True)
def _bwrap(workspace):
    bubblewrap(workspace)  # SKIPPED, saying why, where bubblewrap cannot run


def test_in_the_sandbox_a_command_runs_unasked(workspace):
    ctx, user, _ = context(workspace)
    assert "hello" in call(ctx, "echo hello > made.txt && cat made.txt")
    assert user.asked == [] and (workspace / "made.txt").exists()


def test_deny_and_ask_rules_still_speak_inside(workspace):
    ctx, user, _ = context(workspace, deny=["Bash(rm:*)"], ask=["Bash(git push:*)"])
    assert "permission rule 'Bash(rm:*)' (deny)" in call(ctx, "rm -f x")
    assert "declined" in call(ctx, "git push origin main")
    assert user.asked == ["git push origin main"]


def test_danger_full_access_asks_as_before(workspace):
    ctx, user, _ = context(workspace, mode="danger-full-access")
    assert "declined" in call(ctx, "echo hi")
    assert user.asked == ["echo hi"]


def test_an_allow_rule_marked_sandbox_false_runs_outside(workspace, tmp_path):
    target = tmp_path / "outside-by-rule.txt"
    ctx, user, _ = context(workspace, outside=[f"Bash(touch {target})"])
    call(ctx, f"touch {target}")
    assert target.exists() and user.asked == []  # outside the sandbox (it could write there), allowed by the rule


def test_the_settings_file_form_of_such_a_rule(workspace, home):
    from agent.provider import settings as files

    home.mkdir(exist_ok=True)
    (home / "settings.json").write_text(
        json.dumps({"permissions": {"allow": ["Bash(ls:*)", {"rule": "Bash(git push:*)", "sandbox": False}]}})
    )
    perms, warnings = permissions.load(files.load(workspace), None, False, "en")
    assert warnings == []
    assert [r.text for r in perms.rules["allow"]] == ["Bash(ls:*)", "Bash(git push:*)"]
    assert [r.text for r in perms.outside_sandbox] == ["Bash(git push:*)"]


@pytest.fixture
def outside():
    """A real folder outside the workspace and outside /tmp (the sandbox's /tmp is its own)."""
    import shutil
    import tempfile

    if not os.path.isdir("/var/tmp"):
        pytest.skip("SKIPPED: no /var/tmp to write outside the sandbox's private /tmp")
    folder = Path(tempfile.mkdtemp(dir="/var/tmp", prefix="coding-agent-sandbox-test-"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_a_stopped_command_is_offered_once_and_declined_changes_nothing(workspace, outside):
    ctx, user, ui = context(workspace, answer="n")
    answer = call(ctx, f"touch {outside}/made")
    assert "Read-only file system" in answer and "declined to run it outside the sandbox" in answer
    requests = ui.of(ApprovalRequest)
    assert [(r.kind, r.subject) for r in requests] == [("outside", f"touch {outside}/made")]
    assert "refused a write" in requests[0].why and "Read-only file system" in requests[0].why
    assert not (outside / "made").exists()


def test_a_stopped_command_runs_outside_when_the_user_says_yes(workspace, outside):
    ctx, user, _ = context(workspace, answer="y")
    answer = call(ctx, f"touch {outside}/made")
    assert user.asked == [f"touch {outside}/made"]
    assert "ran again outside the sandbox" in answer and (outside / "made").exists()


def test_yes_reruns_outside_with_a_notice(workspace, outside):
    ctx, user, ui = context(workspace, yes=True)
    answer = call(ctx, f"touch {outside}/made")
    assert user.asked == [] and "ran again outside the sandbox" in answer and (outside / "made").exists()
    assert any("runs again outside the sandbox" in n.text for n in ui.of(Notice))


def test_under_tmp_a_write_lands_in_the_sandboxs_own_tmp(workspace, tmp_path):
    ctx, user, _ = context(workspace, answer="y")
    call(ctx, f"touch {tmp_path}/made")
    assert user.asked == [] and not (tmp_path / "made").exists()


def test_no_offer_for_a_failure_that_is_not_the_sandboxs(workspace):
    ctx, user, ui = context(workspace)
    answer = call(ctx, "ls no-such-file")
    assert "[exit code: 2]" in answer and ui.of(ApprovalRequest) == []
