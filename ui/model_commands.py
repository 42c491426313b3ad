"""The model's slash commands: /model (switch, compacting first when the new window is smaller),
/effort and /thinking. They register in ui.registry like ui/command_handlers.py's."""

from __future__ import annotations

import asyncio

import compact
from agent.compaction import cancel_background, context_tokens
from agent.config import REASONING_EFFORTS, THINKING_CHOICES
from agent.errors import CompactError
from agent.provider.error_text import describe_error
from agent.text.i18n import t
from agent.tools import images
from agent.turn import model_switch
from ui.registry import CommandHost as App
from ui.registry import command


@command("model", takes_args=True)
async def cmd_model(app: App, args: str) -> None:
    state, lang = app.state, app.lang
    name, _, window_text = args.partition(" ")
    if not name or (name == state.config.model and not window_text):
        app.say(t("model_now", lang, model=state.config.model, window=state.config.context_window))
        return
    try:
        window = model_switch.parse_window(window_text) if window_text.strip() else None
    except ValueError:
        app.say(t("model_bad_window", lang, value=window_text.strip()), "error")
        return
    try:
        switch = model_switch.plan(state, name, window)
    except ValueError as exc:
        app.say(str(exc), "error")
        return
    cancel_background(state)  # written by the old model for the old window
    if switch.compact_first and not await _compact_for(app, switch):
        return
    old_model = state.config.model
    await model_switch.close_agent(model_switch.switch_model(state, switch))
    window = t("window_known" if switch.window_known else "window_assumed", lang, n=switch.window)
    app.say(t("model_switched", lang, model=name, window=window))
    app.say(model_switch.cache_note(state, old_model, context_tokens(state)), "warn")
    if (shown := images.images_in(state.history)) and not images.takes_images(state.config):
        app.say(t("model_images_in_history", lang, model=name, n=len(shown)), "warn")


async def _compact_for(app: App, switch: model_switch.Switch) -> bool:
    """Compact to fit the new window, with the old model (its cache serves the summary request).
    On failure nothing changes: no switch."""
    state = app.state
    app.say(
        t("model_compact_first", app.lang, used=switch.used, threshold=switch.threshold, model=switch.model), "warn"
    )
    window = state.config.context_window
    state.config.context_window = switch.window  # the result must fit the new window
    try:
        await compact.run_compact(state, trigger="model")
        return True
    except asyncio.CancelledError:
        state.config.context_window = window
        raise
    except Exception as exc:  # noqa: BLE001 - one clear line, the session as it was
        state.config.context_window = window
        reason = exc if isinstance(exc, CompactError) else describe_error(exc, state.config)
        app.say(t("model_not_switched", app.lang, model=switch.model, why=reason), "error")
        return False


@command("effort", takes_args=True)
async def cmd_effort(app: App, value: str) -> None:
    if value not in (*REASONING_EFFORTS, "default"):
        app.say(t("effort_usage", app.lang, choices=" | ".join((*REASONING_EFFORTS, "default"))), "warn")
        return
    effort = None if value == "default" else value
    await model_switch.close_agent(model_switch.apply(app.state, reasoning_effort=effort))
    app.say(t("settings_changed", app.lang, what=f"/effort {value}"))


@command("thinking", takes_args=True)
async def cmd_thinking(app: App, value: str) -> None:
    if value not in (*THINKING_CHOICES, "default"):
        app.say(t("thinking_usage", app.lang, choices=" | ".join((*THINKING_CHOICES, "default"))), "warn")
        return
    thinking = None if value == "default" else value == "on"
    await model_switch.close_agent(model_switch.apply(app.state, thinking=thinking))
    app.say(t("settings_changed", app.lang, what=f"/thinking {value}"))
