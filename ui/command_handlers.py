"""The slash commands, one small function each."""

from __future__ import annotations

import asyncio

from rich.text import Text

import compact
import session
from agent.background import cancel_background
from agent.errors import CompactError, NothingToCompact
from agent.i18n import t
from controller import load_session, start_warm_up, switch_session, undo_turn
from ui.registry import CommandHost as App  # what a command may use of ui.app.App
from ui.registry import command, unique_commands
from ui.status import status_lines


@command("help", "List the commands", "列出所有命令", aliases=("h", "?"))
async def cmd_help(app: App) -> None:
    for cmd in unique_commands():
        aliases = f" ({', '.join('/' + a for a in cmd.aliases)})" if cmd.aliases else ""
        hint = f" {cmd.hint(app.lang)}" if cmd.hint(app.lang) else ""
        line = Text("  ")
        line.append(f"/{cmd.name}", style="bold")
        line.append(f"{hint}{aliases} — {cmd.describe(app.lang)}")
        app.console.print(line)
    zh = app.lang == "zh"
    app.console.print("  " + ("@文件路径 — 把文件内容带进消息" if zh else "@path — include a file in your message"))
    app.console.print("  Alt+Enter — " + ("换行" if zh else "new line") + " · Ctrl-C — "
                      + ("中断" if zh else "interrupt") + " · Ctrl-D — " + ("退出" if zh else "exit"))


@command("status", "Model, session, tokens and context used", "模型、会话、token 用量和上下文占用")
async def cmd_status(app: App) -> None:
    for line in status_lines(app.state):
        app.console.print(line)


@command("context", "What fills the context window, by kind", "上下文窗口里都装了什么（按类别）")
async def cmd_context(app: App) -> None:
    from ui.context_view import render

    for renderable in render(app.state):
        app.console.print(renderable)


@command("clear", "Start a new session", "开始新会话", aliases=("new",))
async def cmd_clear(app: App) -> None:
    cancel_background(app.state)
    switch_session(app.state, session.new_session_id(), [])
    app.say(("新会话：" if app.lang == "zh" else "New session: ") + app.state.session_id, "cyan")


@command("resume", "List this directory's sessions and pick one", "列出本目录的会话并选择一个")
async def cmd_resume(app: App) -> None:
    sessions = [s for s in session.list_sessions(app.state.workspace) if s.session_id != app.state.session_id]
    if not sessions:
        app.say("没有其他会话。" if app.lang == "zh" else "No other sessions.", "yellow")
        return
    for line in session.pick_lines(sessions):
        app.console.print("  " + line)
    chosen = session.picked(sessions, await app.ask("编号：" if app.lang == "zh" else "Number: "))
    if chosen is None:
        return
    cancel_background(app.state)
    messages = load_session(app.state, chosen)
    switch_session(app.state, chosen, messages)
    app.say(("已恢复会话 " if app.lang == "zh" else "Resumed session ") + chosen, "cyan")
    # As at start-up: a session near the threshold gets its request built while the user types.
    start_warm_up(app.state)


@command("undo", "Undo the last turn: files and conversation", "撤销上一轮：文件和对话")
async def cmd_undo(app: App) -> None:
    checkpoint = undo_turn(app.state)
    if checkpoint is None:
        app.say("没有可撤销的轮次。" if app.lang == "zh" else "Nothing to undo.", "yellow")
        return
    restored = len(checkpoint.files)
    zh = app.lang == "zh"
    app.say((f"已撤销：{checkpoint.user_input[:60]}（恢复了 {restored} 个文件）" if zh
             else f"Undone: {checkpoint.user_input[:60]} ({restored} file(s) restored)"), "cyan")


@command("compact", "Compact the conversation now; '/compact undo' restores the last archive",
         "立即压缩对话；'/compact undo' 从最近的存档恢复", args=("[instructions|undo]", "[补充说明|undo]"))
async def cmd_compact(app: App, args: str) -> None:
    if args.strip().lower() == "undo":
        await _compact_undo(app)
        return
    cancel_background(app.state)
    try:
        await compact.run_compact(app.state, args)
    except asyncio.CancelledError:
        app.say(t("compact_cancelled", app.lang), "yellow")
        raise
    except NothingToCompact as exc:
        app.say(str(exc), "yellow")
    except CompactError as exc:
        app.say(t("compact_failed", app.lang, reason=exc), "red")
    except Exception as exc:  # noqa: BLE001 - one clear line, state untouched
        from agent.error_text import describe_error

        app.say(t("compact_failed", app.lang, reason=describe_error(exc, app.state.config)), "red")


async def _compact_undo(app: App) -> None:
    state = app.state
    try:
        plan = compact.plan_undo(state)
    except NothingToCompact as exc:
        app.say(str(exc), "yellow")
        return
    # Said before asking: what happens to the turns made since that compaction.
    if plan.later is None:
        app.say(t("undo_later_unknown", app.lang, n=len(state.history)), "yellow")
    elif plan.later_turns:
        app.say(t("undo_keeps_later", app.lang, n=plan.later_turns), "cyan")
    if not await app.confirm(t("undo_question", app.lang)):
        return
    cancel_background(state)
    archive, saved, count = compact.undo_compaction(state, plan)
    app.say(t("undo_done", app.lang, archive=archive, n=count, saved=saved), "cyan")


@command("exit", "Leave the agent", "退出", aliases=("quit", "q"))
async def cmd_exit(app: App) -> None:
    app.running = False
