"""The slash commands, one small function each. They talk to the UI only through their host's
channel (ui.registry.CommandHost): lines, listings, reports and questions are events."""

from __future__ import annotations

import asyncio
from pathlib import Path

import compact
import session
from agent.compaction import cancel_background, last_summary, plan_undo, undo_compaction
from agent.errors import CompactCancelled, CompactError, NothingToCompact
from agent.events import TodosChanged
from agent.text.i18n import t
from agent.tools import hooks, todo
from controller import load_session, start_warm_up, switch_session, undo_turn
from ui.registry import COMPACT_PREVIEW, COMPACT_SHOW, COMPACT_UNDO, command
from ui.registry import CommandHost as App  # what a command may use of ui.app.App


@command("help", aliases=("h", "?"))
async def cmd_help(app: App) -> None:
    lines, names = [], []
    for cmd in app.commands():
        aliases = f" ({', '.join('/' + a for a in cmd.aliases)})" if cmd.aliases else ""
        hint = f" {cmd.hint(app.lang)}" if cmd.hint(app.lang) else ""
        names.append(f"/{cmd.name}")
        lines.append(f"/{cmd.name}{hint}{aliases} — {cmd.describe(app.lang)}")
    keys = t("help_keys", app.lang, newline="Alt+Enter", interrupt="Ctrl-C", leave="Ctrl-D")
    app.show([*lines, t("help_mention", app.lang), keys, t("help_habits", app.lang)], names)


@command("status")
async def cmd_status(app: App) -> None:
    app.report("status")


@command("context")
async def cmd_context(app: App) -> None:
    app.report("context")


@command("clear", aliases=("new",))
async def cmd_clear(app: App) -> None:
    cancel_background(app.state)
    switch_session(app.state, session.new_session_id(), [])
    app.say(t("new_session", app.lang, id=app.state.session_id))
    hooks.session_start(app.state, "clear")


@command("resume")
async def cmd_resume(app: App) -> None:
    sessions = [s for s in session.list_sessions(app.state.workspace) if s.session_id != app.state.session_id]
    if not sessions:
        app.say(t("no_other_sessions", app.lang), "warn")
        return
    app.show(session.pick_lines(sessions))
    chosen = session.picked(sessions, await app.ask(t("resume_number", app.lang)))
    if chosen is None:
        return
    cancel_background(app.state)
    messages = load_session(app.state, chosen)
    switch_session(app.state, chosen, messages)
    app.say(t("resumed_session", app.lang, id=chosen))
    if messages:
        app.report("resumed")
    hooks.session_start(app.state, "resume")
    # As at start-up: a session near the threshold gets its request built while the user types.
    start_warm_up(app.state)


@command("undo")
async def cmd_undo(app: App) -> None:
    checkpoint = undo_turn(app.state)
    if checkpoint is None:
        app.say(t("nothing_to_undo", app.lang), "warn")
        return
    app.say(t("undone", app.lang, words=checkpoint.user_input[:60], n=len(checkpoint.files) - len(checkpoint.failed)))
    for line in checkpoint.failed:
        app.say(t("undo_file_failed", app.lang, line=line), "error")


@command("compact", takes_args=True)
async def cmd_compact(app: App, args: str) -> None:
    if args.strip().lower() == COMPACT_UNDO:
        await _compact_undo(app)
        return
    if args.strip().lower() == COMPACT_SHOW:
        text = last_summary(app.state)
        if app.state.stats.last_dropped:  # what the last compaction dropped, every tool and file named
            from ui.render import dropped_text

            app.say(dropped_text(app.state.stats.last_dropped, app.lang, named=None), "plain")
        if text is None:
            app.say(t("no_summary", app.lang), "warn")
        else:
            app.say(text, "plain")  # whole: the compaction's notice shows only its start
        return
    word, _, rest = args.strip().partition(" ")
    review = None
    if word.lower() == COMPACT_PREVIEW:
        from ui.compact_preview import reviewer

        args, review = rest, reviewer(app)
    cancel_background(app.state)
    try:
        await compact.run_compact(app.state, args, review=review)
    except asyncio.CancelledError:
        app.say(t("compact_cancelled", app.lang), "warn")
        raise
    except (NothingToCompact, CompactCancelled) as exc:
        app.say(str(exc), "warn")
    except CompactError as exc:
        app.say(t("compact_failed", app.lang, reason=exc), "error")
    except Exception as exc:  # noqa: BLE001 - one clear line, state untouched
        from agent.provider.error_text import describe_error

        app.say(t("compact_failed", app.lang, reason=describe_error(exc, app.state.config)), "error")


async def _compact_undo(app: App) -> None:
    state = app.state
    try:
        plan = plan_undo(state)
    except NothingToCompact as exc:
        app.say(str(exc), "warn")
        return
    # Said before asking: what happens to the turns made since that compaction.
    if plan.later is None:
        app.say(t("undo_later_unknown", app.lang, n=len(state.history)), "warn")
    elif plan.later_turns:
        app.say(t("undo_keeps_later", app.lang, n=plan.later_turns))
    if not await app.confirm(t("undo_question", app.lang)):
        return
    cancel_background(state)
    archive, saved, count = undo_compaction(state, plan)
    app.say(t("undo_done_which", app.lang, archive=archive, n=count, saved=saved, undo=COMPACT_UNDO))


@command("cost")
async def cmd_cost(app: App) -> None:
    from ui.status import money_lines

    stats, lang = app.state.stats, app.lang
    pct = 100 * stats.cache_hit_tokens / stats.input_tokens if stats.input_tokens else 0.0
    lines = [
        t(
            "status_tokens",
            lang,
            requests=stats.requests,
            input=stats.input_tokens,
            hits=stats.cache_hit_tokens,
            pct=pct,
            output=stats.output_tokens,
        ),
        t("status_compactions", lang, n=stats.compactions, tokens=stats.compaction_tokens),
    ]
    lines += [getattr(line, "plain", str(line)) for line in money_lines(app.state)]
    app.show([t("cost_title", lang), *lines])


@command("todos")
async def cmd_todos(app: App) -> None:
    app.state.emit(TodosChanged(todo.current(app.state.history)))


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


@command("exit", aliases=("quit", "q"))
async def cmd_exit(app: App) -> None:
    app.running = False
