"""/permissions as a Claude Code user types it: the rules and where they came from, a rule added to
the user's or the project's local settings file, a rule removed. It registers in ui.registry like
ui/command_handlers.py's and talks only through its host's channel."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from agent.text.i18n import t
from ui.registry import CommandHost as App
from ui.registry import command


def _rule_sources(app: App) -> dict[tuple[str, str], str]:
    """(kind, rule text) -> the settings file it came from, for the listing."""
    settings = app.state.config.settings
    found: dict[tuple[str, str], str] = {}
    for layer, section in settings.section("permissions") if settings is not None else ():
        for kind in ("allow", "ask", "deny"):
            for text in section.get(kind, []) if isinstance(section.get(kind), list) else []:
                found.setdefault((kind, text), str(settings.path(layer)))
    return found


def numbered_rules(app: App) -> list[tuple[str, Any]]:
    """(kind, rule) in the order /permissions numbers them: deny, ask, allow (the order they count)."""
    rules = app.state.permissions.rules
    return [(kind, rule) for kind in ("deny", "ask", "allow") for rule in rules[kind]]


@command("permissions", takes_args=True)
async def cmd_permissions(app: App, args: str) -> None:
    verb, _, rest = args.strip().partition(" ")
    if verb in ("", "list"):
        _list_rules(app)
    elif verb == "add":
        await _add_rule(app, rest.strip())
    elif verb in ("remove", "rm"):
        _remove_rule(app, rest.strip())
    else:
        app.say(t("permissions_usage", app.lang), "warn")


def _list_rules(app: App) -> None:
    from agent.tools.permissions import mode

    perms, lang = app.state.permissions, app.lang
    sources = _rule_sources(app)
    lines = [t("permissions_title", lang, mode=t(f"mode_{mode(app.state)}", lang))]
    for n, (kind, rule) in enumerate(numbered_rules(app), start=1):
        where = sources.get((kind, rule.text)) or t("permissions_session", lang)
        lines.append(f"  {n:>2}. {kind:<5} {rule.text}  · {where}")
    if not numbered_rules(app):
        lines.append(t("permissions_none", lang))
    for rule in perms.pending_allow:
        lines.append(f"      allow {rule.text}  · {t('permissions_waiting', lang)}")
    lines.append(t("permissions_usage", lang))
    app.show(lines)


def _files(app: App) -> dict[str, tuple[str, Path]]:
    """Where /permissions writes: the project's uncommitted settings.local.json, or the user's own file."""
    from agent.provider.settings import LOCAL, USER, settings_paths

    paths = settings_paths(app.state.workspace)
    return {"l": (LOCAL, paths[LOCAL]), "u": (USER, paths[USER])}


async def _add_rule(app: App, text: str) -> None:
    from agent.provider import settings as files
    from agent.tools.rule_match import BadRule, parse_rule

    kind, _, rule_text = text.partition(" ")
    rule_text = rule_text.strip()
    if kind not in ("allow", "ask", "deny") or not rule_text:
        app.say(t("permissions_usage", app.lang), "warn")
        return
    try:
        rule = parse_rule(rule_text)
    except BadRule:
        app.say(t("permissions_bad_rule", app.lang, rule=rule_text), "error")
        return
    targets = _files(app)
    choice = await app.ask(t("permissions_where", app.lang, local=targets["l"][1], user=targets["u"][1]))
    choice = choice.strip().lower()[:1]
    if choice not in targets:
        app.say(t("permissions_not_added", app.lang), "warn")
        return
    layer, path = targets[choice]
    if kind == "allow" and choice == "l":  # as the "always for this project" answer: the approval kept
        from agent.tools.permissions import remember_for_project

        try:
            remember_for_project(app.state, rule_text)  # it says where it saved the rule
        except OSError as exc:
            app.say(t("permissions_not_saved", app.lang, path=path, error=exc.strerror or exc), "error")
        return
    try:
        await asyncio.to_thread(files.add_rule, app.state.workspace, kind, rule_text, layer)
    except OSError as exc:
        app.say(t("permissions_not_saved", app.lang, path=path, error=exc.strerror or exc), "error")
        return
    app.state.permissions.rules[kind].append(rule)  # the user's own file, or a restriction: counts now
    app.say(t("permissions_added", app.lang, kind=kind, rule=rule_text, path=path))


def _remove_rule(app: App, which: str) -> None:
    from agent.provider import settings as files

    found = numbered_rules(app)
    chosen = None
    if which.isdigit() and 1 <= int(which) <= len(found):
        chosen = found[int(which) - 1]
    else:
        chosen = next(((kind, rule) for kind, rule in found if rule.text == which), None)
    if chosen is None:
        app.say(t("permissions_no_such", app.lang, which=which), "warn")
        return
    kind, rule = chosen
    source = _rule_sources(app).get((kind, rule.text))
    app.state.permissions.rules[kind].remove(rule)
    removed_from = []
    for layer, path in _files(app).values():
        try:
            if files.remove_rule(app.state.workspace, kind, rule.text, layer) is not None:
                removed_from.append(str(path))
        except OSError as exc:
            app.say(t("permissions_not_saved", app.lang, path=path, error=exc.strerror or exc), "error")
    where = ", ".join(removed_from) or t("permissions_session", app.lang)
    app.say(t("permissions_removed", app.lang, kind=kind, rule=rule.text, path=where))
    if source is not None and source not in removed_from:
        app.say(t("permissions_still_in_file", app.lang, path=source), "warn")
