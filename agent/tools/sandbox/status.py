"""What the user is told about the sandbox: the line /status shows, the lines /config shows, and the
one notice at start where there is no sandbox (or only the Landlock fallback)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from agent.text.i18n import t
from agent.tools.sandbox import detect, pids
from agent.tools.sandbox.policy import sandboxed_mode


def why_not(mechanism: detect.Mechanism, lang: str) -> str:
    """Why the stronger mechanisms are not used: "bubblewrap not found; Landlock unavailable"."""
    return "; ".join(t(key, lang, detail=detail) for key, detail in mechanism.missing)


def limit_text(config: Any, mechanism: detect.Mechanism, lang: str) -> str:
    """How many processes a command may add, or why there is no limit."""
    if not sys.platform.startswith("linux"):
        return t("sandbox_limit_none", lang, why=t("sandbox_limit_platform", lang))
    if os.geteuid() == 0 and pids.cgroup_parent() is None:
        return t("sandbox_limit_none", lang, why=t("sandbox_limit_root", lang))
    if os.geteuid() != 0 and mechanism.kind == "bubblewrap" and mechanism.prlimit is None:
        return t("sandbox_limit_none", lang, why=t("sandbox_limit_no_prlimit", lang))
    return t("sandbox_limit_extra", lang, n=config.sandbox.max_processes)


def status_line(config: Any, workspace: Path, lang: str) -> str | None:
    """ "Sandbox: workspace-write (bubblewrap 0.8.0) · network off · ..." ; None with no policy at all."""
    policy = config.sandbox
    if policy is None:
        return None
    if not sandboxed_mode(policy):
        return t("sandbox_status_off", lang, origin=t(f"config_source_{policy.origin}", lang))
    mechanism = detect.find(workspace)
    if not mechanism.works:
        return t("sandbox_status_none", lang, why=why_not(mechanism, lang))
    network = t("sandbox_network_on" if policy.network else "sandbox_network_off", lang)
    return t(
        "sandbox_status",
        lang,
        mode=policy.mode,
        detail=mechanism.detail,
        network=network,
        limit=limit_text(config, mechanism, lang),
    )


def start_notice(config: Any, workspace: Path, lang: str) -> tuple[str, str] | None:
    """(text, level) to say once at start: no sandbox here, or the Landlock fallback and its limits."""
    if not sandboxed_mode(config.sandbox):
        return None
    mechanism = detect.find(workspace)
    if not mechanism.works:
        return t("sandbox_none_notice", lang, why=why_not(mechanism, lang)), "warn"
    if mechanism.kind == "landlock" and config.sandbox.mode == "workspace-write":
        return t("sandbox_fallback_notice", lang, detail=mechanism.detail, why=why_not(mechanism, lang)), "dim"
    return None


def config_lines(policy: Any, lang: str) -> list[str]:
    if policy is None:
        return []
    network = t("sandbox_network_on" if policy.network else "sandbox_network_off", lang)
    roots = ", ".join(map(str, policy.writable_roots)) or t("config_sandbox_none", lang)
    return [
        t("config_sandbox", lang, mode=policy.mode, source=t(f"config_source_{policy.origin}", lang)),
        t("config_sandbox_more", lang, network=network, roots=roots, limit=policy.max_processes),
    ]
