"""Finding 1 of issue 11: a command run through git with nobody asked, and the key in its
environment. Each scenario returns what got through (empty: held)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.robustness import harness
from tests.robustness.attack_kit import GIT_ENV, _ctx, _dirs, _run, _search_everything, _text, scenario

# --- 1. a command run through git with nobody asked ------------------------------------------


def _sentinel_config(sentinel: Path) -> str:
    run = f"sh -c 'env > {sentinel}; exit 1'"
    return (
        f'[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tfsmonitor = "{run}"\n'
        f'\tpager = "{run}"\n\tsshCommand = "{run}"\n[filter "x"]\n\tclean = "{run}"\n'
    )


@scenario
def git_config_in_a_repo(base: Path) -> list[str]:
    """A .git/config naming programs (as an approved command might leave it) is never obeyed."""
    home, ws = _dirs(base)
    subprocess.run(["git", "init", "-q"], cwd=ws, env=GIT_ENV, check=True)
    sentinel = ws.parent / "ran"
    (ws / ".git" / "config").write_text(_sentinel_config(sentinel))
    hook = ws / ".git" / "hooks" / "post-checkout"
    hook.write_text(f"#!/bin/sh\nenv > {sentinel}\n")
    hook.chmod(0o755)
    (ws / ".gitattributes").write_text("* filter=x\n")
    (ws / ".gitignore").write_text("*.log\n")
    (ws / "a.txt").write_text("x\n")
    (ws / "b.log").write_text("x\n")
    ctx, _ = _ctx(ws)
    with harness.data_home(home):
        from agent.tools.builtin import list_files

        listing = list_files(ctx)
        _search_everything(ctx)
    problems = ["git ran a program the repository config named"] if sentinel.exists() else []
    if "a.txt" not in listing or "b.log" in listing:
        problems.append(f"the listing no longer honours .gitignore: {listing!r}")
    return problems


@scenario
def git_repo_made_by_the_model(base: Path) -> list[str]:
    """The model builds a repository with write_file (a bare one at the top, where no approval is
    asked) whose config runs a command, then searches."""
    home, ws = _dirs(base)
    sentinel = ws.parent / "ran"
    ctx, approver = _ctx(ws, "n")
    with harness.data_home(home):
        from agent.tools.builtin import write_file

        for name, content in {
            "HEAD": "ref: refs/heads/main\n",
            "config": _sentinel_config(sentinel),
            "objects/info/x": "",
            "refs/heads/x": "",
            "notes.txt": "x\n",
        }.items():
            _run(write_file(ctx, name, content))
        for name, content in {
            ".git/HEAD": "ref: refs/heads/main\n",
            ".git/config": _sentinel_config(sentinel),
            ".git/objects/x": "",
            ".git/refs/x": "",
        }.items():
            _run(write_file(ctx, name, content))
        _search_everything(ctx)
        _run(write_file(ctx, "sub/.git", "gitdir: ..\n"))
        _search_everything(ctx)
    problems = ["a command ran through git"] if sentinel.exists() else []
    if (ws / ".git").exists() or (ws / "sub" / ".git").exists():
        problems.append("the model created .git without approval")
    if not approver.asked:
        problems.append("the user was not asked about the .git writes")
    return problems


@scenario
def git_writes_need_approval(base: Path) -> list[str]:
    """Writes under .git/ (by any spelling of the path) wait for the user, like a command."""
    home, ws = _dirs(base)
    subprocess.run(["git", "init", "-q"], cwd=ws, env=GIT_ENV, check=True)
    config = (ws / ".git" / "config").read_text()
    os.symlink(".git", ws / "dotgit")
    targets = [
        ".git/config",
        ".git/hooks/pre-commit",
        "./.git/info/../config",
        "sub/.git/HEAD",
        ".GIT/config",
        "dotgit/config",
        str(ws / ".git" / "description"),
    ]
    problems: list[str] = []
    with harness.data_home(home):
        from agent.tools.builtin import edit_file, read_file, write_file

        ctx, approver = _ctx(ws, "n")
        for target in targets:
            answer = _text(_run(write_file(ctx, target, "[core]\n\tfsmonitor = evil\n")))
            if "declined" not in answer:
                problems.append(f"write_file {target}: {answer[:80]}")
        read_file(ctx, ".git/config")
        if "declined" not in _text(_run(edit_file(ctx, ".git/config", "[core]", "[core]\n\tpager = evil"))):
            problems.append("edit_file .git/config was not refused")
        if len(approver.asked) != len(targets) + 1 or not all(why and ".git" in why for _, why in approver.asked):
            problems.append(f"asked {approver.asked}")
        ctx, approver = _ctx(ws, "y")
        if not _text(_run(write_file(ctx, ".git/info/attributes", "*.tmp -diff\n"))).startswith("Created"):
            problems.append("an approved .git write did not happen")
    if (ws / ".git" / "config").read_text() != config or (ws / "sub").exists() or (ws / ".GIT").exists():
        problems.append("a refused write changed .git")
    return problems


@scenario
def git_gets_no_keys(base: Path) -> list[str]:
    """git's environment is fixed and holds no key; a `git` in the workspace is never the one run."""
    home, ws = _dirs(base)
    bin_dir = ws.parent / "bin"
    bin_dir.mkdir()
    seen = ws.parent / "git-env"
    real = subprocess.run(["sh", "-c", "command -v git"], capture_output=True, text=True).stdout.strip()
    (bin_dir / "git").write_text(f'#!/bin/sh\nenv > {seen}\nexec {real} "$@"\n')
    (ws / "git").write_text(f"#!/bin/sh\ntouch {ws.parent / 'workspace-git-ran'}\n")
    for script in (bin_dir / "git", ws / "git"):
        script.chmod(0o755)
    saved = {name: os.environ.get(name) for name in ("PATH", *harness.KEY_NAMES)}
    os.environ["PATH"] = os.pathsep.join([".", str(bin_dir), os.environ.get("PATH", "")])
    for name in harness.KEY_NAMES:
        os.environ[name] = harness.FAKE_KEY
    try:
        ctx, _ = _ctx(ws)
        with harness.data_home(home):
            _search_everything(ctx)
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    env = seen.read_text() if seen.exists() else ""
    problems = [] if env else ["git was not run at all (the wrapper saw nothing)"]
    if harness.FAKE_KEY in env:
        problems.append("git's environment held the API key")
    if env and ("GIT_CONFIG_NOSYSTEM=1" not in env or "GIT_CONFIG_GLOBAL=/dev/null" not in env):
        problems.append("git read the system or user config")
    if (ws.parent / "workspace-git-ran").exists():
        problems.append("the workspace's own `git` ran")
    return problems
