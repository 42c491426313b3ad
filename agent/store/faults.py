"""Named fault points for crash tests: with CODING_AGENT_FAULT=<point> the process kills itself
(SIGKILL, no cleanup) when it reaches that point. Costs one dict lookup when unset.

Armed only in a data folder the test harness made: CODING_AGENT_HOME set and holding the file
ARMING_FILE (tests/robustness/harness.py writes it into its temporary folder). A user who leaves the
variable exported, or copies a test's command line, runs with their own data folder (the default
~/.coding-agent, or one they chose), where no such file is, so nothing is killed and no session is
cut short: a kill needs both the variable and a file nobody makes by hand.
"""

from __future__ import annotations

import os
import signal

ARMING_FILE = "fault-points-armed"


def fault(point: str) -> None:
    if os.environ.get("CODING_AGENT_FAULT") == point and armed():
        os.kill(os.getpid(), signal.SIGKILL)


def armed() -> bool:
    home = os.environ.get("CODING_AGENT_HOME")
    return bool(home) and os.path.isfile(os.path.join(home, ARMING_FILE))
