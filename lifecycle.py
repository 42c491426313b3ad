"""What a session takes from the user's and the project's set-up, wired by main.py: the
project's grants once approved, the SessionStart and Stop hooks around the turns, the MCP servers
once the prompt is up. The parts themselves live in agent/ (trust, permissions, hooks, mcp_servers)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.events import Notice
from agent.state.app import AppState
from agent.text.i18n import t
from controller import check_server, start_warm_up

if TYPE_CHECKING:
    from agent.turn.loop import TurnOutcome

MAX_STOP_CONTINUATIONS = 3  # a Stop hook that always blocks must not keep the turn going forever


async def start_project(state: AppState) -> None:
    """The project's grants (env, baseUrl, allow rules, defaultMode, hooks, MCP servers) count once the
    user approved them (agent.provider.trust)."""
    from agent.provider import trust
    from agent.tools import hooks

    decision = await trust.settle(state)
    if decision.trusted:
        state.project.trusted = True
        state.project.env = dict(decision.found.get("env", {}))
        state.permissions.trust_project()
        state.hooks.trust_project()
        use_project_endpoint(state, decision.named)
    if not state.config.api_key and not state.config.base_url and not state.config.one_shot:
        state.emit(Notice(t("no_api_key", state.lang), "error"))
    await _say_sandbox(state)
    hooks.session_start(state, "resume" if state.history else "startup")
    say_skipped_imports(state)


def say_skipped_imports(state: AppState) -> None:
    """An `@path` a memory file names that is not read is said once at start (/memory says why)."""
    from agent.tools import memory_files

    if skipped := memory_files.scan(state.workspace).skipped:
        state.emit(Notice(t("memory_skipped_start", state.lang, n=len(skipped)), "warn"))


def use_project_endpoint(state: AppState, named: bool) -> None:
    """The approved project's baseUrl; the key that goes there only if a question named it (not
    --trust-project alone)."""
    endpoint = state.config.project_endpoint
    if endpoint is None:
        return
    state.config.base_url = endpoint.url
    state.config.api_key = endpoint.key if named else None
    settings = state.config.settings
    if settings is not None and "baseUrl" in settings.pending:  # /config names where it came from
        settings.origins["baseUrl"] = settings.pending["baseUrl"]
    if endpoint.key and not named:
        state.emit(Notice(t("trust_key_withheld", state.lang, url=endpoint.url, name=endpoint.key_name), "warn"))
    check_server(state)


async def _say_sandbox(state: AppState) -> None:
    """Once at start: no OS sandbox here (commands run as before), or only the Landlock fallback. The
    REPL does not wait for the sandbox's probe to draw its prompt; -p says it before the turn."""
    import asyncio

    from agent.tools.sandbox.status import start_notice

    if state.config.sandbox is None:
        return

    async def say() -> None:
        found = await asyncio.to_thread(start_notice, state.config, state.workspace, state.lang)
        if found is not None:
            state.emit(Notice(*found))

    if state.config.one_shot:
        await say()
    else:
        task = asyncio.create_task(say())
        _saying.add(task)
        task.add_done_callback(_saying.discard)


_saying: set = set()  # the start notice's task, kept until it is done


def first_paint(state: AppState) -> None:
    """Once the prompt is up: the warm-up, and the MCP servers (which wait for it: agent.tools.mcp_servers)."""
    from agent.tools import mcp_servers

    start_warm_up(state)
    mcp_servers.start(state, state.project.trusted)


async def stop_hooks(state: AppState, outcome: TurnOutcome) -> TurnOutcome:
    """Stop: a hook that blocks (exit 2, "decision": "block") sends its reason back to the model.
    Returns the last turn's outcome (-p's exit code and result follow it)."""
    import compact
    from agent.tools import hooks
    from agent.turn.loop import run_turn

    for again in range(MAX_STOP_CONTINUATIONS + 1):
        if not outcome.ok:
            return outcome
        said = await hooks.run(state, "Stop", {"stop_hook_active": again > 0})
        if said.blocked is None or said.stop is not None or again == MAX_STOP_CONTINUATIONS:
            return outcome
        state.emit(Notice(t("hook_stop_continues", state.lang, reason=said.blocked), "dim"))
        # The hook's reason goes as its own framed message, never as the user's words (agent.tools.hooks).
        feedback = hooks.hook_message("hook_stop", said.blocked, "Stop", state.lang)
        outcome = await run_turn(state, None, [feedback], before_request=compact.before_request)
    return outcome
