"""Who decides whether a tool call goes ahead: the permission mode, the saved rules and the user.

Modes, as Claude Code's: `default` asks before every edit and command; `acceptEdits` edits files in
the workspace without asking and asks before commands (the agent's start mode, as it always behaved);
`plan` runs the read-only tools only; `bypassPermissions` asks nothing (`--yes`). Shift+Tab cycles
the first three (and bypassPermissions when the session started in it).

Rules (`permissions.allow` / `ask` / `deny` in the settings files, agent.tools.rule_match's syntax) are
looked at in that order, deny first: a deny always wins. Writes that run code (under `.git/`, a file
with other hard links: agent.tools.write_guard) stay asked unless a rule names `.git` or the mode is
bypassPermissions. A project's allow rules count only once the user approved the project (agent.provider.trust).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from agent.events import ApprovalRequest, ask
from agent.text.i18n import t
from agent.tools.preapproval import preapproved
from agent.tools.rule_match import (
    EDIT_TOOLS,
    BadRule,
    NoSuchTool,
    Rule,
    command_allows,
    command_may_match,
    escape_command,
    escape_path,
    fully_read,
    names_git,
    names_one_file,
    parse_rule,
    path_matches,
    subject_matches,
)

# `state` below is the AppState (agent.state.app holds a Permissions: importing it here would be a cycle),
# `risk` an agent.tools.write_guard.Risk.
AppState = Any
Risk = Any

from agent.state.settings_state import CYCLE, KINDS, MODES, START_MODE, Permissions, mode  # noqa: E402,F401 - re-exported

# Claude Code's permission keys that mean nothing here: /config lists them as ignored.
CLAUDE_ONLY = ("additionalDirectories", "disableBypassPermissionsMode")

# A PreToolUse hook's word on the call in progress ("allow", "deny", "ask"; agent.tools.hooks sets it).
HOOK_DECISION: ContextVar[tuple[str, str] | None] = ContextVar("hook_decision", default=None)


def load(settings: Any, mode: str | None, yes: bool, lang: str) -> tuple[Permissions, list[str]]:
    """The mode (flag, then the user's files' `permissions.defaultMode`, then the project's once it is
    approved) and the rules of every layer (a project's allow rules once it is approved)."""
    from agent.provider.settings import is_users

    perms, warnings = Permissions(), []
    modes: dict[bool, str | None] = {True: None, False: None}  # the user's files' mode, the project's
    for layer, section in settings.section("permissions") if settings is not None else ():
        path, users = settings.path(layer), is_users(layer)
        for key in set(section) - {*KINDS, "defaultMode", *CLAUDE_ONLY}:
            warnings.append(t("settings_unknown_key", lang, path=path, name=f"permissions.{key}"))
        for key in sorted(set(section) & set(CLAUDE_ONLY)):
            settings.ignore(layer, f"permissions.{key}", "claude_only")
        for kind in KINDS:
            for text, outside in _rule_texts(section.get(kind, []), path, kind, lang, warnings):
                try:
                    rule = parse_rule(text)
                except NoSuchTool as exc:
                    settings.ignore(layer, f"permissions.{kind} {text}", "no_tool", tool=exc.tool)
                    continue
                except BadRule:
                    warnings.append(t("rule_bad", lang, path=path, rule=text))
                    continue
                trusted = users or kind != "allow"
                (perms.rules[kind] if trusted else perms.pending_allow).append(rule)
                if outside:
                    (perms.outside_sandbox if trusted else perms.pending_outside).append(rule)
        wanted = section.get("defaultMode")
        if wanted is not None:
            if wanted not in MODES:
                warnings.append(
                    t(
                        "settings_bad_value",
                        lang,
                        path=path,
                        name="permissions.defaultMode",
                        takes=t("takes_mode", lang),
                    )
                )
            elif wanted == "bypassPermissions" and not users:
                warnings.append(t("rule_bypass_refused", lang, path=path))
            else:
                modes[users] = wanted
    perms.mode = "bypassPermissions" if yes else (mode or modes[True])
    if perms.mode is None:
        perms.project_mode = modes[False]
    if perms.mode == "bypassPermissions":
        perms.cycle = (*CYCLE, "bypassPermissions")
    return perms, warnings


def _rule_texts(value: Any, path: Path | None, kind: str, lang: str, warnings: list[str]) -> list[tuple[str, bool]]:
    """Each rule's text, and whether its commands run outside the OS sandbox: an allow rule may be
    written `{"rule": "Bash(git push:*)", "sandbox": false}`."""
    if isinstance(value, list) and all(isinstance(v, str) or kind == "allow" and _outside_rule(v) for v in value):
        return [(v, False) if isinstance(v, str) else (v["rule"], True) for v in value]
    warnings.append(t("settings_bad_value", lang, path=path, name=f"permissions.{kind}", takes=t("takes_rules", lang)))
    return []


def _outside_rule(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and set(value) == {"rule", "sandbox"}
        and isinstance(value["rule"], str)
        and value["sandbox"] is False
    )


# --- deciding ------------------------------------------------------------------------------


def _matches(
    rule: Rule,
    tool: str,
    command: str | None,
    path: Path | None,
    workspace: Path,
    loose: bool,
    subject: str | None = None,
) -> bool:
    if not rule.names_tool(tool):
        return False
    if rule.specifier is None:
        return True
    if command is not None:
        # A deny or ask rule sees every command in the line and fails closed; an allow rule matches
        # only what the parser fully resolved (agent.tools.rule_match).
        return (command_may_match if loose else command_allows)(rule.specifier, command)
    if subject is not None:
        return subject_matches(rule.specifier, subject)
    return path is not None and path_matches(rule.specifier, path, workspace)


def decide(
    perms: Permissions,
    tool: str,
    workspace: Path,
    *,
    command: str | None = None,
    path: Path | None = None,
    subject: str | None = None,
) -> tuple[str, Rule | None]:
    """ "deny", "ask" or "allow" and the rule that said so; ("none", None) when no rule speaks.
    `subject`: what a fetch_url or task rule names (a host, a sub-agent type)."""
    for kind in KINDS:
        for rule in perms.rules[kind]:
            if _matches(rule, tool, command, path, workspace, kind != "allow", subject):
                return kind, rule
    return "none", None


def read_denied(perms: Permissions, tool: str, path: Path, workspace: Path) -> bool:
    """Whether a deny rule keeps `tool` off this one file (grep leaves such files out of a search)."""
    return decide(perms, tool, workspace, path=path)[0] == "deny"


def command_decision(perms: Permissions, command: str) -> tuple[str, Rule | None]:
    """What the rules say of a command line: "deny", "ask", "allow" or "none" (no rule speaks), and
    the rule. The one answer for every caller that runs commands (run_command, a sandbox that runs
    without asking unless a deny or ask rule matches)."""
    return decide(perms, "run_command", Path("."), command=command)


# --- asking --------------------------------------------------------------------------------


class Refused(Exception):
    """The call does not go ahead; the text is for the model."""


def remember_for_project(state: AppState, rule_text: str) -> None:
    """The "always for this project" answer: the rule goes to settings.local.json and counts now."""
    from agent.provider import settings as files
    from agent.provider import trust

    perms = state.permissions
    perms.rules["allow"].append(parse_rule(rule_text))
    trusted_before = trust.is_trusted(state)
    path = files.add_rule(state.workspace, "allow", rule_text)
    if trusted_before:
        trust.remember(state)  # the project's grants, with this rule, stay approved
    from agent.events import Notice

    state.emit(Notice(t("rule_saved", state.lang, rule=rule_text, path=path), "dim"))


def _hook_word() -> tuple[str, str] | None:
    return HOOK_DECISION.get()


def _with_hook(kind: str) -> str:
    """A PreToolUse hook's "ask" asks even where a rule would allow."""
    hook = HOOK_DECISION.get()
    return "ask" if hook is not None and hook[0] == "ask" and kind != "deny" else kind


# Why a deny rule matched a line the parser could not fully read: for the model, to write it plainly.
UNSURE = (
    ": the line could not be read for sure (case, [[ ]], $((...)), a substitution inside a ~word or "
    "${...}, an alias, a shell reading a stream), so it may run what the rule names; write plain commands"
)


def _refuse_by(kind: str, rule: Rule | None, hook: tuple[str, str] | None, why: str = "") -> None:
    if hook is not None and hook[0] == "deny":
        raise Refused(f"a PreToolUse hook refused this call: {hook[1] or 'no reason given'}")
    if kind == "deny" and rule is not None:
        raise Refused(f"the permission rule {rule.text!r} (deny) refuses this call{why}")


def _plan(state: AppState) -> None:
    if mode(state) == "plan":
        raise Refused(
            "plan mode is on: only the read-only tools run (read_file, list_files, grep). "
            "Read what you need, then propose a plan; the user leaves plan mode with Shift+Tab"
        )


async def command(state: AppState, text: str, sandboxed: bool = False) -> None:
    """run_command: raises Refused unless the command may run. A command that will run in the OS
    sandbox (`sandboxed`) runs unasked unless a deny or ask rule (or a hook) speaks."""
    kind, rule = command_decision(state.permissions, text)
    kind, hook = _with_hook(kind), _hook_word()
    unsure = kind == "deny" and not fully_read(text)
    _refuse_by(kind, rule, hook, UNSURE if unsure else "")
    _plan(state)
    if kind != "ask" and (
        sandboxed
        or hook
        and hook[0] == "allow"
        or kind == "allow"
        or mode(state) == "bypassPermissions"
        or preapproved(state.config, "run_command")
        or text in state.always_allowed
    ):
        return
    request = ApprovalRequest("command", text)
    answer = await ask(state.emit, request)
    if answer == "always":
        state.always_allowed.add(text)
    elif answer == "project":
        remember_for_project(state, f"run_command({escape_command(text)})")
    elif answer != "y":
        raise Refused("the user declined to run this command")


def _edits_preapproved(state: AppState) -> bool:
    """--allowed-tools write_file or edit_file (agent.tools.preapproval) lets edits through, as an allow rule
    would; a write that could run code (write_guard) still needs a rule that names it."""
    return any(preapproved(state.config, tool) for tool in EDIT_TOOLS)


async def write(
    state: AppState,
    display: str,
    target: Path,
    risk: Risk | None,
    change: Callable[[], Awaitable[tuple[str, bool]]] | None = None,
    tool: str = EDIT_TOOLS[0],
) -> None:
    """`tool` (write_file, edit_file) writing `target` (resolved, in the workspace): raises Refused
    unless allowed. `change` makes the diff the user is shown and says whether it is shown whole,
    only when they are asked (it is bounded, not free)."""
    kind, rule = decide(state.permissions, tool, state.workspace, path=target)
    kind, hook = _with_hook(kind), _hook_word()
    _refuse_by(kind, rule, hook)
    _plan(state)
    now = mode(state)
    if risk is not None:
        # Only a rule that names the file: `.git` in so many words, or (a file with other links) its path.
        named = (
            kind == "allow"
            and rule is not None
            and rule.specifier is not None
            and (names_git(rule.specifier) if risk.key == "git" else names_one_file(rule.specifier))
        )
        if now == "bypassPermissions" or named or display in state.always_allowed_writes:
            return
        why = risk.text(state.lang)
    else:
        if kind != "ask" and (
            hook and hook[0] == "allow" or kind == "allow" or now in ("acceptEdits", "bypassPermissions")
        ):
            return
        if _edits_preapproved(state) or display in state.always_allowed_writes:
            return
        why = t("write_reason_mode", state.lang)
    detail, whole = await change() if change is not None else ("", True)
    answer = await ask(state.emit, ApprovalRequest("write", display, why=why, detail=detail, whole=whole))
    if answer == "always":
        state.always_allowed_writes.add(display)
    elif answer == "project":
        remember_for_project(state, f"Edit({escape_path(display)})")
    elif answer != "y":
        reason = risk.text("en") if risk is not None else "an edit, and the permission mode asks before edits"
        raise Refused(f"the user declined this write to {display}: it is {reason}")


async def read(state: AppState, tool: str, target: Path | None) -> None:
    """A read-only tool: only a deny or ask rule (or a hook) stops it."""
    kind, rule = decide(state.permissions, tool, state.workspace, path=target)
    hook = _hook_word()
    _refuse_by(kind, rule, hook)
    if kind == "ask" or (hook and hook[0] == "ask"):
        shown = str(target) if target is not None else tool
        if await ask(state.emit, ApprovalRequest("read", shown)) not in ("y", "always", "project"):
            raise Refused(f"the user declined this read of {shown}")


async def named_tool(state: AppState, tool: str, subject: str | None = None) -> None:
    """task (`subject` the sub-agent type) and todo: run unless a deny or ask rule (or a hook) speaks."""
    kind, rule = decide(state.permissions, tool, state.workspace, subject=subject)
    hook = _hook_word()
    _refuse_by(kind, rule, hook)
    if kind == "ask" or (hook and hook[0] == "ask"):
        shown = f"{tool} {subject}" if subject else tool
        if await ask(state.emit, ApprovalRequest("tool", shown)) not in ("y", "always", "project"):
            raise Refused(f"the user declined this call of {shown}")


async def tool_call(state: AppState, tool: str, args: dict[str, Any]) -> None:
    """An MCP server's tool: asked like a command unless a rule or the mode says otherwise."""
    kind, rule = decide(state.permissions, tool, state.workspace)
    kind, hook = _with_hook(kind), _hook_word()
    _refuse_by(kind, rule, hook)
    _plan(state)
    if kind != "ask" and (
        hook
        and hook[0] == "allow"
        or kind == "allow"
        or mode(state) == "bypassPermissions"
        or preapproved(state.config, tool)
        or tool in state.always_allowed
    ):
        return
    subject = f"{tool} {json.dumps(args, ensure_ascii=False)}"
    answer = await ask(state.emit, ApprovalRequest("tool", subject))
    if answer == "always":
        state.always_allowed.add(tool)
    elif answer == "project" and "*" not in tool:
        remember_for_project(state, tool)
    elif answer == "project":  # a server's tool named with a star would save a wildcard: this session only
        state.always_allowed.add(tool)
    elif answer != "y":
        raise Refused(f"the user declined this call of {tool}")
