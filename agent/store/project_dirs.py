"""Where a working directory's sessions and archives live: <home>/projects/<slug>-<hash>/."""

from __future__ import annotations

import hashlib
import os
import re
import stat
from pathlib import Path

from agent.config import data_home

ARCHIVE_DIR_NAME = "compact-history"
TOOL_RESULTS_DIR_NAME = "tool-results"
MCP_LOGS_DIR_NAME = "mcp-logs"


def private_dir(path: Path) -> Path:
    """`path`, made if missing, readable by the user alone: sessions hold what the user typed. An
    existing folder only loses its group and other bits: one its owner made read-only stays so (the
    start then fails with one line) instead of being made writable behind the user's back."""
    existed = path.is_dir()
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        os.chmod(path, stat.S_IMODE(path.stat().st_mode) & 0o700 if existed else 0o700)
    except OSError:
        pass
    return path


def _legacy_slug(workspace: Path) -> str:
    # The old name: /x/a/b, /x/a-b and "/x/a b" all became x-a-b, sharing their sessions.
    return re.sub(r"[^A-Za-z0-9._-]+", "-", str(workspace.resolve())).strip("-") or "root"


def folder_name(workspace: Path) -> str:
    """A readable slug of the path (its end, which tells folders apart) plus a hash of the whole
    path: unique per absolute path, and short enough for any file system."""
    path = str(workspace.resolve())
    slug = _legacy_slug(workspace)[-80:].lstrip("-.") or "root"
    return f"{slug}-{hashlib.sha256(os.fsencode(path)).hexdigest()[:12]}"


_checked: set[tuple[Path, Path]] = set()


def _migrate(projects: Path, workspace: Path) -> None:
    """Move a folder with the old name to the new one, once. A folder several paths shared cannot
    be split (its sessions do not say which path they came from): the first of them to start
    takes it, the others start afresh."""
    key = (projects, workspace.resolve())
    if key in _checked:
        return
    _checked.add(key)
    legacy, new = projects / _legacy_slug(workspace), projects / folder_name(workspace)
    if legacy.is_dir() and not new.exists():
        try:
            os.rename(legacy, new)
        except OSError:
            pass  # another process moved it first, or the data folder is read-only


def project_dir(workspace: Path | None = None) -> Path:
    """Where this working directory's sessions live: <home>/projects/<slug>-<hash>."""
    workspace = workspace or Path.cwd()
    home = private_dir(data_home())
    projects = private_dir(home / "projects")
    _migrate(projects, workspace)
    return private_dir(projects / folder_name(workspace))


def archive_dir(workspace: Path | None = None) -> Path:
    """Where full transcripts are archived before a compaction rewrites the session."""
    return project_dir(workspace) / ARCHIVE_DIR_NAME


def tool_results_dir(workspace: Path | None = None) -> Path:
    """Where a tool answer too big for the window is saved whole (agent.tools.answer_cap), for read_file."""
    return project_dir(workspace) / TOOL_RESULTS_DIR_NAME


def mcp_logs_dir(workspace: Path | None = None) -> Path:
    """Where each MCP server's stderr and log messages are kept (agent.tools.mcp_log)."""
    return project_dir(workspace) / MCP_LOGS_DIR_NAME
