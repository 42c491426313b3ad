"""The OS sandbox's attack table (attacks_sandbox.py) played in a real terminal: one REPL session, one
turn per attack, typed as a person would. Nothing asks before a command runs; where the sandbox
stopped one, the offer to run it outside shows the command on screen (a pyte screen) and the user
declines. Each attack is a test of its own, judged on what the session left behind."""

from __future__ import annotations

import pexpect
import pytest

from tests.fake_openai import FakeOpenAI, ToolCalls
from tests.pty_kit import Screen, ask, spawn, type_line, wait_prompt
from tests.robustness import harness
from tests.robustness.attacks_sandbox import TABLE, Attack, place_for, tree
from tests.sandbox_kit import tcp_server

OFFER = "Run it again OUTSIDE the sandbox"


@pytest.fixture(scope="module")
def session():
    """Play every attack in one session: per attack what its check found, what the screen showed."""
    from agent.tools.sandbox import detect

    with place_for(*TABLE) as place, tcp_server() as (port, accepted), FakeOpenAI(api_key=harness.FAKE_KEY) as server:
        place.port, place.accepted = port, accepted
        found = detect.find(place.ws)
        if found.kind != "bubblewrap":
            pytest.skip(f"SKIPPED: bubblewrap cannot run here ({found.missing})")
        skip = (place.ws, place.home, place.root / "agent.pid")
        before = tree(place.root, skip)
        child = spawn(
            place.ws, place.home, server, env_extra={"API_KEY": harness.FAKE_KEY, "HOME": str(place.user_home)}
        )
        screen = Screen(child)
        (place.root / "agent.pid").write_text(str(child.pid))
        wait_prompt(child)
        played = {}
        for attack in TABLE:
            played[attack.name] = _turn(child, screen, server, place, attack)
        ask(child, "/status", "Sandbox:")
        status = [line for line in screen.lines() if "Sandbox:" in line]
        type_line(child, "/exit")
        child.expect(pexpect.EOF, timeout=30)
        changed = sorted(set(tree(place.root, skip).items()) ^ set(before.items()))
        yield played, changed, status


def _turn(child: pexpect.spawn, screen: Screen, server: FakeOpenAI, place, attack: Attack):  # noqa: ANN001, ANN202
    from tests.robustness.attacks_sandbox import tool_results

    asked = len(server.requests)
    # One turn each: the command, then (unscripted) the emulator's "Done: run_command returned ...".
    server.script(ToolCalls([("run_command", {"command": attack.command(place)})]))
    type_line(child, f"play: {attack.name}")
    offered = child.expect([OFFER, "Done: run_command returned"], timeout=90) == 0
    shown = ""
    if offered:
        child.expect_exact("always for this [p]roject")
        shown = "\n".join(screen.lines())
        child.send("n\r")
        child.expect("Done: run_command returned", timeout=60)
    wait_prompt(child)
    assert len(server.requests) > asked
    result = tool_results(server)
    try:
        return attack.check(place, result), offered, shown, result
    except pytest.skip.Exception as skipped:  # this attack cannot be played here; the others can
        return str(skipped), offered, shown, result


@pytest.mark.parametrize("attack", TABLE, ids=[a.name for a in TABLE])
def test_the_attack_is_held_in_the_terminal(session, attack: Attack):
    played, changed, _status = session
    problems, offered, shown, result = played[attack.name]
    if isinstance(problems, str):
        pytest.skip(problems)
    assert problems == [], result[-300:]
    if offered:  # the user saw the command and why, and said no (the screen wraps long lines)
        shown = " ".join(shown.split())
        assert "the sandbox refused a write" in shown or "the sandbox has no network" in shown
        assert "declined to run it outside the sandbox" in result
    assert changed == []


def test_status_names_the_sandbox(session):
    _played, _changed, status = session
    assert status and "workspace-write (bubblewrap" in status[0] and "network off" in status[0]
    assert "process limit" in status[0]
