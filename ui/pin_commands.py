"""/pin and /unpin: what the user keeps verbatim through every compaction (agent.state.pins holds
the rule). A change appends one message with the whole list, so the model sees it at once and the
session file keeps it."""

from __future__ import annotations

from agent.state.pins import Pin, pins_message, pins_of
from agent.text.i18n import t
from agent.text.visible import plain
from ui.registry import CommandHost as App
from ui.registry import command


def pin_lines(state) -> list[str]:
    """The pins as /pin and /context list them ([] when none)."""
    pins = pins_of(state.history)
    if not pins:
        return []
    return [t("pins_title", state.lang), *(f"{n}. {_shown(pin)}" for n, pin in enumerate(pins, start=1))]


def _shown(pin: Pin) -> str:
    text = plain(" ".join(pin.text.split()))
    return ("@" + text if pin.kind == "file" else text)[:100]


@command("pin", takes_args=True)
async def cmd_pin(app: App, args: str) -> None:
    state, text = app.state, args.strip()
    if not text:
        lines = pin_lines(state)
        app.show(lines) if lines else app.say(t("pins_none", app.lang))
        return
    pin = _pin_of(app, text)
    if pin is not None:
        pins = [*pins_of(state.history), pin]
        _save(app, pins)
        app.say(t("pin_added", app.lang, n=len(pins), text=_shown(pin)))


@command("unpin", takes_args=True)
async def cmd_unpin(app: App, args: str) -> None:
    pins = pins_of(app.state.history)
    n = args.strip().lstrip("#")
    if not n.isdigit() or not 1 <= int(n) <= len(pins):
        app.say(t("pin_bad_number", app.lang, n=plain(args.strip()[:20])), "warn")
        return
    gone = pins.pop(int(n) - 1)
    _save(app, pins)
    app.say(t("pin_removed", app.lang, text=_shown(gone)))


def _pin_of(app: App, text: str) -> Pin | None:
    from agent.state.file_state import ReadFileState
    from agent.tools.answers import ToolError
    from agent.tools.reading import read_for_model
    from agent.turn import rewind

    if text.startswith("@") and len(text) > 1:
        path = text[1:]
        try:  # confined as the model's reads are
            read_for_model(path, app.state.workspace, ReadFileState(), max_tokens=1)
        except ToolError as exc:
            app.say(t("pin_bad_file", app.lang, path=plain(path), why=plain(str(exc))), "warn")
            return None
        return Pin("file", path)
    if text.startswith("#") and text[1:].isdigit():
        turns = rewind.list_turns(app.state)
        n = int(text[1:])
        if not 1 <= n <= len(turns):
            app.say(t("pin_bad_message", app.lang, n=n, last=len(turns)), "warn")
            return None
        return Pin("message", turns[n - 1].text)
    return Pin("text", text)


def _save(app: App, pins: list[Pin]) -> None:
    from agent.tools.mentions import pinned_files

    state = app.state
    files = pinned_files(state, [p.text for p in pins if p.kind == "file"])
    state.transcript.append(pins_message(pins, files, state.lang))
