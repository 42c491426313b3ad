"""Running a custom slash command (its file: agent.provider.command_files), in the REPL and in -p alike:
the arguments put in, each `` !`command` `` run and its output put in its place, then one turn with
the command's `allowed-tools` granted and its `model` used, for that turn only.

A `!` command is asked like any command the model would run (the same rules, mode and answers),
unless a rule allows it: the user's own, or the command's `allowed-tools`. A project's command file is
someone else's text: its `allowed-tools` count only once the user trusted the project, and one of
them declined leaves the prompt unsent.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from agent.events import Notice
from agent.provider.command_files import INLINE, CommandFile
from agent.state.app import AppState
from agent.text.i18n import t
from agent.tools import permissions
from agent.tools.rule_match import BadRule, Rule, parse_rule
from agent.turn import model_switch

INLINE_TIMEOUT = 120  # seconds, as a command the model runs gets by default
OK_ENDING = "[exit code: 0]"


def may_grant(state: AppState, command: CommandFile) -> bool:
    """The one check of whose text a command is: the user's own file grants what it says; a project's
    only when the user trusted the project and its grants are still the ones they saw."""
    if command.scope == "user":
        return True
    from agent.provider import trust

    return state.project.trusted and trust.is_trusted(state)


def turn_rules(state: AppState, command: CommandFile) -> list[Rule]:
    """The command's `allowed-tools` as rules, if it may grant them; each one not taken is said."""
    if not command.allowed_tools:
        return []
    if not may_grant(state, command):
        state.emit(
            Notice(
                t("command_grants_untrusted", state.lang, name=command.name, rules=", ".join(command.allowed_tools)),
                "warn",
            )
        )
        return []
    rules = []
    for text in command.allowed_tools:
        try:
            rules.append(parse_rule(text))
        except BadRule:
            state.emit(Notice(t("command_rule_ignored", state.lang, name=command.name, rule=text), "warn"))
    return rules


async def _inline(state: AppState, command: CommandFile, line: str) -> str | None:
    """One `!` command's output, or None when it may not run (declined, refused by a rule)."""
    from agent.tools.builtin import run_allowed
    from agent.tools.sandbox import confine

    sandbox = confine.for_command(state, line)
    try:
        await permissions.command(state, line)
    except permissions.Refused:
        state.emit(Notice(t("command_inline_declined", state.lang, name=command.name, command=line), "warn"))
        return None
    output = await run_allowed(state, line, INLINE_TIMEOUT, sandbox)
    state.emit(Notice(t("command_inline_ran", state.lang, command=line, n=output.count("\n") + 1), "dim"))
    text = output.rstrip("\n")
    return text[: -len(OK_ENDING)].rstrip("\n") if text.endswith(OK_ENDING) else text


async def expand(state: AppState, command: CommandFile, arguments: str) -> str | None:
    """The prompt: the body with the arguments and each `!` command's output put in; None if one
    could not run (the prompt would ask about something it does not hold)."""
    text = command.prompt(arguments)
    parts, at = [], 0
    for match in INLINE.finditer(text):
        output = await _inline(state, command, match.group(1).strip())
        if output is None:
            return None
        parts += [text[at : match.start()], output]
        at = match.end()
    return "".join(parts) + text[at:]


@contextlib.asynccontextmanager
async def _model_for_turn(state: AppState, command: CommandFile) -> AsyncIterator[None]:
    """The command's `model` for its turn, then the session's again."""
    wanted = command.model
    if not wanted or wanted == state.config.model:
        yield
        return
    from agent.provider.agent_files import is_claude_model

    if is_claude_model(wanted):
        state.emit(
            Notice(
                t("command_model_claude", state.lang, name=command.name, model=wanted, current=state.config.model),
                "warn",
            )
        )
        yield
        return
    try:
        switch = model_switch.plan(state, wanted)
    except ValueError as exc:
        switch, why = None, str(exc)
    if switch is None or switch.compact_first:
        why = why if switch is None else t("command_model_small", state.lang, window=switch.window)
        state.emit(Notice(t("command_model_not_used", state.lang, name=command.name, model=wanted, why=why), "warn"))
        yield
        return
    config = state.config
    before = {"model": config.model, "context_window": config.context_window, "window_known": config.window_known}
    await model_switch.close_agent(model_switch.switch_model(state, switch))
    state.emit(Notice(t("command_model", state.lang, name=command.name, model=wanted), "dim"))
    try:
        yield
    finally:
        await model_switch.close_agent(model_switch.apply(state, **before))


@contextlib.asynccontextmanager
async def _granted(state: AppState, rules: list[Rule]) -> AsyncIterator[None]:
    allow = state.permissions.rules["allow"]
    allow.extend(rules)
    try:
        yield
    finally:
        for rule in rules:
            for n, held in enumerate(allow):
                if held is rule:
                    del allow[n]
                    break


async def run(
    state: AppState, command: CommandFile, arguments: str, submit: Callable[[str, str | None], Awaitable[Any]]
) -> Any:
    """Expand `command` and hand its prompt to `submit(prompt, typed)` (a turn); None when it was not
    sent. `typed` is what the user typed into a project's command (main.on_submit confines the image
    paths only the file names), None for the user's own."""
    async with _granted(state, turn_rules(state, command)):
        text = await expand(state, command, arguments)
        if text is None:
            state.emit(Notice(t("command_not_sent", state.lang, name=command.name), "warn"))
            return None
        async with _model_for_turn(state, command):
            return await submit(text, arguments if command.scope == "project" else None)
