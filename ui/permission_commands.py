"""Claude Code's everyday slash commands, as a switching user types them: /cost, /permissions, /hooks,
/add-dir and /export (/doctor: ui/doctor.py; /review: ui/review_command.py). They register in
ui.registry like ui/command_handlers.py's and talk only through their host's channel."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from agent.text.i18n import t
from ui.registry import CommandHost as App
from ui.registry import command


@command("cost")
async def cmd_cost(app: App) -> None:
    from ui.status import money_lines

    stats, lang = app.state.stats, app.lang
    pct = 100 * stats.cache_hit_tokens / stats.input_tokens if stats.input_tokens else 0.0
    lines = [t("status_tokens", lang, requests=stats.requests, input=stats.input_tokens, hits=stats.cache_hit_tokens,
               pct=pct, output=stats.output_tokens),
             t("status_compactions", lang, n=stats.compactions, tokens=stats.compaction_tokens)]
    lines += [getattr(line, "plain", str(line)) for line in money_lines(app.state)]
    app.show([t("cost_title", lang), *lines])


# --- /permissions ----------------------------------------------------------------------------------


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
    choice = (await app.ask(t("permissions_where", app.lang, local=targets["l"][1], user=targets["u"][1])))
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


# --- /hooks -----------------------------------------------------------------------------------------


@command("hooks")
async def cmd_hooks(app: App) -> None:
    hooks, lang = app.state.hooks, app.lang
    if not hooks.active and not hooks.pending:
        app.say(t("hooks_none", lang), "warn")
        return
    lines = [t("hooks_title", lang)]
    waiting = t("permissions_waiting", lang)
    for hook, state in [*[(h, "") for h in hooks.active], *[(h, waiting) for h in hooks.pending]]:
        matcher = f" [{hook.matcher}]" if hook.matcher else ""
        where = t(f"config_source_{hook.layer}", lang)
        lines.append(f"  {hook.event}{matcher} · {where}{' · ' + state if state else ''}")
        lines.append(f"      {hook.command}")
    app.show(lines)


# --- /add-dir ---------------------------------------------------------------------------------------


@command("add-dir", takes_args=True)
async def cmd_add_dir(app: App, args: str) -> None:
    from agent.config import data_home
    from agent.tools.workspace import PathError, add_folder, added_folders

    lang, workspace = app.lang, app.state.workspace
    if not args.strip():
        folders = added_folders(workspace)
        app.show([t("add_dir_title", lang), *[f"  {f}" for f in folders]] if folders else [t("add_dir_none", lang)])
        return
    given = Path(args.strip()).expanduser()
    given = given if given.is_absolute() else workspace / given
    real = given.resolve()
    why = ("add_dir_not_folder" if not real.is_dir() else "add_dir_data" if real.is_relative_to(data_home().resolve())
           else "add_dir_everything" if real == Path(real.anchor) else None)
    if why is not None:
        app.say(t("add_dir_refused", lang, folder=given, why=t(why, lang)), "error")
        return
    try:
        folder = add_folder(workspace, real)
    except PathError as exc:
        app.say(t("add_dir_refused", lang, folder=given, why=exc), "error")
        return
    from agent.turn.quick_input import add_user_message

    add_user_message(app.state, "user_add_dir", "add_dir", folder=str(folder))
    app.say(t("add_dir_done", lang, folder=folder))


# --- /export ----------------------------------------------------------------------------------------


@command("export", takes_args=True)
async def cmd_export(app: App, args: str) -> None:
    import os

    from ui.export_view import conversation_markdown

    state = app.state
    given = Path(args.strip() or f"{state.session_id}.md").expanduser()
    path = given if given.is_absolute() else state.workspace / given
    text = conversation_markdown(state.history, state.lang)
    try:
        # O_EXCL and O_NOFOLLOW: never over a file (nor through a link) that is already there.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
    except FileExistsError:
        app.say(t("export_exists", app.lang, path=path), "warn")
        return
    except OSError as exc:
        app.say(t("export_failed", app.lang, path=path, error=exc.strerror or exc), "error")
        return
    app.say(t("export_done", app.lang, path=path, n=len(state.history)))
