"""What a new user meets first: the command line, one-shot mode, the small texts of the REPL."""

from __future__ import annotations

import pytest

import session
from agent.compaction.watermark import compact_at_range
from agent.events import Notice
from tests.test_main import run_main


def test_print_mode_says_it_declined_a_command(workspace, home, server):
    result = run_main(
        ["--base-url", server.base_url, "-p", "run touch made.txt", "--sandbox", "danger-full-access"], workspace, home
    )
    assert not (workspace / "made.txt").exists()
    assert "touch made.txt" in result.stderr and "--yes" in result.stderr


def test_print_mode_says_it_declined_a_write_that_needs_approval(workspace, home, server):
    (workspace / ".git").mkdir()
    result = run_main(["--base-url", server.base_url, "-p", "write .git/config x"], workspace, home)
    assert not (workspace / ".git" / "config").exists()
    assert ".git/config" in result.stderr and "--yes" in result.stderr, result.stderr


def test_print_mode_refuses_an_empty_message(workspace, home, server):
    for prompt in ("", "   "):
        result = run_main(["--base-url", server.base_url, "-p", prompt], workspace, home)
        assert result.returncode == 2 and "-p" in result.stderr
    assert server.requests == [] and session.list_sessions(workspace) == []


def test_compact_at_outside_the_range_is_refused_with_the_range(workspace, home, server):
    low, high = compact_at_range(16_000)
    for value in ("200%", str(high + 1), "1%"):
        result = run_main(
            ["--base-url", server.base_url, "--context-window", "16000", "--compact-at", value, "-p", "hi"],
            workspace,
            home,
        )
        assert result.returncode == 2
        assert f"{low:,}" in result.stderr and f"{high:,}" in result.stderr, result.stderr
    assert server.requests == []


def test_errors_name_the_installed_command(workspace, home):
    result = run_main(["--context-window", "abc"], workspace, home)
    assert result.returncode == 2
    assert "usage: coding-agent" in result.stderr and "main.py" not in result.stderr


def test_no_lock_file_stays_behind(workspace, home, server):
    for prompt in ("first", "second"):
        assert run_main(["--base-url", server.base_url, "-p", prompt], workspace, home).returncode == 0
    folder = session.project_dir(workspace)
    assert len(list(folder.glob("*.jsonl"))) == 2
    assert list(folder.glob("*.lock")) == []


def test_a_released_lock_removes_its_file_and_a_lock_on_a_removed_file_is_not_taken(home, workspace):
    lock = session.SessionLock("s1", workspace)
    path = lock.path
    lock.release()
    assert not path.exists()
    again = session.SessionLock("s1", workspace)
    # Someone removed the file after we opened it: the next taker must not get a second lock.
    path.unlink()
    third = session.SessionLock("s1", workspace)
    assert path.exists() and third.path == path
    again.release()  # not the file at the path any more: it must not remove the third's
    assert path.exists()
    third.release()
    assert not path.exists()


def _app(state):
    from io import StringIO

    from rich.console import Console

    import main
    from ui.app import App

    out = StringIO()
    return App(state, main.submit, console=Console(file=out, width=120)), out


# Issue 20 adds /compact show.
@pytest.mark.parametrize(
    ("lang", "hint"),
    [("en", "[instructions|preview [instructions]|undo|show]"), ("zh", "[补充说明|preview [补充说明]|undo|show]")],
)
async def test_help_shows_what_a_command_takes_from_the_registry(state, lang, hint):
    from ui.commands import COMMANDS, dispatch

    assert COMMANDS["compact"].hint(lang) == hint
    state.config.lang = lang
    app, out = _app(state)
    await dispatch(app, "/help")
    assert f"/compact {hint}" in out.getvalue()
    # Every command that takes arguments says which.
    assert all(cmd.hint(lang) for cmd in COMMANDS.values() if cmd.takes_args)


async def test_an_attached_file_is_shown(make_state, workspace, server):
    from main import on_submit

    (workspace / "notes.txt").write_text("the plan\n")
    state = make_state()
    await on_submit(state, "summarize @notes.txt please")
    assert "Attached @notes.txt" in [n.text for n in state.emit.of(Notice)]


def test_a_command_shows_its_last_lines_dimmed():
    import re
    from io import StringIO

    from rich.console import Console

    from agent.events import ToolResult
    from ui.render import COMMAND_TAIL_LINES, Renderer

    out = StringIO()
    renderer = Renderer(Console(file=out, width=100, force_terminal=True, color_system="standard"), "en")
    output = "".join(f"test {i} passed\n" for i in range(12)) + "\x1b[31m1 failed\x1b[0m\x1b[2J\n[exit code: 1]"
    renderer(ToolResult("c1", "run_command", output))
    renderer.stop_spinner()
    raw = out.getvalue()
    assert "\x1b[2J" not in raw and "\x1b[31m" not in raw  # the command's escapes are not replayed
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", raw)
    assert "1 failed" in text and "[exit code: 1]" in text and "test 11 passed" in text
    assert "test 0 passed" not in text and f"{12 + 1 - COMMAND_TAIL_LINES} more lines above" in text
    assert "\x1b[2m" in raw  # dimmed


async def test_resume_previews_a_compacted_session_by_the_users_words(make_state, workspace, server):
    import compact
    from tests.builders import chat, long_answer

    state = make_state()
    server.script(long_answer(1), long_answer(2))
    await chat(state, ["fix the parser bug in lexer.py", "and add a test for it"])
    await compact.run_compact(state, "")
    [info] = session.list_sessions(workspace)
    assert info.preview == "fix the parser bug in lexer.py"
    # Without its archive, the first words after the summary.
    for archive in session.list_archives(state.session_id, workspace):
        archive.unlink()
    await chat(state, ["now the docs"])
    assert session.list_sessions(workspace)[0].preview == "now the docs"


# Words that stay as they are in the Chinese UI: names of things, not English sentences.
KEPT_WORDS = {
    "API",
    "DeepSeek",
    "MB",
    "Ollama",
    "vLLM",
    "MCP",
    "Shift",
    "Tab",
    "git",
    "Claude",
    "Code",
    "Markdown",
    "NUL",
    "FIFO",
    "DEEPSEEK",
    "HTTP",
    "JSON",
    "KEY",
    "Key",
    "Nk",
    "OPENAI",
    "coding",
    "main",
    "pid",
    "py",
    "shell",
    "token",
    "tokens",
    "preview",
}  # preview: a word typed after /compact


def _english_words(text: str) -> list[str]:
    import re

    text = re.sub(r"\{[^}]*\}|`[^`]*`", "", text)  # placeholders, code names
    text = re.sub(r"--?[a-z][a-z-]*|/[a-z]+|@\S+", "", text)  # flags, commands, mentions
    return [w for w in re.findall(r"[A-Za-z]{2,}", text) if w not in KEPT_WORDS]


def test_the_chinese_toolbar_is_chinese(state):
    state.config.lang = "zh"
    app, _ = _app(state)
    toolbar = app.toolbar()  # plain text, escaped (issue 19: a control character made HTML() raise)
    assert "上下文 … / 131,072" in toolbar and "context" not in toolbar


def test_the_chinese_texts_are_chinese():
    from agent.text.i18n import TEXTS

    mixed = {key: _english_words(zh) for key, (_, zh) in TEXTS.items() if _english_words(zh)}
    assert mixed == {}


def test_ctrl_c_in_print_mode_is_one_line(workspace, home, server):
    import signal
    import subprocess

    from tests.fake_openai import Slow
    from tests.robustness.harness import agent_argv, agent_env

    def as_a_terminal_starts_it() -> None:
        # A terminal's shell starts a program with Ctrl-C at its default, whatever the parent had.
        # A shell without job control starts a command put in the background (`cmd &` in a script)
        # with SIGINT and SIGQUIT ignored (POSIX), and every process under it inherits that: the
        # .ci/run runs where this test failed had been started so (checked: /proc/PID/status
        # shows SigIgn 0x6 for `sleep 9 &` run from `bash -c`), and the agent never saw the signal.
        # Not the agent's doing: a program started with SIGINT ignored (nohup, `&`) is meant to
        # ignore it.
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    # An answer that goes on until the server stops: the signal, after its first part, must end it.
    story = " ".join(f"Slow answer part {i}." for i in range(1, 2001))
    server.script(Slow(story, delay_per_chunk=0.1, chunks=2000))
    agent = subprocess.Popen(
        agent_argv(server, "-p", "slow answer please"),
        cwd=workspace,
        env=agent_env(home),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        stdin=subprocess.DEVNULL,
        preexec_fn=as_a_terminal_starts_it,
    )
    assert agent.stdout is not None
    assert agent.stdout.read(len("Slow answer part 1")) == "Slow answer part 1"
    agent.send_signal(signal.SIGINT)
    _, err = agent.communicate(timeout=30)
    assert agent.returncode == 130
    assert err.strip() == "⏹ Interrupted"


def test_print_mode_says_why_it_waits_on_a_429(workspace, home, server):
    from tests.fake_openai import Error

    server.script(Error(429, "Rate limit reached", headers={"retry-after": "1"}))
    result = run_main(
        ["--base-url", server.base_url, "-p", "hello"], workspace, home, env={"CODING_AGENT_MAX_RETRIES": "2"}
    )
    assert result.returncode == 0 and "Echo: hello" in result.stdout
    assert "HTTP 429: retrying in 1s (attempt 2 of 3)" in result.stderr
