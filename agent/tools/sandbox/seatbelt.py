"""macOS: `sandbox-exec` with a profile written for each command (Seatbelt's SBPL).

Everything is allowed, then every write denied, then writes allowed beneath the private temp folder,
the devices a shell writes to and the writable folders, then denied again on the protected paths
(which need not exist: a rule names a path, not a file) and reads denied on the secrets; the network
is denied unless the policy allows it. In SBPL the last rule that matches an operation decides.

Written from Apple's profile language as Codex CLI and Claude Code use it; this machine is Linux, so
the profile has not been run here (docs/security.md says so). No process limit, and a command's
`setsid` children are not ended with it, on macOS.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent.tools.sandbox.layout import Layout

DEVICES = ('(literal "/dev/null")', '(literal "/dev/zero")', '(regex #"^/dev/tty")', '(regex #"^/dev/fd/")')


def _quoted(path: Path) -> str:
    text = str(path.resolve())
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _subpath(path: Path) -> str:
    return f"(subpath {_quoted(path)})"


def profile(layout: Layout) -> str:
    lines = ["(version 1)", "(allow default)", "(deny file-write*)"]
    allowed = [_subpath(layout.tmp), *DEVICES, *(_subpath(root) for root in layout.writable)]
    lines.append(f"(allow file-write* {' '.join(allowed)})")
    protected = [*layout.read_only, *layout.absent]
    if protected:
        lines.append(f"(deny file-write* {' '.join(_subpath(p) for p in protected)})")
    if layout.git_dirs:  # the folder itself may not be renamed away from its protected parts
        lines.append(f"(deny file-write-unlink {' '.join(f'(literal {_quoted(g)})' for g in layout.git_dirs)})")
    if layout.hidden:
        lines.append(f"(deny file-read* {' '.join(_subpath(p) for p in layout.hidden)})")
    if not layout.network:
        lines.append("(deny network*)")
    return "\n".join(lines) + "\n"


def argv(program: str, layout: Layout, inner: list[str]) -> list[str]:
    return [program, "-p", profile(layout), *inner]
