"""When the sandbox stopped a command (agent.tools.sandbox.denials), the user is offered, once, to run
it again outside, shown the command whole and why. No one to ask (-p) is a no, and the turn's exit
status says something was declined (3); --yes and bypassPermissions say yes, with a notice.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from agent.events import ApprovalRequest, Notice, ask
from agent.text.i18n import t
from agent.tools.permissions import mode
from agent.tools.preapproval import preapproved
from agent.tools.sandbox import denials
from agent.tools.sandbox.confine import Sandbox


def _unasked(state: Any) -> bool:
    return preapproved(state.config, "run_command") or mode(state) == "bypassPermissions"


async def rerun_outside(
    state: Any, command: str, output: str, sandbox: Sandbox, outside: Callable[[], Awaitable[str]]
) -> str:
    """`output` as it is, unless the sandbox stopped the command and the user lets it run outside:
    then what the run outside printed."""
    found = denials.stopped(output, sandbox)
    if found is None:
        return output
    why = t(f"sandbox_why_{found.kind}", state.lang, line=found.line)
    if _unasked(state):
        state.emit(Notice(t("sandbox_rerun_unasked", state.lang, why=why), "warn"))
    elif await ask(state.emit, ApprovalRequest("outside", command, why=why)) == "n":
        return (
            f"{output}\n[the OS sandbox stopped this command ({found.kind}: {found.line}); "
            "the user declined to run it outside the sandbox]"
        )
    rerun = await outside()
    return f"[the OS sandbox stopped the first run ({found.kind}); it ran again outside the sandbox]\n{rerun}"
