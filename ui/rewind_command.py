"""/rewind: pick a turn, then what goes back to before it (agent.turn.rewind does it)."""

from __future__ import annotations

from agent.text.i18n import t
from agent.turn import rewind
from ui.registry import CommandHost as App
from ui.registry import command

BACK = "b"  # the answer that undoes the last rewind, the same in every language
CHOICES = {"c": (True, False), "f": (False, True), "b": (True, True), "": (True, True)}


def turn_line(n: int, turn: rewind.Turn, lang: str) -> str:
    line = f"{n}. {turn.first_line[:80]}"
    if turn.files:
        line += "  " + t("rewind_files", lang, files=", ".join(turn.files[:4]) + (" …" if len(turn.files) > 4 else ""))
    if turn.source is not None:
        line += "  " + t("rewind_archived", lang)
    return line


@command("rewind")
async def cmd_rewind(app: App) -> None:
    state, lang = app.state, app.lang
    turns = rewind.list_turns(state)
    back_to = rewind.last_rewind(state)
    if not turns and back_to is None:
        app.say(t("rewind_nothing", lang), "warn")
        return
    lines = [turn_line(n, turn, lang) for n, turn in enumerate(turns, start=1)]
    if back_to is not None:
        lines.append(t("rewind_back_line", lang, answer=BACK))
    app.show(lines)
    answer = (await app.ask(t("rewind_pick", lang))).strip().lower()
    if answer == BACK and back_to is not None:
        rewind.back(state, back_to)
        app.say(t("rewind_came_back", lang, n=len(state.history)))
        return
    if not answer.isdigit() or not 1 <= int(answer) <= len(turns):
        return
    await _rewind_to(app, turns[int(answer) - 1])


async def _rewind_to(app: App, turn: rewind.Turn) -> None:
    state, lang = app.state, app.lang
    if rewind.checkpoint_of(state, turn) is None:
        conversation, files = True, False
        if turn.files:
            app.say(t("rewind_files_unknown", lang), "warn")
    else:
        choice = (await app.ask(t("rewind_what", lang))).strip().lower()[:1]
        if choice not in CHOICES:
            return
        conversation, files = CHOICES[choice]
    restored, failed = rewind.rewind(state, turn, conversation, files)
    if conversation:
        app.say(t("rewind_done", lang, words=turn.first_line[:60], n=len(state.history)))
    if files:
        app.say(t("rewind_files_done", lang, n=len(restored)))
    for line in failed:
        app.say(t("rewind_file_failed", lang, line=line), "error")
