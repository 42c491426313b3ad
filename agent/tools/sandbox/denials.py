"""Whether a sandboxed command failed for want of access, and why: a write the sandbox refused
(a read-only file system; "Permission denied" where the mechanism says it that way) or the network
it has not got. Read from the command's output, which the command writes: a command can pretend,
and then the user is asked, as before the sandbox existed (agent.tools.sandbox.offer).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from agent.tools.sandbox.confine import Sandbox

EXIT = re.compile(r"\[exit code: (-?\d+)\]\s*$")
WRITE_REFUSED = ("Read-only file system",)
# How Landlock and Seatbelt refuse, and bubblewrap for root (its capabilities are dropped): for an
# ordinary user under bubblewrap the words mean the file's own permissions, not the sandbox.
ACCESS_REFUSED = ("Permission denied", "Operation not permitted")
NO_NETWORK = (
    "Network is unreachable",
    "Could not resolve host",
    "Temporary failure in name resolution",
    "Name or service not known",
    "nodename nor servname",
    "No address associated with hostname",
    "Failed to establish a new connection",
    "Connection refused",
    "getaddrinfo",
    "EAI_AGAIN",
    "ENOTFOUND",
    "ENETUNREACH",
    "ECONNREFUSED",
    "Could not connect",
    "Network unreachable",
)
LINE_CAP = 200


@dataclass(frozen=True)
class Stopped:
    kind: str  # "write" | "network"
    line: str  # the output's line that says so


def stopped(output: str, sandbox: Sandbox) -> Stopped | None:
    """What the sandbox refused this command, judged from its output; None if it succeeded or failed
    for some other reason."""
    m = EXIT.search(output)
    if m is None or m.group(1) == "0":
        return None
    kind = sandbox.mechanism.kind
    refusals = WRITE_REFUSED + (ACCESS_REFUSED if kind != "bubblewrap" or os.geteuid() == 0 else ())
    found = _line(output, refusals)
    if found is not None:
        return Stopped("write", found)
    if not sandbox.policy.network and (found := _line(output, NO_NETWORK)) is not None:
        return Stopped("network", found)
    return None


def _line(output: str, words: tuple[str, ...]) -> str | None:
    for line in output.splitlines():
        if any(word in line for word in words):
            line = line.strip()
            return line if len(line) <= LINE_CAP else line[:LINE_CAP] + " [...]"
    return None
