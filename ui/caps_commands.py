"""Slash commands of issue 25's capabilities (/todos, /model, /effort, /thinking, /rewind); they
register in ui.registry like ui/command_handlers.py's."""

from __future__ import annotations

from agent import todo
from agent.events import TodosChanged
from ui.registry import CommandHost as App
from ui.registry import command


@command("todos")
async def cmd_todos(app: App) -> None:
    app.state.emit(TodosChanged(todo.current(app.state.history)))
