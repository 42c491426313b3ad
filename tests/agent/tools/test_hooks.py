"""Issue 24, part 3: hooks, Claude Code's schema, run as real scripts that record their stdin."""

from __future__ import annotations

import json
import sys

import pytest

import compact
import session
from agent.errors import CompactError
from agent.events import ApprovalRequest, Notice, TrustRequest
from agent.provider import settings as files
from agent.provider import trust
from agent.tools import hooks
from main import on_submit
from tests.builders import SUMMARY, chat, long_answer, responder, script_forever
from tests.fake_openai import Text, ToolCalls
from tests.fake_ui import FakeUI

# A hook: appends its stdin (and a few of its environment's names) to a record, then says what the
# test told it: an exit code, a stderr and a stdout.
HOOK = """
import json, os, sys
event = json.load(sys.stdin)
event["env_names"] = sorted(os.environ)
event["project_dir"] = os.environ.get("CLAUDE_PROJECT_DIR")
with open(sys.argv[1], "a") as record:
    record.write(json.dumps(event) + "\\n")
stdout, stderr, code = sys.argv[2], sys.argv[3], int(sys.argv[4])
sys.stdout.write(stdout)
sys.stderr.write(stderr)
sys.exit(code)
"""


@pytest.fixture
def hook(tmp_path):
    script = tmp_path / "hook.py"
    script.write_text(HOOK)
    record = tmp_path / "record.jsonl"

    def command(code: int = 0, stdout: str = "", stderr: str = "") -> str:
        import shlex

        return " ".join(shlex.quote(a) for a in [sys.executable, str(script), str(record), stdout, stderr, str(code)])

    def seen() -> list[dict]:
        return [json.loads(line) for line in record.read_text().splitlines()] if record.exists() else []

    command.seen = seen
    return command


def use_hooks(state, home, section: dict) -> None:
    home.mkdir(exist_ok=True)
    (home / "settings.json").write_text(json.dumps({"hooks": section}))
    state.hooks, warnings = hooks.load(files.load(state.workspace), "en")
    assert warnings == []


def body_text(server) -> str:
    return json.dumps(server.requests[-1]["body"])


async def test_pre_tool_use_blocks_with_exit_2_and_the_model_reads_why(make_state, server, workspace, home, hook):
    server.script(ToolCalls([("run_command", {"command": "touch made"})]), Text("ok"))
    state = make_state()
    use_hooks(
        state,
        home,
        {
            "PreToolUse": [
                {
                    "matcher": "Bash",
                    "hooks": [{"type": "command", "command": hook(2, stderr="no touching in this repo")}],
                }
            ]
        },
    )
    await on_submit(state, "make a file")
    assert not (workspace / "made").exists()
    assert "no touching in this repo" in body_text(server)
    [event] = hook.seen()
    assert event["hook_event_name"] == "PreToolUse" and event["tool_name"] == "run_command"
    assert event["tool_input"]["command"] == "touch made" and event["tool_use_id"]
    assert event["session_id"] == state.session_id and event["cwd"] == str(workspace)
    assert event["transcript_path"] == str(session.session_file(state.session_id, workspace))
    assert event["project_dir"] == str(workspace)


async def test_a_permission_decision_skips_or_refuses_the_question(make_state, server, workspace, home, hook):
    allow = json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}})
    server.script(ToolCalls([("run_command", {"command": "touch allowed"})]), Text("ok"))
    state = make_state(yes=False)
    state.emit = ui = FakeUI(approve=lambda *a, **k: pytest.fail("asked"))
    use_hooks(state, home, {"PreToolUse": [{"matcher": "run_command", "hooks": [{"command": hook(0, allow)}]}]})
    await on_submit(state, "go")
    assert (workspace / "allowed").exists() and ui.of(ApprovalRequest) == []

    deny = json.dumps({"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "not today"}})
    server.script(ToolCalls([("run_command", {"command": "touch denied"})]), Text("ok"))
    use_hooks(state, home, {"PreToolUse": [{"matcher": "", "hooks": [{"command": hook(0, deny)}]}]})
    await on_submit(state, "go")
    assert not (workspace / "denied").exists() and "not today" in body_text(server)


async def test_post_tool_use_sees_the_result_and_adds_context(make_state, server, workspace, home, hook):
    (workspace / "a.txt").write_text("alpha\n")
    extra = json.dumps({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "lint: clean"}})
    server.script(ToolCalls([("read_file", {"path": "a.txt"})]), Text("ok"))
    state = make_state()
    use_hooks(state, home, {"PostToolUse": [{"matcher": "Read|Write", "hooks": [{"command": hook(0, extra)}]}]})
    await on_submit(state, "read it")
    [event] = hook.seen()
    assert "alpha" in event["tool_response"] and event["tool_input"]["file_path"] == str(workspace / "a.txt")
    assert "lint: clean" in body_text(server)


async def test_user_prompt_submit_blocks_or_adds_context(make_state, server, home, hook):
    state = make_state()
    use_hooks(state, home, {"UserPromptSubmit": [{"hooks": [{"command": hook(2, stderr="no secrets, please")}]}]})
    await on_submit(state, "here is my password hunter2")
    assert server.requests == [] and state.history == []
    assert any("no secrets, please" in n.text for n in state.emit.of(Notice))
    assert hook.seen()[0]["prompt"] == "here is my password hunter2"

    server.script(Text("fine"))
    use_hooks(state, home, {"UserPromptSubmit": [{"hooks": [{"command": hook(0, "Today is release day.")}]}]})
    await on_submit(state, "what now?")
    assert "Today is release day." in body_text(server) and "what now?" in body_text(server)


async def test_pre_compact_can_keep_the_history_as_it_is(make_state, server, workspace, home, hook):
    script_forever(server, responder([long_answer(n) for n in range(4)]))
    state = make_state()
    await chat(state, ["one", "two", "three"])
    before = list(state.history)
    file_before = session.session_file(state.session_id, workspace).read_bytes()
    use_hooks(state, home, {"PreCompact": [{"matcher": "manual", "hooks": [{"command": hook(2, stderr="not now")}]}]})
    with pytest.raises(CompactError, match="not now"):
        await compact.run_compact(state, "keep the API notes")
    assert state.history == before
    assert session.session_file(state.session_id, workspace).read_bytes() == file_before
    [event] = hook.seen()
    assert (event["trigger"], event["custom_instructions"]) == ("manual", "keep the API notes")


async def test_after_a_compaction_post_compact_and_session_start_put_rules_back(make_state, server, home, hook):
    script_forever(server, responder([long_answer(n) for n in range(4)]))
    state = make_state()
    await chat(state, ["one", "two", "three"])
    rules = json.dumps(
        {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "Rule: never push to main."}}
    )
    use_hooks(
        state,
        home,
        {
            "PostCompact": [{"hooks": [{"command": hook()}]}],
            "SessionStart": [{"matcher": "compact", "hooks": [{"command": hook(0, rules)}]}],
        },
    )
    result = await compact.run_compact(state)
    await on_submit(state, "next step")
    post, start = hook.seen()
    assert post["hook_event_name"] == "PostCompact" and post["archive_path"] == result.archive_path
    assert (post["tokens_before"], post["tokens_after"]) == (result.tokens_before, result.tokens_after)
    assert (start["hook_event_name"], start["source"]) == ("SessionStart", "compact")
    assert "Rule: never push to main." in body_text(server)
    assert SUMMARY.split("<summary>")[1][:20] in body_text(server)


async def test_a_stop_hook_sends_the_model_back_to_work_once_asked(make_state, server, home, hook, tmp_path):
    flag = tmp_path / "stopped-once"
    script = tmp_path / "stop.sh"
    log = tmp_path / "stop.log"
    script.write_text(
        f"cat >> {log}; echo >> {log}; if [ -e {flag} ]; then exit 0; fi; touch {flag}; "
        "echo 'tests are still failing' >&2; exit 2\n"
    )
    server.script(Text("done, I think"), Text("now really done"))
    state = make_state()
    use_hooks(state, home, {"Stop": [{"hooks": [{"command": f"sh {script}"}]}]})
    await on_submit(state, "fix the tests")
    assert len(server.requests) == 2 and "tests are still failing" in body_text(server)
    first, second = (json.loads(line) for line in (tmp_path / "stop.log").read_text().splitlines())
    assert (first["stop_hook_active"], second["stop_hook_active"]) == (False, True)


async def test_a_failing_hook_is_one_line_and_the_turn_goes_on(make_state, server, home, hook, tmp_path):
    server.script(Text("answered anyway"))
    state = make_state()
    use_hooks(
        state,
        home,
        {
            "UserPromptSubmit": [
                {
                    "hooks": [
                        {"command": hook(1, stderr="boom")},
                        {"command": "sleep 30", "timeout": 0.5},
                        {"command": str(tmp_path / "no-such-hook")},
                    ]
                }
            ]
        },
    )
    await on_submit(state, "hello")
    warnings = [n.text for n in state.emit.of(Notice) if n.level == "warn"]
    assert len(warnings) == 3, warnings
    assert any("exit code 1: boom" in w for w in warnings) and any("timed out after 0.5 s" in w for w in warnings)
    assert "answered anyway" in "".join(e.text for e in state.emit.events if hasattr(e, "text"))


async def test_hooks_get_no_api_keys(make_state, server, home, hook, monkeypatch):
    monkeypatch.setenv("MY_SERVICE_API_KEY", "secret")
    server.script(Text("ok"))
    state = make_state()
    use_hooks(state, home, {"UserPromptSubmit": [{"hooks": [{"command": hook()}]}]})
    await on_submit(state, "hi")
    names = hook.seen()[0]["env_names"]
    assert "MY_SERVICE_API_KEY" not in names and "PATH" in names


async def test_a_projects_hooks_wait_for_one_approval(make_state, workspace, home, hook):
    (workspace / ".coding-agent").mkdir()
    project = workspace / ".coding-agent" / "settings.json"
    project.write_text(json.dumps({"hooks": {"SessionStart": [{"hooks": [{"command": hook()}]}]}}))
    state = make_state()
    state.config.settings = files.load(workspace)
    state.hooks, _ = hooks.load(state.config.settings, "en")
    assert state.hooks.active == [] and len(state.hooks.pending) == 1
    asked = []
    log = state.emit

    def ui(answer):
        def emit(event):
            log.events.append(event)
            if isinstance(event, TrustRequest):
                asked.append(event)

                async def reply():
                    return answer

                return reply()

        return emit

    state.emit = ui("n")
    assert not (await trust.settle(state)).trusted
    assert any(hook() in line for line in asked[0].lines)
    state.emit = ui("y")
    assert (await trust.settle(state)).trusted
    assert (await trust.settle(state)).trusted and len(asked) == 2  # remembered: not asked again
    project.write_text(json.dumps({"hooks": {"SessionStart": [{"hooks": [{"command": hook(1)}]}]}}))
    state.config.settings = files.load(workspace)
    state.emit = ui("n")
    assert not (await trust.settle(state)).trusted and len(asked) == 3  # changed: asked again


def test_bad_hook_entries_are_one_line_each(workspace, home):
    home.mkdir(exist_ok=True)
    (home / "settings.json").write_text(
        json.dumps(
            {
                "hooks": {
                    "PreToolUse": [
                        {"matcher": "Bash", "hooks": [{"type": "prompt", "prompt": "x"}, {"command": "ok"}]}
                    ],
                    "OnFullMoon": [],
                    "Stop": "echo",
                }
            }
        )
    )
    loaded, warnings = hooks.load(files.load(workspace), "en")
    assert [h.command for h in loaded.active] == ["ok"]
    assert len(warnings) == 3 and any("OnFullMoon" in w for w in warnings)


async def test_a_hooks_ask_asks_even_where_a_rule_allows(make_state, server, workspace, home, hook):
    from agent.tools.permissions import Permissions
    from agent.tools.rule_match import parse_rule

    ask = json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask"}})
    server.script(ToolCalls([("run_command", {"command": "touch asked"})]), Text("ok"))
    state = make_state(yes=False)
    state.permissions = Permissions()
    state.permissions.rules["allow"].append(parse_rule("Bash"))
    asked = []

    async def approve(subject, why=None):
        asked.append(subject)
        return "n"

    state.emit = FakeUI(approve=approve)
    use_hooks(state, home, {"PreToolUse": [{"matcher": "Bash", "hooks": [{"command": hook(0, ask)}]}]})
    await on_submit(state, "go")
    assert asked == ["touch asked"] and not (workspace / "asked").exists()


async def test_a_matcher_of_claude_codes_tool_names_finds_ours(make_state, server, workspace, home, hook):
    """`MultiEdit|WebFetch`, as a Claude Code user wrote it, matches our edit_file and fetch_url (the one
    map of Claude Code's names is agent.tools.preapproval's)."""
    (workspace / "a.txt").write_text("one\n")
    server.script(
        ToolCalls([("read_file", {"path": "a.txt"})]),
        ToolCalls([("edit_file", {"path": "a.txt", "old_string": "one", "new_string": "two"})]),
        Text("ok"),
    )
    state = make_state()
    use_hooks(
        state,
        home,
        {
            "PreToolUse": [
                {
                    "matcher": "MultiEdit|WebFetch",
                    "hooks": [{"type": "command", "command": hook(2, stderr="held by the hook")}],
                }
            ]
        },
    )
    await on_submit(state, "edit it")
    assert (workspace / "a.txt").read_text() == "one\n"
    assert [e["tool_name"] for e in hook.seen()] == ["edit_file"]
