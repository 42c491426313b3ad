"""The attacks of issue 11, each played as a model (or a prompt injection) would play them.

Every scenario sets up its own folders under `base`, attacks, and returns what got through (empty:
the attack was held). tests/robustness/test_attacks.py runs each as a test; totals.py counts them.
The terminal-side attacks (a forged question, type-ahead, Ctrl-C during a slow grep) are in
test_approval_pty.py, since they need a real terminal.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import session
from tests.fake_openai import Error, FakeOpenAI, ToolCalls
from tests.robustness import (
    attacks_19,
    attacks_19_screen,
    attacks_files,
    attacks_git,
    attacks_mcp,
    attacks_repo_trust,
    attacks_repo_trust_screen,
    attacks_rules,
    attacks_sandbox,
    harness,
)
from tests.robustness.attack_kit import ROUND_TWO, ROUNDS, SCENARIOS, _ctx, _dirs, _run, _text, scenario

# The attack modules register their scenarios on import.
__all__ = [
    "ROUND_TWO",
    "ROUNDS",
    "SCENARIOS",
    "attacks_19",
    "attacks_19_screen",
    "attacks_files",
    "attacks_git",
    "attacks_mcp",
    "attacks_repo_trust",
    "attacks_repo_trust_screen",
    "attacks_rules",
    "attacks_sandbox",
]

# --- 4. a failed write ---------------------------------------------------------------------

_FULL_DISK = """
import asyncio, os, resource, signal, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from tests.robustness.attack_kit import _ctx
from agent.tools.builtin import edit_file, read_file, write_file
ws = Path(sys.argv[2])
ctx, _ = _ctx(ws, "y")
read_file(ctx, "big.txt")
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG, as on a full disk
resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, resource.RLIM_INFINITY))
print(asyncio.run(write_file(ctx, "big.txt", "new line\\n" * 70_000)))
print(asyncio.run(edit_file(ctx, "big.txt", "line 1\\n", "line one\\n" + "y" * 300_000)))
"""


@scenario
def write_on_a_full_disk(base: Path) -> list[str]:
    """A write that fails part way (a full disk, here a file-size limit) leaves the file whole and
    says so; the mode and owner of the file are kept when a write succeeds."""
    home, ws = _dirs(base)
    original = "".join(f"line {i}\n" for i in range(60_000)).encode()  # 530 KB
    (ws / "big.txt").write_bytes(original)
    done = subprocess.run(
        [sys.executable, "-c", _FULL_DISK, str(harness.ROOT), str(ws)],
        capture_output=True,
        text=True,
        timeout=120,
        env=harness.agent_env(home),
    )
    problems = []
    if (ws / "big.txt").read_bytes() != original:
        problems.append(f"the file changed: {(ws / 'big.txt').stat().st_size} bytes left of {len(original)}")
    if done.stdout.count("the original file is untouched") != 2:
        problems.append(f"the errors do not say the file is untouched: {done.stdout[-300:]} {done.stderr[-300:]}")
    if leftovers := [p.name for p in ws.iterdir() if p.name != "big.txt"]:
        problems.append(f"temp files left: {leftovers}")
    script = ws / "run.sh"
    script.write_text("echo hi\n")
    script.chmod(0o751)
    owner = (4321, 4321) if os.geteuid() == 0 else (os.getuid(), os.getgid())  # root may give files away
    os.chown(script, *owner)
    ctx, _ = _ctx(ws)
    with harness.data_home(home):
        from agent.tools.builtin import read_file, write_file

        read_file(ctx, "run.sh")
        _run(write_file(ctx, "run.sh", "echo bye\n"))
    if script.stat().st_mode & 0o777 != 0o751 or script.read_text() != "echo bye\n":
        problems.append(f"mode after a write: {script.stat().st_mode & 0o777:o}")
    if (script.stat().st_uid, script.stat().st_gid) != owner:
        problems.append(f"owner after a write: {script.stat().st_uid}:{script.stat().st_gid}, was {owner}")
    return problems


@scenario
def kill_mid_write(base: Path) -> list[str]:
    """SIGKILL in the middle of write_file: the file is the old one, whole."""
    home, ws = _dirs(base)
    original = "".join(f"line {i}\n" for i in range(60_000))
    (ws / "big.txt").write_text(original)
    with FakeOpenAI() as server:
        server.script(
            ToolCalls([("read_file", {"path": "big.txt"})]),
            ToolCalls([("write_file", {"path": "big.txt", "content": "new\n" * 100_000})]),
        )
        done = harness.run_agent(ws, home, server, "-p", "rewrite it", CODING_AGENT_FAULT="file_mid_write")
    problems = [] if done.returncode == -9 else [f"the fault point was not reached (exit {done.returncode})"]
    if (ws / "big.txt").read_text() != original:
        problems.append(f"the file is damaged: {(ws / 'big.txt').stat().st_size} bytes")
    return problems


# --- 5. folders that shared a session folder ----------------------------------------------


@scenario
def session_folders_apart(base: Path) -> list[str]:
    """/x/a/b, /x/a-b and "/x/a b" get their own sessions; an old shared folder still resumes."""
    home, _ = _dirs(base)
    root = Path(tempfile.mkdtemp(dir=base)).resolve()
    spaces = [root / "a" / "b", root / "a-b", root / "a b"]
    problems: list[str] = []
    with harness.data_home(home):
        for ws in spaces:
            ws.mkdir(parents=True, exist_ok=True)
            session.rewrite_messages(session.new_session_id(), harness.long_history(turns=1, words=1), ws)
        for ws in spaces:
            if len(session.list_sessions(ws)) != 1:
                problems.append(f"{ws} sees {len(session.list_sessions(ws))} sessions")
        if len({session.archive_dir(ws) for ws in spaces}) != 3:
            problems.append("the archives (readable by the model) are shared")
        old_ws = root / "old"
        old_ws.mkdir()
        legacy = home / "projects" / str(old_ws).strip("/").replace("/", "-")
        legacy.mkdir(parents=True)
        (legacy / "20250101-000000-abcdef.jsonl").write_text(
            session.dump_messages(harness.long_history(turns=1, words=1))
        )
        if session.latest_session(old_ws) != "20250101-000000-abcdef":
            problems.append("a session in an old-style folder is lost")
    return problems


# --- 6. a regex or glob that never ends -------------------------------------------------------

_SLOW = """
import asyncio, os, sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
os.environ["CODING_AGENT_GREP_TIMEOUT"] = "2"
from tests.robustness.attack_kit import _ctx
from agent.tools.builtin import grep, list_files
ws = Path(sys.argv[2])
(ws / "evil.txt").write_text("a" * 45 + "!\\n")
(ws / ("a" * 200)).write_text("")
ctx, _ = _ctx(ws)
started = time.monotonic()
print(asyncio.run(grep(ctx, "(a+)+$")))
print(list_files(ctx, "*a" * 12 + "b"))
print(list_files(ctx, "{a,a}" * 30 + "b"))
async def cancelled():
    task = asyncio.ensure_future(grep(ctx, "(x+x+)+y|(a+)+$"))
    await asyncio.sleep(0.5)
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        print("cancelled")
asyncio.run(cancelled())
print(f"took {time.monotonic() - started:.1f}")
from tests.agent.tools.test_process_slots import _grep_workers
print(f"grep workers left: {_grep_workers()}")
"""


@scenario
def regex_that_never_ends(base: Path) -> list[str]:
    """grep with (a+)+$ and list_files with *a*a*...b or {a,a}{a,a}...b end in seconds, and a cancel
    stops grep."""
    home, ws = _dirs(base)
    try:
        done = subprocess.run(
            [sys.executable, "-c", _SLOW, str(harness.ROOT), str(ws)],
            capture_output=True,
            text=True,
            timeout=60,
            env=harness.agent_env(home),
        )
    except subprocess.TimeoutExpired:
        return ["grep or list_files was still running after 60 s"]
    problems = [] if "grep stopped after 2 s" in done.stdout else [f"no time limit: {done.stdout[-300:]}"]
    if "cancelled" not in done.stdout:
        problems.append(f"cancelling grep did not end it: {done.stderr[-300:]}")
    # Counted by the script among its own children before it exits (the workers' command line does
    # not name the workspace, and pgrep is not on every machine).
    if "grep workers left: 0" not in done.stdout:
        problems.append(f"a grep worker outlived its tool call: {done.stdout[-200:]}")
    return problems


# --- 7. the key in /proc/$PPID/environ --------------------------------------------------------


@scenario
def key_in_the_parents_environment(base: Path) -> list[str]:
    """An approved command reads the agent's environment, from its own memory too: no key there."""
    home, ws = _dirs(base)
    script = "cat /proc/$PPID/environ | tr '\\0' '\\n'; echo; env; echo END-OF-ENV"
    with FakeOpenAI(api_key=harness.FAKE_KEY) as server:
        server.script(ToolCalls([("run_command", {"command": script})]))
        done = harness.run_agent(
            ws,
            home,
            server,
            "--yes",
            "-p",
            "look around",
            API_KEY=harness.FAKE_KEY,
            DEEPSEEK_API_KEY=harness.FAKE_KEY,
            SOME_SERVICE_API_KEY=harness.FAKE_KEY,
        )
        sent = [m.get("content") or "" for r in server.requests for m in r["body"]["messages"] if m["role"] == "tool"]
    output = "\n".join(str(s) for s in sent)
    problems = [] if "END-OF-ENV" in output and "PATH=" in output else [f"the command did not run: {done.stderr}"]
    if harness.FAKE_KEY in output or harness.FAKE_KEY[-16:] in output:
        problems.append("the command read the API key")
    if done.returncode != 0:
        problems.append(f"exit {done.returncode}: {done.stderr[-300:]}")
    return problems


# --- 8. the low ones -----------------------------------------------------------------------------


def read_only_folder(base: Path) -> Path:
    """A data folder this process cannot write (root ignores permissions: /sys is read-only)."""
    home = Path(tempfile.mkdtemp(dir=base)) / "home"
    (home / "projects").mkdir(parents=True)
    for folder in (home / "projects", home):
        folder.chmod(0o500)
    try:
        (home / "probe").touch()
    except OSError:
        return home
    (home / "probe").unlink()
    return Path("/sys/kernel/coding-agent-test-home")


@scenario
def read_only_data_folder(base: Path) -> list[str]:
    """A data folder that cannot be written: one line and exit 2, no traceback."""
    _, ws = _dirs(base)
    home = read_only_folder(base)
    with FakeOpenAI() as server:
        done = harness.run_agent(ws, home, server, "-p", "hi")
    problems = [] if done.returncode == 2 else [f"exit {done.returncode}"]
    if harness.crash_text(done.stderr) or len(done.stderr.strip().splitlines()) != 1:
        problems.append(f"not one line: {done.stderr[-400:]}")
    if str(home) not in done.stderr:
        problems.append("the line does not name the folder")
    return problems


@scenario
def key_echoed_into_the_debug_log(base: Path) -> list[str]:
    """An error body that echoes the key (and a Bearer header) is logged without them."""
    home, ws = _dirs(base)
    with FakeOpenAI() as server:
        server.script(Error(401, f"Incorrect API key provided: {harness.FAKE_KEY}. Header: Bearer {harness.FAKE_KEY}"))
        done = harness.run_agent(ws, home, server, "--debug", "-p", "hi", API_KEY=harness.FAKE_KEY)
    log = (home / "debug.log").read_text() if (home / "debug.log").exists() else ""
    problems = [] if "Incorrect API key provided" in log else [f"the error was not logged: {done.stderr[-200:]}"]
    for needle in (harness.FAKE_KEY, harness.FAKE_KEY[3:], harness.FAKE_KEY[-16:]):
        if needle in log:
            problems.append(f"{needle} is in debug.log")
    return problems


@scenario
def hard_link_out_of_the_workspace(base: Path) -> list[str]:
    """A hard link whose other name is outside: no write without approval, and an approved one
    leaves the outside name as it was."""
    home, ws = _dirs(base)
    outside = ws.parent / "outside.txt"
    outside.write_text("outside\n")
    os.link(outside, ws / "linked.txt")
    problems: list[str] = []
    with harness.data_home(home):
        from agent.tools.builtin import edit_file, read_file, write_file

        ctx, approver = _ctx(ws, "n")
        read_file(ctx, "linked.txt")
        for answer in (_run(write_file(ctx, "linked.txt", "pwned\n")), _run(edit_file(ctx, "linked.txt", "o", "p"))):
            if "declined" not in _text(answer):
                problems.append(f"not refused: {_text(answer)[:80]}")
        if len(approver.asked) != 2 or "hard link" not in (approver.asked[0][1] or ""):
            problems.append(f"asked {approver.asked}")
        ctx, _ = _ctx(ws, "y")
        read_file(ctx, "linked.txt")
        _run(write_file(ctx, "linked.txt", "inside only\n"))
    if outside.read_text() != "outside\n":
        problems.append("the file outside the workspace was changed")
    if (ws / "linked.txt").read_text() != "inside only\n":
        problems.append("the approved write did not happen")
    return problems


@scenario
def fifo_in_the_workspace(base: Path) -> list[str]:
    """read_file, an @-mention, grep and write_file on a FIFO (and a socket, and a device where we
    may make one) answer at once, and never block."""
    import socket
    import stat
    import threading

    home, ws = _dirs(base)
    os.mkfifo(ws / "pipe")
    specials = ["pipe"]
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(ws / "sock"))
    specials.append("sock")
    try:
        os.mknod(ws / "zero", stat.S_IFCHR | 0o600, os.makedev(1, 5))  # /dev/zero: reads never end
        specials.append("zero")
    except OSError:
        pass  # not root
    (ws / "file.txt").write_text("needle\n")
    answers: dict[str, str] = {}

    def attack() -> None:
        from agent.tools.builtin import grep, read_file, write_file
        from agent.tools.mentions import build_mention_messages

        ctx, _ = _ctx(ws)
        answers["grep"] = _run(grep(ctx, "needle"))
        for name in specials:
            answers[f"read {name}"] = read_file(ctx, name)
            answers[f"write {name}"] = _text(_run(write_file(ctx, name, "x")))
            answers[f"mention {name}"] = "; ".join(build_mention_messages([name], ctx.deps)[1])

    with harness.data_home(home):
        worker = threading.Thread(target=attack, daemon=True)
        worker.start()
        worker.join(20)
    listener.close()
    if worker.is_alive():
        with open(ws / "pipe", "wb"):  # let the blocked open return
            pass
        return ["a tool blocked on the FIFO"]
    problems = [f"{k}: {v[:80]}" for k, v in answers.items() if k != "grep" and "not a regular file" not in v]
    if "file.txt:1:needle" not in answers.get("grep", ""):
        problems.append(f"grep: {answers.get('grep')}")
    return problems


@scenario
def huge_message_in_a_session(base: Path) -> list[str]:
    """A message far over any window resumes cut, with a notice, and the file keeps it whole
    (scaled down: a 3 MB message against limits of 1 MB a line and 20,000 characters a text)."""
    from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart

    from agent.store import long_lines

    home, ws = _dirs(base)
    big = "word " * 600_000
    messages = [ModelRequest(parts=[UserPromptPart(big)]), ModelResponse(parts=[TextPart("ok")])]
    session_id = harness.prepare_session(home, ws, messages)
    saved = long_lines.MAX_LINE_BYTES, long_lines.KEEP_CHARS
    long_lines.MAX_LINE_BYTES, long_lines.KEEP_CHARS = 1 << 20, 20_000
    try:
        with harness.data_home(home):
            loaded = session.load(session_id, ws)
    finally:
        long_lines.MAX_LINE_BYTES, long_lines.KEEP_CHARS = saved
    problems = [] if len(loaded.messages) == 2 and not loaded.skipped else [f"loaded {loaded}"[:200]]
    content = loaded.messages[0].parts[0].content if loaded.messages else ""
    if not 20_000 <= len(content) < 20_200 or "characters cut" not in content:
        problems.append(f"the message was not cut: {len(content)} characters")
    if not loaded.cut or loaded.cut[0]["line"] != 2:  # line 1 is the format header
        problems.append("no notice of the cut")
    if harness.session_path(home, ws, session_id).read_text().count("word") != 600_000:
        problems.append("the file lost the full message")
    return problems


def run_all(base: Path) -> dict[str, list[str]]:
    return {name: fn(base) for name, fn in SCENARIOS.items()}
