from pathlib import Path

import pytest

from agent.tools.workspace import PathError, iter_files, match_glob, resolve_path


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    path = tmp_path / "ws"
    (path / "src").mkdir(parents=True)
    (path / "src" / "a.py").write_text("a\n")
    return path


def test_relative_and_absolute_inside(ws: Path) -> None:
    assert resolve_path("src/a.py", ws) == (ws / "src/a.py").resolve()
    assert resolve_path(str(ws / "src/a.py"), ws) == (ws / "src/a.py").resolve()
    assert resolve_path("src/new.py", ws, write=True) == (ws / "src/new.py").resolve()
    assert resolve_path("src/../src/a.py", ws) == (ws / "src/a.py").resolve()


@pytest.mark.parametrize("path", ["../x", "src/../../x", "/etc/passwd", "/"])
def test_outside_refused(ws: Path, path: str) -> None:
    with pytest.raises(PathError, match="outside the workspace"):
        resolve_path(path, ws)


def test_nul_and_empty_refused(ws: Path) -> None:
    with pytest.raises(PathError, match="NUL"):
        resolve_path("src/a\0.py", ws)
    with pytest.raises(PathError, match="empty"):
        resolve_path("  ", ws)


def test_symlink_out_refused(ws: Path, tmp_path: Path) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_text("s")
    (ws / "link").symlink_to(outside)
    (ws / "dirlink").symlink_to(tmp_path)
    for path in ["link", "dirlink/secret.txt"]:
        with pytest.raises(PathError, match="outside"):
            resolve_path(path, ws)
        with pytest.raises(PathError, match="outside"):
            resolve_path(path, ws, write=True)


def test_symlink_inside_resolves_to_target(ws: Path) -> None:
    (ws / "alias.py").symlink_to(ws / "src" / "a.py")
    assert resolve_path("alias.py", ws) == (ws / "src/a.py").resolve()


def test_symlink_loop_refused(ws: Path) -> None:
    (ws / "loop").symlink_to(ws / "loop")
    with pytest.raises(PathError):
        resolve_path("loop/x", ws)


def test_readable_root_read_only(ws: Path, home: Path) -> None:
    archive = home / "projects" / "p" / "compact-history"
    archive.mkdir(parents=True)
    (archive / "s.jsonl").write_text("{}\n")
    path = str(archive / "s.jsonl")
    assert resolve_path(path, ws, readable_roots=[archive]) == (archive / "s.jsonl").resolve()
    with pytest.raises(PathError, match="outside"):
        resolve_path(path, ws)
    with pytest.raises(PathError, match="data folder"):
        resolve_path(path, ws, readable_roots=[archive], write=True)


def test_data_home_inside_workspace_not_writable(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODING_AGENT_HOME", str(ws / ".agent"))
    assert resolve_path(".agent/projects/x.jsonl", ws) == (ws / ".agent/projects/x.jsonl").resolve()
    with pytest.raises(PathError, match="data folder"):
        resolve_path(".agent/projects/x.jsonl", ws, write=True)


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("**/*", "a.py", True),
        ("**/*", "src/deep/a.py", True),
        ("**/*.py", "a.py", True),
        ("**/*.py", "src/deep/a.py", True),
        ("*.py", "src/a.py", False),
        ("*.py", "a.py", True),
        ("src/*.{ts,tsx}", "src/a.tsx", True),
        ("src/*.{ts,tsx}", "src/a.js", False),
        ("src/**", "src/x/y", True),
        ("a?.[ch]", "ab.c", True),
        ("a?.[!ch]", "ab.c", False),
        ("a+b(c).txt", "a+b(c).txt", True),
    ],
)
def test_match_glob(pattern: str, path: str, expected: bool) -> None:
    assert match_glob(pattern, path) is expected


def test_iter_files_walk_skips_git_and_caches(ws: Path) -> None:
    (ws / ".git").mkdir()  # not a real repo: git fails and the walk is used
    (ws / ".git" / "config").write_text("x")
    (ws / "node_modules" / "m").mkdir(parents=True)
    (ws / "node_modules" / "m" / "i.js").write_text("x")
    assert sorted(iter_files(ws)) == ["src/a.py"]
