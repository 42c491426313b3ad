"""6. Confinement: every file tool and @-mention refuses paths outside the workspace (`..`,
absolute paths, symlinks that point out, NUL bytes), except reading the agent's own transcript
archive; write tools never touch the archive or the session files. Shell commands get no API
key variables. "Always" approves exactly one command, never a different or chained one."""

from __future__ import annotations

import os

import pytest
from pydantic_ai import RunContext, ToolReturn
from pydantic_ai.models.test import TestModel
from pydantic_ai.usage import RunUsage

import session
from agent.config import Config
from agent.state.app import AppState
from agent.state.transcript import Transcript
from agent.tools.builtin import edit_file, grep, list_files, read_file, run_command, write_file
from agent.tools.mentions import build_mention_messages
from agent.tools.shell import execute
from tests.fake_ui import FakeUI
from tests.robustness.harness import FAKE_KEY, KEY_NAMES

SECRET = "TOP-SECRET-OUTSIDE-THE-WORKSPACE"


@pytest.fixture
def world(tmp_path, home, workspace):
    """A workspace with symlinks out of it, a file outside, and a session with an archive."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET + "\n")
    (workspace / "inside.txt").write_text("inside\n")
    (workspace / "sub").mkdir()
    os.symlink(outside / "secret.txt", workspace / "link_out.txt")
    os.symlink(outside, workspace / "dir_out")
    os.symlink(outside / "not-yet.txt", workspace / "dangling_out.txt")
    session.rewrite_messages("s1", [], workspace)
    session.session_file("s1", workspace).write_text("{}\n")
    archive_folder = session.archive_dir(workspace)
    archive_folder.mkdir(parents=True, exist_ok=True)
    archive = archive_folder / "s1-20260101-000000.jsonl"
    archive.write_text("the archived transcript\n")
    os.symlink(session.session_file("s1", workspace), workspace / "link_session.jsonl")
    os.symlink(archive, workspace / "link_archive.jsonl")
    state = AppState(config=Config(workspace=workspace, yes=True), transcript=Transcript("s1", workspace))
    ctx = RunContext(deps=state, model=TestModel(), usage=RunUsage())
    return {
        "ctx": ctx,
        "state": state,
        "outside": outside,
        "archive": archive,
        "home": home,
        "session": session.session_file("s1", workspace),
        "ws": workspace,
    }


def hostile_paths(world) -> dict[str, str]:
    outside = world["outside"]
    return {
        "dotdot": "../outside/secret.txt",
        "dotdot-deep": "sub/../../outside/secret.txt",
        "dotdot-many": "../../../../../../../../etc/passwd",
        "absolute": str(outside / "secret.txt"),
        "absolute-etc": "/etc/passwd",
        "proc-environ": "/proc/self/environ",
        "symlink-file": "link_out.txt",
        "symlink-dir": "dir_out/secret.txt",
        "nul-byte": "inside.txt\0../../etc/passwd",
        "nul-only": "\0",
        "tilde": "~/../../etc/passwd",
        "session-file": str(world["session"]),
        "session-symlink": "link_session.jsonl",
        "data-home": str(world["home"] / "input_history"),
    }


def _text(result: ToolReturn | str) -> str:
    return result.return_value if isinstance(result, ToolReturn) else result  # type: ignore[return-value]


def _outside_unchanged(world) -> None:
    assert sorted(p.name for p in world["outside"].iterdir()) == ["secret.txt"]
    assert (world["outside"] / "secret.txt").read_text() == SECRET + "\n"


async def test_read_tools_refuse_every_hostile_path(world):
    ctx = world["ctx"]
    for name, path in hostile_paths(world).items():
        for answer in (read_file(ctx, path), await grep(ctx, ".", path)):
            assert answer.startswith("Error:") or answer == "No matches", (name, answer)
            assert SECRET not in answer and "root:" not in answer, name


async def test_write_tools_refuse_every_hostile_path(world):
    ctx = world["ctx"]
    paths = hostile_paths(world) | {"dangling-symlink": "dangling_out.txt", "new-in-dir-out": "dir_out/new.txt"}
    for name, path in paths.items():
        for answer in (await write_file(ctx, path, "pwned"), await edit_file(ctx, path, SECRET, "pwned")):
            assert _text(answer).startswith("Error:"), (name, answer)
    _outside_unchanged(world)
    assert world["session"].read_text() == "{}\n"


def test_mentions_refuse_every_hostile_path(world):
    paths = list(hostile_paths(world).values())
    messages, notices = build_mention_messages(paths, world["state"])
    assert messages == [] and len(notices) == len(paths)
    assert all("skipped" in n for n in notices)
    assert not any(SECRET in n for n in notices)


async def test_listing_and_searching_the_workspace_stop_at_symlinks_out(world):
    ctx = world["ctx"]
    assert SECRET not in await grep(ctx, "SECRET")  # link_out.txt points out: not followed
    assert SECRET not in await grep(ctx, "SECRET", ".")
    for pattern in ("../*", "/etc/*", "../outside/*", "**/../../*"):
        assert list_files(ctx, pattern).startswith("Error:"), pattern


async def test_the_archive_is_readable_but_never_writable(world):
    ctx = world["ctx"]
    archive = world["archive"]
    assert "the archived transcript" in read_file(ctx, str(archive))
    assert "the archived transcript" in await grep(ctx, "archived", str(archive.parent))
    assert "the archived transcript" in read_file(ctx, "link_archive.jsonl")
    messages, notices = build_mention_messages([str(archive)], world["state"])
    assert messages and not notices


async def test_write_tools_never_touch_the_archive_or_session_files(world):
    ctx = world["ctx"]
    archive = world["archive"]
    read_file(ctx, str(archive))  # read first: the refusal is about the place, not freshness
    targets = [
        str(archive),
        "link_archive.jsonl",
        str(archive.parent / "new.jsonl"),
        str(world["session"]),
        str(world["session"].with_suffix(".lock")),
        str(world["home"] / "debug.log"),
        "link_session.jsonl",
    ]
    for target in targets:
        assert _text(await write_file(ctx, target, "rewritten history")).startswith("Error:"), target
        assert _text(await edit_file(ctx, target, "archived", "forged")).startswith("Error:"), target
    assert archive.read_text() == "the archived transcript\n"
    assert world["session"].read_text() == "{}\n"
    assert not (archive.parent / "new.jsonl").exists() and not (world["home"] / "debug.log").exists()


async def test_inside_the_workspace_still_works(world):
    ctx = world["ctx"]
    assert "inside" in read_file(ctx, "inside.txt")
    assert _text(await edit_file(ctx, "inside.txt", "inside", "changed")).startswith("Edited")
    assert _text(await write_file(ctx, "sub/new.txt", "new\n")).startswith("Created")
    assert (world["ws"] / "sub" / "new.txt").read_text() == "new\n"


async def test_shell_commands_get_no_key_variables(world, monkeypatch):
    for name in (*KEY_NAMES, "ANTHROPIC_API_KEY", "SOME_SERVICE_API_KEY"):
        monkeypatch.setenv(name, FAKE_KEY)
    output = await execute("env; echo ${API_KEY:-unset} ${DEEPSEEK_API_KEY:-unset}", world["ws"], 10)
    assert FAKE_KEY not in output
    assert "unset unset" in output


async def test_always_covers_exactly_the_approved_command(world):
    state, ctx, ws = world["state"], world["ctx"], world["ws"]
    state.config.yes = False
    asked: list[str] = []

    async def approve(command: str) -> str:
        asked.append(command)
        return "always" if command == "echo safe" else "n"

    state.emit = FakeUI(approve=approve)
    assert "safe" in await run_command(ctx, "echo safe")
    assert "safe" in await run_command(ctx, "echo safe")
    assert asked == ["echo safe"]  # asked once
    variants = [
        "echo safe; touch pwned1",
        "echo safe && touch pwned2",
        "echo safe | tee pwned3",
        "echo safe\ntouch pwned4",
        "echo safe ",
        " echo safe",
        "echo safe $(touch pwned5)",
        "echo safe `touch pwned6`",
        "echo  safe",
        "ECHO safe",
    ]
    for variant in variants:
        answer = await run_command(ctx, variant)
        assert answer == "Error: the user declined to run this command", variant
    assert asked[1:] == variants  # every different command was asked about, and refused
    assert not list(ws.glob("pwned*"))
