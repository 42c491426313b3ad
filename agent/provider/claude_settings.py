"""Claude Code's settings files, read where Claude Code keeps them: the user's `~/.claude/settings.json`
(CLAUDE_CONFIG_DIR moves it, as in Claude Code) and the project's `.claude/settings.json` and
`.claude/settings.local.json`. Each sits just below our file of the same owner (agent.provider.settings
orders them), so `.coding-agent/` wins a key; a project's is someone else's text like ours, its grants
held back the same way.

Most of a Claude Code file means the same here: `permissions` (its tool names mapped:
agent.tools.rule_match), `env`, `hooks`. What means nothing here, or something else, is not applied
and is listed by /config as ignored, each with why: `model` names a Claude model, `sandbox` is Claude
Code's own schema, `apiKeyHelper` would run a program for a key, and Claude Code's own variables
(`ANTHROPIC_*`, `CLAUDE_CODE_*`: keys and switches of Claude Code) are not passed to what we start.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent.config import claude_home

CLAUDE_DIR = ".claude"
CLAUDE_USER, CLAUDE_PROJECT, CLAUDE_LOCAL = "claude-user", "claude-project", "claude-local"
LAYERS = (CLAUDE_USER, CLAUDE_PROJECT, CLAUDE_LOCAL)


def user_file(workspace: Path) -> Path:
    return claude_home() / "settings.json"


def project_file(workspace: Path) -> Path:
    return workspace / CLAUDE_DIR / "settings.json"


def local_file(workspace: Path) -> Path:
    return workspace / CLAUDE_DIR / "settings.local.json"


def is_claude(layer: str) -> bool:
    return layer in LAYERS


# A key of a Claude Code file that is not applied here -> why (an i18n key's tail: ignored_<why>).
# Any other key our files do not know is Claude Code's own ("claude_only").
DIFFERENT = {
    "model": "model",
    "sandbox": "sandbox",
    "apiKeyHelper": "key_helper",
    "enableAllProjectMcpServers": "mcp_choice",
    "enabledMcpjsonServers": "mcp_choice",
    "disabledMcpjsonServers": "mcp_choice",
}
# An editor's hint, not a setting: skipped without a word.
UNSAID = ("$schema",)
# Claude Code's own variables: its keys (ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN) and switches.
OWN_ENV = ("ANTHROPIC_", "CLAUDE_CODE_", "CLAUDE_")


def read(raw: dict[str, Any], known: set[str], languages: Any, ignore: Any) -> dict[str, Any]:
    """What of a Claude Code file's keys is read as ours (`known`: our keys, `languages`: the names our
    `language` takes); `ignore(name, why)` is told each of the rest."""
    kept: dict[str, Any] = {}
    for key, value in raw.items():
        if key in UNSAID:
            continue
        if key == "language" and str(value).lower() not in languages:
            ignore(key, "language")  # Claude Code answers in any language; this agent speaks two
        elif key in DIFFERENT or key not in known:
            ignore(key, DIFFERENT.get(key, "claude_only"))
        elif key == "env" and isinstance(value, dict):
            kept[key] = {}
            for name, text in value.items():
                if str(name).upper().startswith(OWN_ENV):
                    ignore(f"env.{name}", "claude_env")
                else:
                    kept[key][name] = text
        else:
            kept[key] = value
    return kept
