"""Settings files, Claude Code's layout under our folder names: the user's
`~/.coding-agent/settings.json` (CODING_AGENT_HOME moves it), then the project's committed
`.coding-agent/settings.json`, then its uncommitted `.coding-agent/settings.local.json`; a later file
wins a preference. Claude Code's own files are read too, each just below ours of the same owner
(agent.provider.claude_settings). All of them sit below the command line and the environment (main.py
applies them only to what neither set).

A file never stops the agent: a bad file or value is one line naming the file and the key, and the
rest is used. Each file is the user's own or the project's (LAYER_FILES): a project's file is someone
else's text (a cloned repository), so what it says about where traffic goes or what code runs
(`baseUrl`, `env`, allow rules, hooks, MCP servers) is held back until the user approves it
(agent.provider.grants, agent.provider.trust), the user's own value of such a key beats the
project's, and some variables it may never set at all (agent.provider.protected_env).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.config import REASONING_EFFORTS, data_home, env_name
from agent.provider import claude_settings as claude
from agent.provider.keys import is_key_name
from agent.provider.protected_env import protected, valid_name
from agent.text.i18n import t

PROJECT_DIR = ".coding-agent"
USER, PROJECT, LOCAL = "user", "project", "local"
# Each file: its layer's name, whose text it is (USER: the user's own; PROJECT: it sits in the
# workspace, where a cloned repository may have put it, so it is approved like the project's), where
# it is. Lowest first: Claude Code's files (claude.LAYERS) each below ours of the same owner, the user's
# below the project's.
LAYER_FILES: tuple[tuple[str, str, Callable[[Path], Path]], ...] = (
    (claude.CLAUDE_USER, USER, claude.user_file),
    (USER, USER, lambda workspace: data_home() / "settings.json"),
    (claude.CLAUDE_PROJECT, PROJECT, claude.project_file),
    (claude.CLAUDE_LOCAL, PROJECT, claude.local_file),
    (PROJECT, PROJECT, lambda workspace: workspace / PROJECT_DIR / "settings.json"),
    (LOCAL, PROJECT, lambda workspace: workspace / PROJECT_DIR / "settings.local.json"),
)
LAYERS = tuple(name for name, _owner, _path in LAYER_FILES)


def settings_paths(workspace: Path) -> dict[str, Path]:
    return {name: path(workspace) for name, _owner, path in LAYER_FILES}


def is_users(layer: str) -> bool:
    """Whether the layer named `layer` is the user's own file (not the project's)."""
    return any(name == layer and owner == USER for name, owner, _path in LAYER_FILES)


class BadValue(ValueError):
    """A value of the wrong kind: `takes` is the i18n key (takes_*) of what the key takes."""

    def __init__(self, takes: str, **values: object) -> None:
        super().__init__(takes)
        self.takes, self.values = takes, values

    def text(self, lang: str) -> str:
        return t(f"takes_{self.takes}", lang, **self.values)


def _text(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise BadValue("text")
    return value.strip()


def _whole(low: int) -> Callable[[Any], int]:
    def check(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise BadValue("whole", low=low)
        return value

    return check


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise BadValue("flag")
    return value


def _one_of(*choices: str) -> Callable[[Any], str]:
    def check(value: Any) -> str:
        if isinstance(value, bool) and set(choices) == {"on", "off"}:
            return "on" if value else "off"
        if not isinstance(value, str) or value.lower() not in choices:
            raise BadValue("choice", choices=" / ".join(choices))
        return value.lower()

    return check


LANGUAGES = {"en": "en", "english": "en", "zh": "zh", "chinese": "zh", "中文": "zh"}


def _language(value: Any) -> str:
    if not isinstance(value, str) or value.lower() not in LANGUAGES:
        raise BadValue("choice", choices="en / zh")
    return LANGUAGES[value.lower()]


def _compact_at(value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return _text(value)


# A settings key -> (the argparse dest it stands in for, its check, how the dest takes it).
FLAG_KEYS: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "model": ("model", _text),
    "baseUrl": ("base_url", _text),
    "contextWindow": ("context_window", _whole(1)),
    "compactAt": ("compact_at", _compact_at),
    "autoCompact": ("no_auto_compact", lambda v: not _flag(v)),
    "maxRequests": ("max_requests", lambda v: _whole(0)(v) or None),
    "cheapTier": ("cheap_tier", _one_of("auto", "on", "off")),
    "thinking": ("thinking", _one_of("on", "off")),
    "reasoningEffort": ("reasoning_effort", _one_of(*REASONING_EFFORTS)),
    "language": ("lang", _language),
    "debug": ("debug", _flag),
    "trustProject": ("trust_project", _flag),
}
# Where traffic goes: a project's value waits for the user's approval (agent.provider.grants), and the
# user's own value, or a flag's, wins over it.
GRANT_KEYS = ("baseUrl",)
# Only the user's own file may say it.
USER_ONLY_KEYS = ("trustProject",)
# Read by their own modules (agent.tools.permissions, agent.tools.hooks, agent.tools.mcp_servers, the price table,
# agent.tools.sandbox.policy, agent.tools.memory_files for compactInstructions).
SECTION_KEYS = tuple(
    "permissions hooks env prices mcpServers sandbox mcpToolTimeout mcpSampling compactInstructions".split()
)
# Claude Code's keys a copied file may hold that mean nothing here: no warning, but /config lists them.
IGNORED_KEYS = tuple(
    "includeCoAuthoredBy cleanupPeriodDays statusLine outputStyle enableAllProjectMcpServers enabledMcpjsonServers "
    "disabledMcpjsonServers apiKeyHelper".split()
)


@dataclass
class Layer:
    name: str
    path: Path
    data: dict[str, Any] = field(default_factory=dict)


@dataclass
class Settings:
    """What the files said, checked: each flag value with the layer it came from, the sections per
    layer (merged by their readers), and one line per thing that was wrong."""

    layers: list[Layer] = field(default_factory=list)
    values: dict[str, tuple[Any, str]] = field(default_factory=dict)  # key -> (value, layer)
    warnings: list[str] = field(default_factory=list)
    # key -> (effective value, where it came from: "flag", "env", a layer or "default"), for /config.
    origins: dict[str, tuple[Any, str]] = field(default_factory=dict)
    # A GRANT_KEYS value from a project's file that nothing of the user's overrides: used once approved.
    pending: dict[str, tuple[Any, str]] = field(default_factory=dict)
    # (layer, name) of each `env` entry a project's file may never set (agent.provider.protected_env).
    refused_env: list[tuple[str, str]] = field(default_factory=list)
    # (layer, name, why, values) of each thing a file says that is not applied here (Claude Code's
    # keys, rules for its tools): /config lists them, the i18n key `ignored_<why>` says why.
    ignored: list[tuple[str, str, str, dict[str, str]]] = field(default_factory=list)

    def ignore(self, layer: str, name: str, why: str, **values: str) -> None:
        if (layer, name, why, values) not in self.ignored:
            self.ignored.append((layer, name, why, values))

    def section(self, key: str) -> list[tuple[str, Any]]:
        """(layer, value) of `key` in each file that has it, lowest first."""
        return [(layer.name, layer.data[key]) for layer in self.layers if key in layer.data]

    def path(self, layer: str) -> Path | None:
        return next((x.path for x in self.layers if x.name == layer), None)

    def _env(self, users: bool) -> dict[str, str]:
        merged: dict[str, str] = {}
        for layer, value in self.section("env"):
            if is_users(layer) == users:
                merged.update(value)
        return merged

    @property
    def user_env(self) -> dict[str, str]:
        """The user's own files' `env`: set for the whole session, below the real environment."""
        return self._env(users=True)

    @property
    def project_env(self) -> dict[str, str]:
        """The project's files' `env`, without the names it may never set: for the programs the
        session starts, once the project is approved (agent.provider.trust)."""
        return self._env(users=False)

    @property
    def prices(self) -> dict[str, Any] | None:
        """The merged `prices` (model -> its prices, as --prices takes them), or None; the price table
        puts them under the flag's (agent.provider.prices.merged_overrides)."""
        merged: dict[str, Any] = {}
        for _layer, value in self.section("prices"):
            merged.update(value)
        return merged or None


def _read_json(path: Path, lang: str, warnings: list[str]) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        warnings.append(t("settings_unreadable", lang, path=path, error=getattr(exc, "strerror", None) or exc))
        return {}
    try:
        data = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError as exc:
        warnings.append(t("settings_bad_json", lang, path=path, line=exc.lineno, error=exc.msg))
        return {}
    if not isinstance(data, dict):
        warnings.append(t("settings_not_object", lang, path=path))
        return {}
    return data


def _check_env(value: Any, layer: Layer, lang: str, settings: Settings) -> dict[str, str]:
    if not isinstance(value, dict):
        raise BadValue("env")
    env, warnings = {}, settings.warnings
    for name, text in value.items():
        not_text = not isinstance(text, (str, int, float)) or isinstance(text, bool) or "\0" in str(text)
        if not valid_name(name) or not_text:
            takes = BadValue("text").text(lang)
            warnings.append(t("settings_bad_value", lang, path=layer.path, name=f"env.{name}", takes=takes))
        elif is_users(layer.name):
            env[name] = str(text)
        elif is_key_name(name):
            warnings.append(t("settings_key_refused", lang, path=layer.path, name=f"env.{name}"))
            settings.refused_env.append((layer.name, name))
        elif protected(name):
            warnings.append(t("settings_env_refused", lang, path=layer.path, name=f"env.{name}"))
            settings.refused_env.append((layer.name, name))
        else:
            env[name] = str(text)
    return env


def _check_section(key: str, value: Any) -> Any:
    if key == "mcpToolTimeout":  # milliseconds, as Claude Code's MCP_TOOL_TIMEOUT
        return _whole(1)(value)
    if key == "mcpSampling":  # true, or the names of the servers that may use the user's model
        if isinstance(value, bool) or isinstance(value, list) and all(isinstance(v, str) for v in value):
            return value
        raise BadValue("mcp_sampling")
    if key == "compactInstructions":
        return _text(value)
    if key == "prices":  # the schema --prices takes, checked by the price table itself
        from agent.provider.prices import BadPrices, parse_overrides

        try:
            parse_overrides(value if isinstance(value, dict) else [])
        except BadPrices:
            raise BadValue("prices") from None
        return value
    if not isinstance(value, dict):
        raise BadValue("object")
    return value


def _check_flag_key(key: str, value: Any, layer: Layer, lang: str, settings: Settings) -> None:
    checked = FLAG_KEYS[key][1](value)
    if is_users(layer.name) or key not in (*GRANT_KEYS, *USER_ONLY_KEYS):
        settings.values[key] = (checked, layer.name)
    elif key in GRANT_KEYS:
        settings.pending[key] = (checked, layer.name)
    else:
        settings.warnings.append(t("settings_user_only", lang, path=layer.path, name=key))


def _check_layer(layer: Layer, raw: dict[str, Any], lang: str, settings: Settings) -> None:
    if claude.is_claude(layer.name):
        known = {*FLAG_KEYS, *SECTION_KEYS}
        raw = claude.read(raw, known, LANGUAGES, lambda name, why: settings.ignore(layer.name, name, why))
    for key, value in raw.items():
        try:
            if key in FLAG_KEYS:
                _check_flag_key(key, value, layer, lang, settings)
            elif key == "env":
                layer.data[key] = _check_env(value, layer, lang, settings)
            elif key in SECTION_KEYS:
                layer.data[key] = _check_section(key, value)
            elif key in IGNORED_KEYS:
                settings.ignore(layer.name, key, "claude_only")
            elif key != "$schema":
                settings.warnings.append(t("settings_unknown_key", lang, path=layer.path, name=key))
        except BadValue as exc:
            settings.warnings.append(t("settings_bad_value", lang, path=layer.path, name=key, takes=exc.text(lang)))


def load(workspace: Path, lang: str = "en") -> Settings:
    """Read the files (a missing one is an empty layer). A file read already (the workspace is the
    home folder: its `.claude/settings.json` is the user's own) is not read again as the project's."""
    settings, seen = Settings(), set()
    for name, path in settings_paths(workspace).items():
        layer = Layer(name, path)
        real = path.resolve() if path.is_file() else path
        if real not in seen:
            _check_layer(layer, _read_json(path, lang, settings.warnings), lang, settings)
        seen.add(real)
        settings.layers.append(layer)
    return settings


def apply_to_args(settings: Settings, args: Any, given: dict[str, str]) -> None:
    """Set each dest the command line and environment (`given`: dest -> "flag" / "env") left alone.
    A project's value of a GRANT_KEYS key stays pending, and is dropped where the user set the key."""
    for key, (value, _layer) in settings.values.items():
        dest = FLAG_KEYS[key][0]
        if dest not in given:
            setattr(args, dest, value)
    for key in list(settings.pending):
        if key in settings.values or FLAG_KEYS[key][0] in given:
            del settings.pending[key]


def origins(settings: Settings, args: Any, given: dict[str, str]) -> dict[str, tuple[Any, str]]:
    """Each key's effective value and its source, as /config shows them."""
    shown = {}
    for key, (dest, _check) in FLAG_KEYS.items():
        value = getattr(args, dest, None)
        if key == "autoCompact":
            value = not value
        layer = settings.values[key][1] if key in settings.values else "default"
        shown[key] = (value, given.get(dest, layer))
    return shown


def env_given(dests: list[str]) -> set[str]:
    """The dests set by a CODING_AGENT_<NAME> variable (agent.config.env_name's names)."""
    return {d for d in dests if os.environ.get(env_name(d))}


def apply_env(settings: Settings) -> None:
    """`env` from the user's own files, below the real environment (a variable already set wins).
    A project's never enters the agent's environment: agent.provider.trust gives it to the programs
    the session starts, once approved."""
    for name, value in settings.user_env.items():
        os.environ.setdefault(name, value)


def add_rule(workspace: Path, kind: str, rule: str, layer: str = LOCAL) -> Path:
    """Write `rule` into permissions.<kind> of the `layer` file (settings.local.json: the "always for
    this project" answer; or the user's own), keeping everything else the file holds."""
    path = settings_paths(workspace)[layer]
    data = _rules_file(path)
    rules = data["permissions"][kind] = _list(data["permissions"].get(kind))
    if rule not in rules:
        rules.append(rule)
    _write(path, data)
    return path


def remove_rule(workspace: Path, kind: str, rule: str, layer: str) -> Path | None:
    """Take `rule` out of permissions.<kind> of the `layer` file; its path if it was there."""
    path = settings_paths(workspace)[layer]
    data = _rules_file(path)
    rules = _list(data["permissions"].get(kind))
    if rule not in rules:
        return None
    rules.remove(rule)
    data["permissions"][kind] = rules
    _write(path, data)
    return path


def _rules_file(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = {}
    if not isinstance(data, dict):
        data = {}
    if not isinstance(data.get("permissions"), dict):
        data["permissions"] = {}
    return data


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _write(path: Path, data: dict[str, Any]) -> None:
    from agent.store.atomic import replace_file

    path.parent.mkdir(parents=True, exist_ok=True)
    replace_file(path, (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode())
