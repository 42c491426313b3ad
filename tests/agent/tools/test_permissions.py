"""Issue 24, part 2: permission modes and saved rules; a rule never matches more than it says."""

from __future__ import annotations

import json

import pytest

from agent.events import ApprovalRequest, EventLog, ToolResult
from agent.tools import permissions
from agent.tools.builtin import edit_file, run_command, write_file
from agent.tools.permissions import Permissions, decide
from agent.tools.rule_match import BadRule, parse_rule
from agent.turn.loop import run_turn
from tests.fake_openai import Text, ToolCalls
from tests.fake_ui import FakeUI

# A rule allowing `ls` with any arguments, and what it must not allow.
LS_ALLOWED = ["ls", "ls -la", "ls 'a b'", 'ls "docs dir"', "ls 2>&1", "ls ~/src", "ls -- '$(rm x)'"]
LS_REFUSED = [
    "ls; rm -rf x",
    "ls && rm -rf x",
    "ls || rm -rf x",
    "ls | sh",
    "ls & rm x",
    "ls &",
    "ls $(rm -rf x)",
    'ls "$(rm -rf x)"',
    "ls `rm -rf x`",
    "ls <(rm x)",
    "ls >(rm x)",
    "ls > .git/hooks/pre-commit",
    "ls >> notes",
    "ls < /etc/passwd",
    "ls 2> err",
    "ls &> out",
    "LD_PRELOAD=/tmp/x.so ls",
    "PATH=. ls",
    "ls\nrm -rf x",
    "ls\rrm -rf x",
    "(ls)",
    "{ ls; }",
    "ls $HOME",
    "ls ${IFS}x",
    "ls <<EOF\nx\nEOF",
    "lsblk",
    "/bin/ls",
    "if ls; then rm x; fi",
    "ls $((1+1))",
    "ls \\\nrm",
    "exec ls",
    "ls 'unclosed",
]


def perms(allow=(), ask=(), deny=(), mode=None) -> Permissions:
    p = Permissions(mode=mode)
    p.rules = {
        "allow": [parse_rule(r) for r in allow],
        "ask": [parse_rule(r) for r in ask],
        "deny": [parse_rule(r) for r in deny],
    }
    return p


@pytest.mark.parametrize("rule", ["run_command(ls:*)", "Bash(ls:*)", "Bash(ls *)"])
@pytest.mark.parametrize("command", LS_ALLOWED)
def test_a_prefix_rule_allows_the_plain_command(rule, command, workspace):
    assert decide(perms(allow=[rule]), "run_command", workspace, command=command)[0] == "allow"


@pytest.mark.parametrize("rule", ["run_command(ls:*)", "Bash(ls:*)", "Bash(ls *)"])
@pytest.mark.parametrize("command", LS_REFUSED)
def test_a_prefix_rule_never_allows_more_than_it_says(rule, command, workspace):
    assert decide(perms(allow=[rule]), "run_command", workspace, command=command)[0] == "none"


@pytest.mark.parametrize(
    ("rule", "command", "allowed"),
    [
        ("Bash(npm test)", "npm test", True),
        ("Bash(npm test)", "npm test --watch", False),
        ("Bash(npm test)", "npm test; rm x", False),
        ("Bash(npm run test:*)", "npm run test -- --ci", True),
        ("Bash(npm run test:*)", "npm run testing", False),
        ("Bash(npm run test:*)", "npm run lint", False),
        ("Bash(git * main)", "git push origin main", True),
        ("Bash(git * main)", "git push origin main; rm x", False),
        ("Bash(git * main)", "git push origin dev", False),
        ("Bash(git diff *)", "git diff", True),
        ("Bash(git diff *)", "git diffx", False),
        # An exact rule matches exactly that line, compound or not: it says no more than that.
        ("run_command(make && make install)", "make && make install", True),
        ("run_command(make && make install)", "make && make install; rm x", False),
        ("Bash", "anything at all; really", True),
    ],
)
def test_command_rules(rule, command, allowed, workspace):
    assert (decide(perms(allow=[rule]), "run_command", workspace, command=command)[0] == "allow") is allowed


def test_deny_wins_and_sees_inside_compound_commands(workspace):
    p = perms(allow=["Bash", "Bash(rm:*)"], deny=["Bash(rm:*)"], ask=["Bash(git push:*)"])
    for command in ("rm x", "ls; rm -rf x", "echo $(rm -rf x)", "ls | rm x"):
        assert decide(p, "run_command", workspace, command=command)[0] == "deny", command
    assert decide(p, "run_command", workspace, command="ls && git push origin")[0] == "ask"
    assert decide(p, "run_command", workspace, command="ls")[0] == "allow"


def test_path_rules(workspace):
    p = perms(allow=["Edit(docs/**)", "Write(*.md)", "Read(//etc/hostname)"], deny=["Read(./.env)"])
    assert decide(p, "write_file", workspace, path=workspace / "docs" / "a" / "b.txt")[0] == "allow"
    assert decide(p, "edit_file", workspace, path=workspace / "docs" / "x.py")[0] == "allow"
    assert decide(p, "write_file", workspace, path=workspace / "src" / "notes.md")[0] == "allow"
    assert decide(p, "edit_file", workspace, path=workspace / "src" / "notes.md")[0] == "none"  # Write only
    assert decide(p, "write_file", workspace, path=workspace / "src" / "a.py")[0] == "none"
    assert decide(p, "read_file", workspace, path=workspace / ".env")[0] == "deny"
    assert decide(p, "grep", workspace, path=workspace / ".env")[0] == "deny"
    assert decide(p, "read_file", workspace, path=workspace / "sub" / ".env")[0] == "none"


def test_mcp_rules(workspace):
    p = perms(allow=["mcp__github__get_*", "mcp__fs"], deny=["mcp__github__delete_repo"])
    assert decide(p, "mcp__github__get_issue", workspace)[0] == "allow"
    assert decide(p, "mcp__github__create_issue", workspace)[0] == "none"
    assert decide(p, "mcp__github__delete_repo", workspace)[0] == "deny"
    assert decide(p, "mcp__fs__read", workspace)[0] == "allow"
    assert decide(p, "mcp__fsx__read", workspace)[0] == "none"


@pytest.mark.parametrize("text", ["Frobnicate(x)", "Bash(unclosed", "mcp__x(y)", ""])
def test_unknown_rules_are_refused(text):
    with pytest.raises(BadRule):
        parse_rule(text)


# --- modes, through the tools ----------------------------------------------------------------


def _asker(answer: str, asked: list):
    async def approve(subject: str, why: str | None = None) -> str:
        asked.append((subject, why))
        return answer

    return approve


async def test_plan_mode_runs_and_writes_nothing(ctx, workspace):
    ctx.deps.permissions.mode = "plan"
    ctx.deps.emit = FakeUI(approve=_asker("y", asked := []))
    assert "plan mode" in await write_file(ctx, "a.txt", "x")
    assert "plan mode" in await run_command(ctx, "touch made")
    assert not (workspace / "a.txt").exists() and not (workspace / "made").exists() and asked == []


async def test_default_mode_asks_before_an_edit_and_accept_edits_does_not(ctx, workspace):
    ctx.deps.permissions.mode = "default"
    ctx.deps.emit = FakeUI(approve=_asker("n", asked := []))
    assert "declined" in await write_file(ctx, "a.txt", "x")
    assert not (workspace / "a.txt").exists() and asked[0][0] == "a.txt" and "default" in asked[0][1]
    ctx.deps.permissions.mode = "acceptEdits"
    assert "Created" in (await write_file(ctx, "a.txt", "x")).return_value
    assert len(asked) == 1
    assert "declined" in await run_command(ctx, "touch made")  # commands are still asked
    ctx.deps.permissions.mode = "bypassPermissions"
    assert "exit code: 0" in await run_command(ctx, "touch made")


async def test_git_writes_stay_asked_unless_a_rule_names_git(ctx, workspace):
    (workspace / ".git").mkdir()
    ctx.deps.permissions = perms(allow=["Edit(**)", "Edit"])
    ctx.deps.emit = FakeUI(approve=_asker("n", asked := []))
    assert "declined" in await write_file(ctx, ".git/config", "[core]\n")
    assert len(asked) == 1 and ".git" in asked[0][1]
    ctx.deps.permissions = perms(allow=["Edit(.git/config)"])
    assert "Created" in (await write_file(ctx, ".git/config", "[core]\n")).return_value
    assert len(asked) == 1


async def test_always_for_this_project_saves_a_rule_that_counts_now_and_next_time(ctx, workspace):
    ctx.deps.emit = FakeUI(approve=_asker("project", asked := []))
    assert "hi" in await run_command(ctx, "echo hi")
    local = workspace / ".coding-agent" / "settings.local.json"
    assert json.loads(local.read_text()) == {"permissions": {"allow": ["run_command(echo hi)"]}}
    ctx.deps.emit = FakeUI(approve=_asker("n", asked))
    assert "hi" in await run_command(ctx, "echo hi")
    assert "declined" in await run_command(ctx, "echo hi; touch made")
    assert len(asked) == 2 and not (workspace / "made").exists()


def test_a_projects_allow_rules_wait_for_its_approval(workspace, home):
    from agent.provider import settings as files

    (workspace / ".coding-agent").mkdir()
    (workspace / ".coding-agent" / "settings.json").write_text(
        json.dumps(
            {
                "permissions": {
                    "allow": ["Bash"],
                    "deny": ["Bash(rm:*)"],
                    "defaultMode": "bypassPermissions",
                    "alow": ["typo"],
                    "additionalDirectories": ["../lib"],
                }
            }
        )
    )
    (home).mkdir(exist_ok=True)
    (home / "settings.json").write_text(json.dumps({"permissions": {"allow": ["Bash(ls:*)"]}}))
    p, warnings = permissions.load(files.load(workspace), None, False, "en")
    assert [r.text for r in p.rules["allow"]] == ["Bash(ls:*)"]
    assert [r.text for r in p.rules["deny"]] == ["Bash(rm:*)"]  # a restriction needs no approval
    assert [r.text for r in p.pending_allow] == ["Bash"]
    assert p.mode is None and any("bypassPermissions" in w for w in warnings)
    assert any("'permissions.alow'" in w for w in warnings) and len(warnings) == 2
    p.trust_project()
    assert decide(p, "run_command", workspace, command="make")[0] == "allow"


def test_shift_tab_cycles_the_modes(state):
    seen = [permissions.mode(state)]
    for _ in range(3):
        seen.append(state.permissions.next_mode(state))
    assert seen == ["acceptEdits", "plan", "default", "acceptEdits"]
    state.permissions, _ = permissions.load(None, None, True, "en")
    assert [state.permissions.next_mode(state) for _ in range(4)] == [
        "default",
        "acceptEdits",
        "plan",
        "bypassPermissions",
    ]


async def test_a_read_rule_is_kept_in_a_real_turn(make_state, server, workspace):
    (workspace / ".env").write_text("TOKEN=secret-in-env\n")
    server.script(ToolCalls([("read_file", {"path": ".env"})]), Text("done"))
    state = make_state()
    state.permissions = perms(deny=["Read(.env)"])
    outcome = await run_turn(state, "read the env")
    assert outcome.ok, outcome.error
    [result] = state.emit.of(ToolResult)
    assert "deny" in result.content and "secret-in-env" not in result.content
    assert "secret-in-env" not in json.dumps(server.requests[-1]["body"])
    assert "read_file" in json.dumps(server.requests[-1]["body"])


async def test_an_ask_rule_on_reads_asks(make_state, server, workspace):
    (workspace / "notes.txt").write_text("private notes\n")
    server.script(ToolCalls([("read_file", {"path": "notes.txt"})]), Text("done"))
    state = make_state()
    state.permissions = perms(ask=["Read(notes.txt)"])
    state.emit = log = EventLog()
    await run_turn(state, "read the notes")
    assert [e.kind for e in log.of(ApprovalRequest)] == ["read"]
    [result] = log.of(ToolResult)
    assert "declined" in result.content


async def test_a_write_rule_is_for_write_file_only(ctx, workspace):
    (workspace / "notes.md").write_text("old\n")
    ctx.deps.permissions = perms(allow=["Write(*.md)"], mode="default")
    ctx.deps.emit = FakeUI(approve=_asker("n", asked := []))
    ctx.deps.read_file_state.record(workspace / "notes.md")
    assert "Wrote" in (await write_file(ctx, "notes.md", "new\n")).return_value
    assert "declined" in await edit_file(ctx, "notes.md", "new", "newer")
    assert [subject for subject, _why in asked] == ["notes.md"]
