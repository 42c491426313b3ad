"""The sandbox's policy (agent/tools/sandbox/policy.py) from the flag, the environment and real settings
files: a project's file may tighten it, never loosen it, and says so in a line when it tried."""

from __future__ import annotations

import json

import pytest

import main
from agent.config import SandboxPolicy
from agent.provider import settings as files
from agent.tools.sandbox import policy
from controller import start_sandbox


def write(path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")


def start(argv: list[str]):
    """The config as main builds it, with the files' `sandbox` joined as start_state joins it."""
    args = main.parse_args(argv)
    args.settings = main.apply_settings(args, argv)
    config = main.build_config(args)
    return config, start_sandbox(config)


@pytest.fixture
def layers(home, workspace):
    return files.settings_paths(workspace)


def test_workspace_write_is_the_default_and_says_where_it_came_from(layers):
    config, warnings = start([])
    assert config.sandbox == SandboxPolicy(mode="workspace-write", network=False, origin="default")
    assert warnings == []


def test_the_users_own_file_may_loosen_it(layers, tmp_path):
    extra = tmp_path / "cache"
    extra.mkdir()
    write(
        layers["user"],
        {"sandbox": {"mode": "read-only", "network": True, "writableRoots": [str(extra)], "maxProcesses": 4096}},
    )
    config, warnings = start([])
    assert warnings == []
    assert config.sandbox == SandboxPolicy("read-only", True, (extra.resolve(),), 4096, "user")


@pytest.mark.parametrize("layer", ["project", "local"])
def test_a_projects_file_may_not_loosen_it_and_says_so(layers, tmp_path, layer):
    extra = tmp_path / "anywhere"
    extra.mkdir()
    write(
        layers[layer],
        {
            "sandbox": {
                "mode": "danger-full-access",
                "network": True,
                "writableRoots": [str(extra)],
                "maxProcesses": 100_000,
            }
        },
    )
    config, warnings = start([])
    assert config.sandbox == SandboxPolicy()
    assert len(warnings) == 4
    for key in ("mode", "network", "writableRoots", "maxProcesses"):
        assert any(f"'sandbox.{key}'" in w and str(layers[layer]) in w and "loosen" in w for w in warnings), key


def test_a_projects_file_may_tighten_it(layers):
    write(layers["user"], {"sandbox": {"network": True}})
    write(layers["project"], {"sandbox": {"mode": "read-only", "network": False, "maxProcesses": 64}})
    config, warnings = start([])
    assert warnings == []
    assert config.sandbox == SandboxPolicy("read-only", False, (), 64, "project")


def test_the_flag_and_the_environment_are_the_users_own(layers, monkeypatch):
    write(layers["project"], {"sandbox": {"mode": "read-only"}})
    config, _ = start(["--sandbox", "danger-full-access"])
    assert (config.sandbox.mode, config.sandbox.origin) == ("danger-full-access", "flag")
    monkeypatch.setenv("CODING_AGENT_SANDBOX", "workspace-write")
    config, _ = start([])
    assert (config.sandbox.mode, config.sandbox.origin) == ("workspace-write", "env")


def test_a_bad_environment_value_stops_with_one_line(monkeypatch, capsys):
    monkeypatch.setenv("CODING_AGENT_SANDBOX", "off")
    with pytest.raises(SystemExit) as stop:
        main.parse_args([])
    assert stop.value.code == 2
    said = capsys.readouterr().err
    assert "CODING_AGENT_SANDBOX: 'off' is not read-only / workspace-write / danger-full-access" in said


def test_bad_values_are_named_and_the_rest_is_used(layers, tmp_path):
    write(
        layers["user"],
        {
            "sandbox": {
                "mode": "yolo",
                "network": "yes",
                "writableRoots": ["relative/dir", str(tmp_path / "missing")],
                "maxProcesses": 3,
                "allowedHosts": ["x"],
            }
        },
    )
    config, warnings = start([])
    assert config.sandbox == SandboxPolicy()
    text = "\n".join(warnings)
    for name in (
        "sandbox.mode",
        "sandbox.network",
        "sandbox.writableRoots",
        "sandbox.maxProcesses",
        "sandbox.allowedHosts",
    ):
        assert name in text, name
    write(layers["user"], {"sandbox": {"writableRoots": [str(tmp_path / "missing")]}})
    _config, warnings = start([])
    assert any("is not an existing folder" in w for w in warnings)


def test_the_protected_paths_of_a_folder(tmp_path):
    (tmp_path / ".git" / "hooks").mkdir(parents=True)
    names = {p.relative_to(tmp_path).as_posix() for p in policy.protected_paths(tmp_path)}
    assert names == {
        ".git",
        ".coding-agent",
        ".claude",
        ".mcp.json",
        "AGENTS.md",
        "CLAUDE.md",
        ".git/hooks",
        ".git/config",
    }


def test_status_and_config_say_the_mode_and_why(workspace, monkeypatch):
    from agent.config import Config
    from agent.tools.sandbox import detect, status

    config = Config(workspace=workspace, sandbox=SandboxPolicy())
    monkeypatch.setattr(detect, "find", lambda ws: detect.Mechanism("bubblewrap", "bubblewrap 0.8.0", "/usr/bin/bwrap"))
    line = status.status_line(config, workspace, "en")
    assert line.startswith("Sandbox: workspace-write (bubblewrap 0.8.0) · network off · process limit ")
    assert status.start_notice(config, workspace, "en") is None
    monkeypatch.setattr(
        detect,
        "find",
        lambda ws: detect.Mechanism("none", missing=(("sandbox_missing_bwrap", ""), ("sandbox_missing_landlock", ""))),
    )
    assert status.status_line(config, workspace, "en") == (
        "Sandbox: none: bubblewrap not found; Landlock unavailable — commands run unsandboxed"
    )
    text, level = status.start_notice(config, workspace, "en")
    assert level == "warn" and "No OS sandbox here (bubblewrap not found; Landlock unavailable)" in text
    config.sandbox = SandboxPolicy(mode="danger-full-access", origin="flag")
    assert status.status_line(config, workspace, "en") == (
        "Sandbox: danger-full-access (flag): commands run with your full rights"
    )
    assert status.start_notice(config, workspace, "en") is None
    assert status.config_lines(config.sandbox, "en")[0].split() == ["sandbox", "danger-full-access", "flag"]
    assert status.status_line(Config(workspace=workspace), workspace, "en") is None  # no policy: as before
