"""Issue 24, part 1: the settings files, merged under the command line and the environment."""

from __future__ import annotations

import json
import os

import pytest

import main
from agent.events import EventLog, Listing
from agent.provider import settings as files
from ui.registry import CommandHost


def write(path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")


def start(argv: list[str]):
    args = main.parse_args(argv)
    args.settings = main.apply_settings(args, argv)
    return args, main.build_config(args)


@pytest.fixture
def layers(home, workspace):
    return files.settings_paths(workspace)


def test_each_layer_wins_over_the_one_below(layers, monkeypatch):
    write(layers["user"], {"model": "user-model", "cheapTier": "on", "compactAt": "50%", "contextWindow": 40_000})
    write(layers["project"], {"model": "project-model", "cheapTier": "off"})
    write(layers["local"], {"model": "local-model"})
    args, config = start([])
    assert config.model == "local-model"
    assert config.cheap_tier == "off"
    assert config.compact_at == "50%"
    assert config.context_window == 40_000 and config.window_known
    origins = config.settings.origins
    assert origins["model"] == ("local-model", "local")
    assert origins["cheapTier"] == ("off", "project")
    assert origins["compactAt"] == ("50%", "user")
    assert origins["reasoningEffort"] == (None, "default")

    monkeypatch.setenv("CODING_AGENT_MODEL", "env-model")
    args, config = start([])
    assert config.model == "env-model" and config.settings.origins["model"] == ("env-model", "env")
    args, config = start(["--model", "flag-model"])
    assert config.model == "flag-model" and config.settings.origins["model"] == ("flag-model", "flag")


def test_flags_that_are_switches_and_choices(layers):
    write(
        layers["project"],
        {
            "autoCompact": False,
            "thinking": False,
            "language": "zh",
            "maxRequests": 7,
            "debug": False,
            "reasoningEffort": "max",
        },
    )
    _args, config = start([])
    assert config.auto_compact is False
    assert config.thinking is False
    assert config.lang == "zh"
    assert config.max_requests == 7
    assert config.reasoning_effort == "max"
    _args, config = start(["--lang", "en", "--thinking", "on"])
    assert config.lang == "en" and config.thinking is True


def test_bad_files_and_values_are_one_line_each_and_the_rest_is_used(layers):
    write(layers["user"], "{ not json")
    write(
        layers["project"],
        {
            "model": "kept",
            "contextWindow": "big",
            "cheapTier": "sometimes",
            "colour": "red",
            "env": {"DEEPSEEK_API_KEY": "sk-from-a-repo", "FOO_FROM_SETTINGS": "1"},
        },
    )
    write(layers["local"], ["a", "list"])
    _args, config = start([])
    assert config.model == "kept"
    assert config.context_window == 131_072  # the bad value was not used
    warnings = config.settings.warnings
    assert len(warnings) == 6, warnings
    user, project, local = (str(layers[n]) for n in ("user", "project", "local"))
    assert any(user in w and "line 1" in w for w in warnings)
    assert any(project in w and "'contextWindow'" in w and "whole number" in w for w in warnings)
    assert any(project in w and "'cheapTier'" in w and "auto / on / off" in w for w in warnings)
    assert any(project in w and "'colour'" in w for w in warnings)
    assert any(project in w and "env.DEEPSEEK_API_KEY" in w for w in warnings)
    assert any(local in w and "JSON object" in w for w in warnings)
    assert "DEEPSEEK_API_KEY" not in os.environ
    # A project's env never enters the agent's own environment; it waits for the project's approval.
    assert "FOO_FROM_SETTINGS" not in os.environ and config.settings.project_env == {"FOO_FROM_SETTINGS": "1"}


def test_settings_env_is_below_the_real_environment(layers, monkeypatch):
    monkeypatch.setenv("ALREADY_SET_24", "real")
    write(layers["user"], {"env": {"ALREADY_SET_24": "file", "NEW_FROM_USER_24": "file"}})
    start([])
    assert os.environ["ALREADY_SET_24"] == "real"
    assert os.environ.pop("NEW_FROM_USER_24") == "file"


def test_the_warnings_reach_the_user_at_start_up(layers, capsys):
    from agent.events import Notice
    from controller import start_state

    write(layers["project"], {"nonsense": 1})
    args, config = start([])
    state = start_state(args, config)
    try:
        notices = [e for e in state.emit.events if isinstance(e, Notice)]
        assert any("nonsense" in n.text and n.level == "warn" for n in notices)
    finally:
        state.transcript.close()


def test_the_files_prices_reach_the_config_under_the_flags(layers):
    """`prices` in the settings files take --prices' schema and go through main.build_config into
    the config the price table reads; a model --prices names takes the flag's."""
    write(layers["user"], {"prices": {"my-model": {"hit": 1.0, "miss": 2.0, "output": 4.0}}})
    write(layers["project"], {"prices": {"other": {"miss": 0.5, "output": 0.5}}})
    _args, config = start(["--model", "my-model"])
    assert config.prices["my-model"].miss == 2.0 and config.prices["other"].hit == 0.5
    _args, config = start(["--model", "my-model", "--prices", '{"my-model": {"miss": 9, "output": 9}}'])
    assert config.prices["my-model"].miss == 9 and "other" in config.prices
    write(layers["project"], {"prices": {"other": {"input": 0.5}}})  # not the schema: a warning, skipped
    args, config = start(["--model", "my-model"])
    assert "other" not in config.prices
    assert any("prices" in w for w in args.settings.warnings)


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_config_shows_each_value_and_its_source(layers, lang):
    from controller import start_state
    from ui.commands import dispatch

    write(layers["project"], {"model": "from-project"})
    args, config = start(["--cheap-tier", "on", "--lang", lang])
    state = start_state(args, config)
    try:
        state.emit = EventLog()
        await dispatch(CommandHost(state), "/config")
        [listing] = state.emit.of(Listing)
        text = "\n".join(listing.lines)
        project, flag = {"en": ("project file", "flag"), "zh": ("项目设置", "命令行参数")}[lang]
        assert any("model" in line and "from-project" in line and project in line for line in listing.lines)
        assert any("cheapTier" in line and "on" in line and flag in line for line in listing.lines)
        assert str(layers["project"]) in text and str(layers["user"]) in text
        assert ("设置" in text) == (lang == "zh")
    finally:
        state.transcript.close()


def test_always_for_this_project_writes_the_local_file_and_keeps_the_rest(layers):
    write(layers["local"], {"model": "mine", "permissions": {"allow": ["Read"]}})
    files.add_rule(layers["local"].parent.parent, "allow", "run_command(npm test:*)")
    files.add_rule(layers["local"].parent.parent, "allow", "run_command(npm test:*)")
    data = json.loads(layers["local"].read_text())
    assert data == {"model": "mine", "permissions": {"allow": ["Read", "run_command(npm test:*)"]}}
