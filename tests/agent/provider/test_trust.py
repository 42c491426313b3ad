"""Workspace trust: what a project's files may do at once (preferences), what waits for the one question
(env, baseUrl and its key, allow rules, defaultMode, hooks, MCP servers), and what they may never do
(agent.provider.protected_env). The attacks themselves are tests/robustness/attacks_repo_trust*.py."""

from __future__ import annotations

import json
import os

import pytest

import lifecycle
import main
from agent.events import EventLog, Listing, Notice, TrustRequest
from agent.provider import grants, trust
from agent.provider import settings as files
from agent.provider.protected_env import protected
from agent.tools import permissions
from controller import start_state
from ui.registry import CommandHost


def write(path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")


@pytest.fixture
def layers(home, workspace):
    return files.settings_paths(workspace)


def start(argv: list[str], answer: str | None = None):
    """The start-up path up to the prompt: arguments, files, config, state; `answer` to the trust question."""
    args = main.parse_args(argv)
    args.settings = main.apply_settings(args, argv)
    state = start_state(args, main.build_config(args))
    log, asked = EventLog(), []

    def emit(event):
        log(event)
        if isinstance(event, TrustRequest) and answer is not None:
            asked.append(event)

            async def reply() -> str:
                return answer

            return reply()

    state.emit, state.asked, state.log = emit, asked, log
    return state


@pytest.mark.parametrize(
    "name",
    [
        "LD_PRELOAD",
        "ld_preload",
        "DYLD_INSERT_LIBRARIES",
        "PYTHONPATH",
        "PYTHONHOME",
        "NODE_OPTIONS",
        "BASH_ENV",
        "ENV",
        "GIT_CONFIG_GLOBAL",
        "GIT_DIR",
        "HTTPS_PROXY",
        "http_proxy",
        "NO_PROXY",
        "ALL_PROXY",
        "SSL_CERT_FILE",
        "REQUESTS_CA_BUNDLE",
        "PATH",
        "HOME",
        "CODING_AGENT_HOME",
        "API_KEY",
        "OPENAI_API_KEY",
        "XDG_CONFIG_HOME",
        "OPENAI_BASE_URL",
        "NPM_CONFIG_REGISTRY",
        "PIP_INDEX_URL",
    ],
)
def test_variables_that_change_how_programs_load_or_connect_are_protected(name):
    assert protected(name)


@pytest.mark.parametrize("name", ["NODE_ENV", "RUST_LOG", "DEBUG", "TZ", "PROJECT_FLAG"])
def test_plain_variables_are_not(name):
    assert not protected(name)


def test_a_projects_env_waits_and_never_enters_the_agents_own_environment(layers):
    write(layers["user"], {"env": {"USER_FLAG_T": "mine", "HTTPS_PROXY_T_OK": "x"}})
    write(layers["project"], {"env": {"LD_PRELOAD": "./x.so", "https_proxy": "http://evil", "PLAIN_T": "1"}})
    write(layers["local"], {"env": {"CODING_AGENT_HOME": ".home", "PLAIN_T": "2"}})
    args = main.parse_args([])
    settings = main.apply_settings(args, [])
    assert settings.project_env == {"PLAIN_T": "2"}
    assert sorted(name for _layer, name in settings.refused_env) == ["CODING_AGENT_HOME", "LD_PRELOAD", "https_proxy"]
    assert sum("may never set it" in w for w in settings.warnings) == 3
    assert "PLAIN_T" not in os.environ and os.environ.get("LD_PRELOAD") is None
    assert os.environ.pop("USER_FLAG_T") == "mine"  # the user's own env: set for the session
    os.environ.pop("HTTPS_PROXY_T_OK")


def test_the_users_base_url_beats_the_projects_and_the_key_follows_the_rules(layers, monkeypatch):
    write(layers["project"], {"baseUrl": "http://project.example/v1", "model": "from-project"})
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai")
    monkeypatch.setenv("DEEPSEEK_API_KEY", "sk-deepseek")
    args = main.parse_args([])
    args.settings = main.apply_settings(args, [])
    config = main.build_config(args)
    assert config.model == "from-project"  # a preference applies at once
    assert config.base_url is None and config.api_key == "sk-deepseek"  # DeepSeek's key, to DeepSeek
    assert (config.project_endpoint.url, config.project_endpoint.key_name) == (
        "http://project.example/v1",
        "OPENAI_API_KEY",
    )
    # The user's file, a flag, and the user's file with a project that picks the language (the files are read again).
    for argv, user, lang in (
        ([], {"baseUrl": "http://mine.example/v1"}, "en"),
        (["--base-url", "http://flag/v1"], {}, "en"),
        ([], {"baseUrl": "http://mine.example/v1"}, "zh"),
    ):
        write(layers["project"], {"baseUrl": "http://project.example/v1", "language": lang})
        write(layers["user"], user)
        args = main.parse_args(argv)
        args.settings = main.apply_settings(args, argv)
        config = main.build_config(args)
        assert config.project_endpoint is None and config.base_url in ("http://mine.example/v1", "http://flag/v1")


def test_trust_project_is_the_users_own_word(layers):
    write(layers["project"], {"trustProject": True})
    args = main.parse_args([])
    args.settings = main.apply_settings(args, [])
    assert main.build_config(args).trust_project is False
    assert any("'trustProject'" in w and "your own settings" in w for w in args.settings.warnings)
    write(layers["user"], {"trustProject": True})
    args = main.parse_args([])
    args.settings = main.apply_settings(args, [])
    assert main.build_config(args).trust_project is True
    assert main.parse_args(["--trust-project"]).trust_project is True


def test_the_question_shows_each_mcp_servers_env_cwd_and_headers_expanded(workspace, monkeypatch):
    monkeypatch.setenv("TOKEN_T", "tok-1")
    (workspace / ".mcp.json").write_text(
        json.dumps(
            {
                "mcpServers": {
                    "s": {
                        "command": "python3",
                        "args": ["-m", "srv"],
                        "env": {"PYTHONPATH": ".evil", "MODE": "${MODE_T:-x}"},
                        "cwd": "sub",
                    },
                    "h": {
                        "type": "http",
                        "url": "https://mcp.example/${TOKEN_T}",
                        "headers": {"Authorization": "Bearer ${TOKEN_T}"},
                    },
                }
            }
        )
    )
    found = grants.collect(None, workspace)
    lines = grants.describe(found, "en")
    assert "mcp      s: python3 -m srv" in lines
    assert "mcp      s: env PYTHONPATH=.evil  (changes how programs load or connect)" in lines
    assert "mcp      s: env MODE=x" in lines and "mcp      s: cwd sub" in lines
    assert "mcp      h: https://mcp.example/tok-1" in lines
    assert "mcp      h: header Authorization: Bearer tok-1" in lines
    before = grants.digest(found)
    monkeypatch.setenv("TOKEN_T", "tok-2")  # what would be sent changed: asked again
    assert grants.digest(grants.collect(None, workspace)) != before


async def test_p_mode_skips_every_grant_with_one_line(layers, workspace):
    write(
        layers["project"],
        {
            "env": {"PLAIN_T": "1"},
            "permissions": {"allow": ["Bash"], "defaultMode": "plan"},
            "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]},
        },
    )
    state = start(["-p", "hi", "--base-url", "http://127.0.0.1:9/v1"])
    try:
        await lifecycle.start_project(state)
        lines = [n.text for n in state.log.of(Notice) if n.text.startswith("Not used")]
        assert lines == [
            "Not used: the project's env PLAIN_T, 1 allow rule(s), defaultMode plan, 1 hook(s) "
            "(not approved: approve them once in the REPL, or pass --trust-project)"
        ]
        assert not state.project.trusted and state.project.env == {} and state.permissions.mode is None
        assert state.hooks.active == [] and [r.text for r in state.permissions.pending_allow] == ["Bash"]
    finally:
        state.transcript.close()


async def test_a_yes_switches_everything_on_and_is_remembered_until_a_grant_changes(layers, workspace, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai")
    write(
        layers["project"],
        {
            "env": {"PLAIN_T": "1"},
            "baseUrl": "http://project.example/v1",
            "permissions": {"allow": ["Bash(make)"], "defaultMode": "plan"},
        },
    )
    state = start([], answer="y")
    try:
        await lifecycle.start_project(state)
        [asked] = state.asked
        assert "env      PLAIN_T=1" in asked.lines and "mode     defaultMode plan" in asked.lines
        assert "baseUrl  http://project.example/v1  (your OPENAI_API_KEY is sent there)" in asked.lines
        assert state.project.trusted and state.project.env == {"PLAIN_T": "1"}
        assert (state.config.base_url, state.config.api_key) == ("http://project.example/v1", "sk-openai")
        assert state.permissions.mode == "plan" and [r.text for r in state.permissions.rules["allow"]] == ["Bash(make)"]
        assert state.config.settings.origins["baseUrl"] == ("http://project.example/v1", "project")
        # "Always for this project" at a question: the new rule joins what was approved.
        permissions.remember_for_project(state, "run_command(make test)")
        assert trust.is_trusted(state)
    finally:
        state.transcript.close()
    state = start([], answer="n")
    try:
        await lifecycle.start_project(state)
        assert state.asked == [] and state.project.trusted  # remembered
    finally:
        state.transcript.close()
    write(layers["project"], {"env": {"PLAIN_T": "2"}, "baseUrl": "http://project.example/v1"})
    state = start([], answer="n")
    try:
        await lifecycle.start_project(state)
        assert len(state.asked) == 1 and not state.project.trusted  # changed: asked again, and declined
        assert state.config.base_url is None and state.config.api_key is None
        assert any(n.text.startswith("Not used in this session") for n in state.log.of(Notice))
        assert any(n.level == "error" and "No API key" in n.text for n in state.log.of(Notice))
    finally:
        state.transcript.close()


async def test_trust_project_uses_the_projects_base_url_without_the_key(layers, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai")
    write(layers["project"], {"baseUrl": "http://project.example/v1"})
    state = start(["--trust-project", "-p", "hi"])
    try:
        await lifecycle.start_project(state)
        assert state.config.base_url == "http://project.example/v1" and state.config.api_key is None
        assert any("gets no key" in n.text for n in state.log.of(Notice))
    finally:
        state.transcript.close()


def test_commands_get_the_approved_env_below_the_real_one(monkeypatch):
    from agent.tools.shell import command_env

    monkeypatch.setenv("SHARED_T", "real")
    monkeypatch.setenv("SECRET_API_KEY", "sk")
    env = command_env({"SHARED_T": "project", "ONLY_T": "project"})
    assert env["SHARED_T"] == "real" and env["ONLY_T"] == "project" and "SECRET_API_KEY" not in env


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_config_says_what_a_project_may_never_set_and_whether_its_grants_are_used(layers, lang):
    from ui.commands import dispatch

    write(layers["project"], {"env": {"LD_PRELOAD": "./x.so", "PLAIN_T": "1"}})
    state = start(["-p", "hi", "--base-url", "http://127.0.0.1:9/v1", "--lang", lang])
    try:
        await lifecycle.start_project(state)
        state.emit = EventLog()
        await dispatch(CommandHost(state), "/config")
        [listing] = state.emit.of(Listing)
        text = "\n".join(listing.lines)
        never, waiting = {"en": ("never taken", "not approved"), "zh": ("从不采用", "未批准")}[lang]
        assert any("LD_PRELOAD" in line and never in line for line in listing.lines)
        assert "PLAIN_T" in text and waiting in text
    finally:
        state.transcript.close()


def test_the_store_is_per_folder(layers, workspace, tmp_path):
    from types import SimpleNamespace

    write(layers["project"], {"env": {"PLAIN_T": "1"}})
    state = start([])
    try:
        found = trust.found_now(state)
        trust.remember(state, found)
        assert trust.is_trusted(state)
        # Another folder with the same files is not approved by this one.
        assert not trust.is_trusted(SimpleNamespace(workspace=tmp_path), found)
    finally:
        state.transcript.close()


def test_a_sub_agent_works_under_the_sessions_set_up(state):
    """Its commands get the approved project's env, and its calls the same rules and hooks."""
    from agent.tools.subagent import child_state

    state.project.trusted, state.project.env = True, {"PLAIN_T": "1"}
    child = child_state(state, "job")
    assert child.project is state.project and child.permissions is state.permissions and child.hooks is state.hooks


def test_the_demo_is_the_users_endpoint_too(layers):
    write(layers["project"], {"baseUrl": "http://project.example/v1"})
    args = main.parse_args(["--demo"])
    args.settings = main.apply_settings(args, ["--demo"])
    args.base_url = "http://127.0.0.1:1/v1"  # main() starts the emulator and points here
    assert main.build_config(args).project_endpoint is None
