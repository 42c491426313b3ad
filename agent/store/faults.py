"""Named fault points for crash tests: with CODING_AGENT_FAULT=<point> the process kills itself
(SIGKILL, no cleanup) when it reaches that point. Costs one dict lookup when unset."""

from __future__ import annotations

import os
import signal


def fault(point: str) -> None:
    if os.environ.get("CODING_AGENT_FAULT") == point:
        os.kill(os.getpid(), signal.SIGKILL)
