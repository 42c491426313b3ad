"""The sandbox's attack table (attacks_sandbox.py) checked against itself: each attack's command, run
by a plain shell with no sandbox, gets through and its check says so. A table whose attacks could not
succeed anyway would hold by construction; this is what makes its "held" mean something."""

from __future__ import annotations

import os
import signal
import subprocess
import time

import pytest

from tests.robustness import harness
from tests.robustness.attacks_sandbox import TABLE, Attack, place_for
from tests.sandbox_kit import processes_named, tcp_server


@pytest.mark.parametrize("attack", TABLE, ids=[a.name for a in TABLE])
def test_each_attack_gets_through_with_no_sandbox(attack: Attack):
    with place_for(attack) as place, tcp_server() as (port, accepted):
        place.port, place.accepted = port, accepted
        # The "agent": a process holding the key in its environment, as the agent would without its guards.
        agent = subprocess.Popen(["sleep", "600"], env={"API_KEY": harness.FAKE_KEY})
        (place.root / "agent.pid").write_text(str(agent.pid))
        env = dict(os.environ, HOME=str(place.user_home))
        output = place.root / "output"  # a file, not a pipe: what the attack leaves running would hold a pipe open
        with open(output, "w") as out:
            shell = subprocess.Popen(
                ["/bin/sh", "-c", attack.command(place)],
                cwd=place.ws,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        try:
            shell.wait(timeout=120)
            result = output.read_text()
            # What the shell left in the background (setsid, nohup) may not have started its program yet
            # when the shell ends: wait for the attack to show, up to a bound.
            deadline = time.monotonic() + 30
            while not attack.check(place, result) and time.monotonic() < deadline:
                time.sleep(0.05)
            assert attack.check(place, result) != [], f"the attack did not get through unsandboxed: {result[-300:]}"
        finally:
            agent.kill()
            agent.wait()
            for pid in processes_named(f"forked-{place.tag}") + processes_named(f"sleep\0{place.marker}"):
                os.kill(pid, signal.SIGKILL)
            os.unlink(f"/tmp/x-{place.tag}") if os.path.exists(f"/tmp/x-{place.tag}") else None
