"""The sandbox's policy: what a command may do, from `--sandbox` / CODING_AGENT_SANDBOX and the
settings files' `sandbox` object (`{"mode": ..., "network": false, "writableRoots": [...],
"maxProcesses": 1024}`), and the paths inside the workspace that stay read-only whatever the mode.

A project's file (`.coding-agent/settings.json`, `settings.local.json`) is someone else's text: it
may make the sandbox stricter, never looser, approved or not: what would loosen it is refused with a
line saying so.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from agent.config import SANDBOX_MODES, SandboxPolicy
from agent.text.i18n import t

# Read by the next session or by git, so a command must not plant them: read-only inside every
# writable folder, and held by an empty read-only placeholder while a command runs where absent.
PROTECTED_NAMES = (".git", ".coding-agent", ".claude", ".mcp.json", "AGENTS.md", "CLAUDE.md")
# Inside a `.git` folder: what runs code (hooks) or names programs (config); the rest (objects,
# refs, the index) stays writable, so that git works in the sandbox.
GIT_PROTECTED = ("hooks", "config")
# Every key of the section, each of which can loosen the sandbox: the grants a project may ask for.
LOOSENING_KEYS = ("mode", "network", "writableRoots", "maxProcesses")
MIN_PROCESSES = 16


class _Bad(ValueError):
    def __init__(self, takes: str, **values: object) -> None:
        super().__init__(takes)
        self.takes, self.values = takes, values


def _mode(value: Any) -> str:
    if not isinstance(value, str) or value not in SANDBOX_MODES:
        raise _Bad("choice", choices=" / ".join(SANDBOX_MODES))
    return value


def _network(value: Any) -> bool:
    if not isinstance(value, bool):
        raise _Bad("flag")
    return value


def _roots(value: Any) -> tuple[Path, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise _Bad("paths")
    roots = []
    for text in value:
        path = Path(text.strip()).expanduser()
        if not path.is_absolute():
            raise _Bad("paths")
        roots.append(path)
    return tuple(roots)


def _processes(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < MIN_PROCESSES:
        raise _Bad("whole", low=MIN_PROCESSES)
    return value


_CHECKS = {"mode": _mode, "network": _network, "writableRoots": _roots, "maxProcesses": _processes}
_FIELDS = {"mode": "mode", "network": "network", "writableRoots": "writable_roots", "maxProcesses": "max_processes"}


def loosens(key: str, value: Any, now: SandboxPolicy) -> bool:
    """Whether setting `key` to `value` (checked) gives commands more than `now` does."""
    if key == "mode":
        return SANDBOX_MODES.index(value) > SANDBOX_MODES.index(now.mode)
    if key == "network":
        return value and not now.network
    if key == "writableRoots":
        return bool(set(value) - set(now.writable_roots))
    return value > now.max_processes


def _sections(settings: Any) -> list[tuple[str, Path | None, Any]]:
    if settings is None:
        return []
    return [(layer, settings.path(layer), section) for layer, section in settings.section("sandbox")]


def _checked(section: Any, path: Path | None, lang: str, warnings: list[str]) -> dict[str, Any]:
    """The section's keys with their checked values; one line for each that is wrong."""
    if not isinstance(section, dict):
        warnings.append(t("settings_bad_value", lang, path=path, name="sandbox", takes=t("takes_object", lang)))
        return {}
    found = {}
    for key, value in section.items():
        if key not in _CHECKS:
            warnings.append(t("settings_unknown_key", lang, path=path, name=f"sandbox.{key}"))
            continue
        try:
            found[key] = _CHECKS[key](value)
        except _Bad as exc:
            warnings.append(
                t(
                    "settings_bad_value",
                    lang,
                    path=path,
                    name=f"sandbox.{key}",
                    takes=t(f"takes_{exc.takes}", lang, **exc.values),
                )
            )
    return found


def load(settings: Any, given: SandboxPolicy | None, lang: str) -> tuple[SandboxPolicy, list[str]]:
    """The policy in force: the files' values, lowest layer first (a project's only where they
    tighten), then the mode `given` by the flag or the environment."""
    from agent.provider.settings import is_users

    policy, warnings = SandboxPolicy(), []
    for layer, path, section in _sections(settings):
        for key, value in _checked(section, path, lang, warnings).items():
            if key == "writableRoots":
                value = _existing(value, path, lang, warnings)
            if not is_users(layer) and loosens(key, value, policy):
                warnings.append(t("sandbox_refused", lang, path=path, name=f"sandbox.{key}"))
                continue
            policy = replace(policy, **{_FIELDS[key]: value}, **({"origin": layer} if key == "mode" else {}))
    if given is not None:
        policy = replace(policy, mode=given.mode, origin=given.origin)
    return policy, warnings


def _existing(roots: tuple[Path, ...], path: Path | None, lang: str, warnings: list[str]) -> tuple[Path, ...]:
    kept = []
    for root in roots:
        if root.is_dir():
            kept.append(root.resolve())
        else:
            warnings.append(t("sandbox_root_missing", lang, path=path, root=root))
    return tuple(kept)


def sandboxed_mode(policy: SandboxPolicy | None) -> bool:
    """Whether the policy asks for a sandbox at all (a mode other than danger-full-access)."""
    return policy is not None and policy.mode != "danger-full-access"


def protected_paths(root: Path) -> list[Path]:
    """The paths under a writable folder `root` that stay read-only (some may not exist)."""
    paths = [root / name for name in PROTECTED_NAMES]
    git = root / ".git"
    if git.is_dir() and not git.is_symlink():
        paths += [git / name for name in GIT_PROTECTED]
    return paths
