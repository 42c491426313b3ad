"""Claude Code's settings files (`~/.claude/settings.json`, `.claude/settings.json`,
`.claude/settings.local.json`) read where they are, below ours, with a project's grants held for the
trust question; Claude Code's tool names in their rules; what means nothing here listed by /config."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import main
from agent.events import EventLog, Listing, Notice
from agent.provider import grants
from agent.provider import settings as files
from agent.tools import permissions
from agent.tools.rule_match import BadRule, NoSuchTool, parse_rule, subject_matches
from tests.agent.tools.test_fetch_url import Site
from tests.fake_openai import Text, ToolCalls
from tests.test_main import run_main
from ui.registry import CommandHost


def write(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")


@pytest.fixture
def layers(home, workspace):
    return files.settings_paths(workspace)


def _sent(server) -> str:
    return json.dumps([r["body"] for r in server.requests])


def _tool_results(server) -> list[str]:
    return [m["content"] for m in server.requests[-1]["body"]["messages"] if m["role"] == "tool"]


def test_the_files_are_where_claude_code_keeps_them(layers, workspace):
    claude_home = Path(os.environ["CLAUDE_CONFIG_DIR"])
    assert list(layers) == ["claude-user", "user", "claude-project", "claude-local", "project", "local"]
    assert layers["claude-user"] == claude_home / "settings.json"
    assert layers["claude-project"] == workspace / ".claude" / "settings.json"
    assert layers["claude-local"] == workspace / ".claude" / "settings.local.json"
    assert files.is_users("claude-user") and not files.is_users("claude-project")


def test_a_deny_read_rule_in_claude_settings_keeps_the_env_file_from_the_model(workspace, home, server):
    """The issue's example, through -p: `Read(./.env)` in `.claude/settings.json` is a deny rule here
    too, for read_file and for a grep of the folder (a deny needs no approval of the project)."""
    write(workspace / ".claude" / "settings.json", {"permissions": {"deny": ["Read(./.env)"]}})
    (workspace / ".env").write_text("TOKEN=secret-claude-33\n")
    (workspace / "notes.txt").write_text("TOKEN=visible-33\n")
    server.script(
        ToolCalls([("read_file", {"path": ".env"})]), ToolCalls([("grep", {"pattern": "TOKEN"})]), Text("done")
    )
    result = run_main(["--base-url", server.base_url, "-p", "what is in .env?"], workspace, home)
    assert result.returncode == 0, result.stderr
    assert "secret-claude-33" not in _sent(server)
    read, searched = _tool_results(server)
    assert "'Read(./.env)' (deny) refuses" in read
    assert "notes.txt:1:TOKEN=visible-33" in searched and "1 file(s) not searched" in searched


def test_webfetch_domain_rules_match_fetch_urls_host(workspace, home, server):
    site = Site()
    try:
        url = f"{site.url}/page"
        # An allow rule in the user's ~/.claude/settings.json: -p cannot ask, the rule lets it through.
        write(
            Path(os.environ["CLAUDE_CONFIG_DIR"]) / "settings.json",
            {"permissions": {"allow": ["WebFetch(domain:127.0.0.1)"]}},
        )
        server.script(ToolCalls([("fetch_url", {"url": url})]), Text("fetched"))
        allowed = run_main(
            ["--base-url", server.base_url, "-p", "fetch it", "--fetch-allow-network", "127.0.0.0/8"], workspace, home
        )
        assert allowed.returncode == 0, allowed.stderr
        assert "# Install" in _tool_results(server)[0] and len(site.requests) == 1
        # A project's deny rule with a wildcard refuses it even under --yes; the site is not reached.
        write(workspace / ".claude" / "settings.json", {"permissions": {"deny": ["WebFetch(domain:127.0.0.*)"]}})
        server.script(ToolCalls([("fetch_url", {"url": url})]), Text("refused"))
        denied = run_main(
            ["--base-url", server.base_url, "--yes", "-p", "fetch it", "--fetch-allow-network", "127.0.0.0/8"],
            workspace,
            home,
        )
        assert denied.returncode == 0, denied.stderr
        assert "'WebFetch(domain:127.0.0.*)' (deny) refuses fetching from 127.0.0.1" in _tool_results(server)[0]
        assert len(site.requests) == 1
    finally:
        site.stop()


def test_claude_codes_tool_names_in_rules(workspace):
    assert parse_rule("WebFetch(domain:example.com)").tools == ("fetch_url",)
    assert parse_rule("WebFetch").specifier is None
    assert subject_matches("domain:example.com", "EXAMPLE.com.")
    assert subject_matches("domain:*.example.com", "docs.example.com")
    assert not subject_matches("domain:example.com", "example.com.evil.net")
    assert parse_rule("Task(reviewer)").tools == ("task",) and parse_rule("TodoWrite").tools == ("todo",)
    notebook = parse_rule("NotebookEdit")
    assert notebook.tools == ("write_file", "edit_file") and notebook.specifier == "*.ipynb"
    assert parse_rule("LS").tools == ("list_files",)
    with pytest.raises(NoSuchTool):
        parse_rule("WebSearch")
    for bad in ("WebFetch(https://example.com)", "TodoWrite(x)"):
        with pytest.raises(BadRule):
            parse_rule(bad)
    p = permissions.Permissions()
    p.rules["deny"] = [parse_rule("Task(review*)"), parse_rule("NotebookEdit(nb/**)")]
    assert permissions.decide(p, "task", workspace, subject="reviewer")[0] == "deny"
    assert permissions.decide(p, "task", workspace, subject="general-purpose")[0] == "none"
    assert permissions.decide(p, "edit_file", workspace, path=workspace / "nb" / "a.ipynb")[0] == "deny"


async def test_a_task_deny_rule_stops_the_sub_agent_in_a_real_turn(make_state, server, workspace):
    from agent.events import ToolResult
    from agent.turn.loop import run_turn

    write(workspace / ".claude" / "settings.json", {"permissions": {"deny": ["Task"]}})
    state = make_state()
    state.permissions, _ = permissions.load(files.load(workspace), None, False, "en")
    server.script(ToolCalls([("task", {"description": "look", "prompt": "look around"})]), Text("done"))
    outcome = await run_turn(state, "delegate")
    assert outcome.ok, outcome.error
    [result] = state.emit.of(ToolResult)
    assert "'Task' (deny) refuses" in result.content


def test_claude_files_sit_below_ours_and_what_means_nothing_here_is_listed(layers, workspace):
    write(
        layers["claude-user"],
        {
            "model": "claude-opus-4",
            "language": "zh",
            "includeCoAuthoredBy": False,
            "env": {"CC_USER_33": "claude", "ANTHROPIC_AUTH_TOKEN": "tok-33"},
            "permissions": {"allow": ["WebSearch", "Bash(ls:*)"], "defaultMode": "plan"},
            "hooks": {"Notification": [{"hooks": [{"type": "command", "command": "true"}]}]},
        },
    )
    write(layers["user"], {"env": {"CC_USER_33": "ours"}, "compactAt": "70%", "language": "en"})
    write(
        layers["claude-project"],
        {"compactAt": "60%", "thinking": "off", "$schema": "x", "sandbox": {"enabled": True}, "language": "japanese"},
    )
    write(layers["project"], {"thinking": "on"})
    args = main.parse_args([])
    settings = args.settings = main.apply_settings(args, [])
    config = main.build_config(args)
    try:
        assert config.model == "deepseek-flash" and config.lang == "en"  # ours beat Claude Code's
        assert config.thinking is True and config.compact_at == "60%"  # a project's file beats a user's
        assert os.environ["CC_USER_33"] == "ours" and "ANTHROPIC_AUTH_TOKEN" not in os.environ
        perms, warnings = permissions.load(settings, None, False, "en")
        assert [r.text for r in perms.rules["allow"]] == ["Bash(ls:*)"] and perms.mode == "plan"
        from agent.tools import hooks

        loaded, hook_warnings = hooks.load(settings, "en")
        assert not loaded.active and not hook_warnings and not warnings and not settings.warnings
        ignored = {(layer, name, why) for layer, name, why, _values in settings.ignored}
        assert ignored == {
            ("claude-user", "model", "model"),
            ("claude-user", "includeCoAuthoredBy", "claude_only"),
            ("claude-user", "env.ANTHROPIC_AUTH_TOKEN", "claude_env"),
            ("claude-user", "permissions.allow WebSearch", "no_tool"),
            ("claude-user", "hooks.Notification", "hook_event"),
            ("claude-project", "sandbox", "sandbox"),
            ("claude-project", "language", "language"),
        }
    finally:
        os.environ.pop("CC_USER_33", None)


def test_a_claude_projects_grants_wait_for_the_question(layers, workspace):
    write(
        layers["claude-project"],
        {
            "env": {"CC_PROJECT_33": "on", "HTTPS_PROXY": "http://127.0.0.1:9"},
            "permissions": {"allow": ["Bash(npm test:*)"], "deny": ["Bash(rm:*)"]},
        },
    )
    write(layers["claude-local"], {"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "touch x"}]}]}})
    args = main.parse_args([])
    settings = main.apply_settings(args, [])
    assert "CC_PROJECT_33" not in os.environ and settings.project_env == {"CC_PROJECT_33": "on"}
    assert ("claude-project", "HTTPS_PROXY") in settings.refused_env
    perms, _ = permissions.load(settings, None, False, "en")
    assert [r.text for r in perms.pending_allow] == ["Bash(npm test:*)"]
    assert [r.text for r in perms.rules["deny"]] == ["Bash(rm:*)"]  # a deny counts at once
    lines = grants.describe(grants.collect(settings, workspace), "en")
    assert "env      CC_PROJECT_33=on" in lines
    assert "allow    Bash(npm test:*)  (.claude/settings.json)" in lines
    assert "hook     SessionStart (claude-local): touch x" in lines


def test_the_home_folders_claude_file_is_the_users_not_the_projects(home, tmp_path, monkeypatch):
    """Started in the home folder, `.claude/settings.json` is ~/.claude/settings.json: read once, as the user's."""
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / ".claude"))
    write(tmp_path / ".claude" / "settings.json", {"permissions": {"allow": ["Bash(make:*)"]}})
    settings = files.load(tmp_path)
    perms, _ = permissions.load(settings, None, False, "en")
    assert [r.text for r in perms.rules["allow"]] == ["Bash(make:*)"] and not perms.pending_allow


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_config_names_each_file_and_what_is_not_applied(layers, lang):
    from controller import start_state
    from ui.commands import dispatch

    write(layers["claude-project"], {"model": "sonnet", "permissions": {"deny": ["WebSearch"]}})
    args = main.parse_args(["--lang", lang])
    args.settings = main.apply_settings(args, ["--lang", lang])
    state = start_state(args, main.build_config(args))
    try:
        notes = [n.text for n in state.emit.of(Notice)]
        read = {"en": "Read Claude Code's settings", "zh": "已读取 Claude Code 的设置"}[lang]
        assert any(read in n and str(layers["claude-project"]) in n for n in notes)
        state.emit = EventLog()
        await dispatch(CommandHost(state), "/config")
        [listing] = state.emit.of(Listing)
        text = "\n".join(listing.lines)
        for layer in ("claude-user", "claude-project", "claude-local"):
            assert str(layers[layer]) in text
        model, no_tool = {
            "en": ("model (Claude Code project file): names Claude Code's model", "this agent has no WebSearch tool"),
            "zh": ("model（Claude Code 项目设置）：指定的是 Claude Code 的模型", "本程序没有 WebSearch 工具"),
        }[lang]
        assert model in text and no_tool in text
    finally:
        state.transcript.close()
