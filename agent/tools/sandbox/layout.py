"""What every mechanism works from (agent.tools.sandbox.confine picks one): the folders a command may
write, the protected paths in them (existing or not), the private temp folder and the placeholders'
sources, the secrets to hide, the network switch."""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from agent.config import SandboxPolicy, data_home
from agent.tools.sandbox.policy import protected_paths

# Credentials a command has no business reading: hidden behind an empty placeholder (bubblewrap,
# Seatbelt; Landlock cannot hide a path).
SECRETS = (
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".kube",
    ".docker",
    ".netrc",
    ".git-credentials",
    ".npmrc",
    ".pypirc",
    ".password-store",
    ".config/gcloud",
    ".config/gh",
    ".local/share/keyrings",
)


@dataclass
class Layout:
    writable: list[Path]
    git_dirs: list[Path]  # `.git` folders: writable, but themselves not to be renamed or removed
    read_only: list[Path]  # protected paths that exist
    absent: list[Path]  # protected paths that do not: a command must not create them
    hidden: list[Path]
    tmp: Path
    empty_dir: Path
    empty_file: Path
    cwd: Path
    network: bool
    # Bound read-only again over the private /tmp: the workspace (where the command starts), the agent's
    # Python and its source may be under /tmp.
    visible: list[Path] = field(default_factory=list)
    # Protected paths that are symlinks: the link itself could be swapped, so it is checked after.
    links: dict[Path, str] = field(default_factory=dict)


def plan(
    policy: SandboxPolicy, workspace: Path, cwd: Path, write: bool, placeholders: frozenset[Path] = frozenset()
) -> Layout:
    """The layout for one command (`write`: with the policy's writable folders; without, only the
    private temp folder, as for grep). `placeholders`: the empty folders that sandboxes still running
    made for absent paths, which are absent still (an empty `.git` of theirs is not a repository)."""
    base = private_base()
    roots = [workspace.resolve(), *policy.writable_roots] if write and policy.mode == "workspace-write" else []
    layout = Layout(
        list(dict.fromkeys(roots)),
        [],
        [],
        [],
        [],
        base / "tmp",
        base / "empty",
        base / "empty-file",
        cwd,
        policy.network,
    )
    if workspace.resolve() not in layout.writable:
        layout.visible.append(workspace.resolve())
    layout.visible += [p for p in _own_folders() if p not in layout.visible and p.is_relative_to("/tmp")]
    for root in layout.writable:
        for path in protected_paths(root):
            _protect(layout, path, placeholders)
    layout.hidden = _secrets(layout.writable)
    return layout


@cache
def _own_folders() -> tuple[Path, ...]:
    """The Python the agent runs on and the agent's own source, read-only: a command that runs them
    (`python` of the same virtual environment) must find them though they live under /tmp."""
    folders = [
        Path(sys.prefix),
        Path(sys.base_prefix),
        Path(sys.executable).resolve().parent,
        Path(__file__).resolve().parents[3],
    ]
    return tuple(dict.fromkeys(f.resolve() for f in folders))


def _protect(layout: Layout, path: Path, placeholders: frozenset[Path]) -> None:
    if path in placeholders:
        layout.absent.append(path)
        return
    if any(path.is_relative_to(p) for p in placeholders):
        return  # inside an absent path's empty read-only placeholder: nothing to protect or make there
    if path.is_symlink():
        layout.links[path] = link_of(path)
        path = path.resolve()
        if not any(path.is_relative_to(root) for root in layout.writable):
            return  # outside every writable folder it is read-only already
    if path.name == ".git" and path.is_dir():
        layout.git_dirs.append(path)
    elif path.exists():
        layout.read_only.append(path)
    elif path.parent.is_dir() and os.access(path.parent, os.W_OK):
        layout.absent.append(path)


def _secrets(roots: list[Path]) -> list[Path]:
    home = Path.home()
    found = [home / name for name in SECRETS] + [data_home()]
    return [p for p in found if p.exists() and not any(r.is_relative_to(p) for r in roots)]


def link_of(path: Path) -> str:
    try:
        return os.readlink(path)
    except OSError:
        return ""


def private_base() -> Path:
    """This process's own folder (0700): `tmp/` is the commands' /tmp, `empty/` and `empty-file`
    the placeholders' sources. Removed when the agent exits."""
    global _base
    with _lock:
        if _base is None or not _base.is_dir():
            _base = Path(tempfile.mkdtemp(prefix="coding-agent-sandbox-"))
            (_base / "tmp").mkdir()
            (_base / "empty").mkdir(mode=0o555)
            (_base / "empty-file").touch(mode=0o444)
            atexit.register(shutil.rmtree, _base, ignore_errors=True)
        return _base


_lock = threading.Lock()
_base: Path | None = None
