"""Completion of slash commands and @paths, read from the one command registry."""

from __future__ import annotations

from io import StringIO

from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from rich.console import Console

import main
from agent.config import Config
from agent.state.app import AppState
from agent.state.transcript import Transcript
from ui.app import AgentCompleter, App


def _complete(workspace, text: str) -> list[str]:
    state = AppState(config=Config(workspace=workspace), transcript=Transcript("s", workspace))
    app = App(state, main.submit, console=Console(file=StringIO()))
    return [c.text for c in AgentCompleter(app).get_completions(Document(text), CompleteEvent())]


def test_commands_complete_with_aliases(workspace):
    assert _complete(workspace, "/sta") == ["/status"]
    assert "/compact" in _complete(workspace, "/co")
    assert {"/exit", "/quit", "/q", "/help", "/undo", "/resume", "/clear"} <= set(_complete(workspace, "/"))


def test_paths_complete_after_at(workspace):
    (workspace / "src").mkdir()
    (workspace / "src" / "main.py").write_text("")
    (workspace / "setup.cfg").write_text("")
    assert _complete(workspace, "look at @s") == ["@setup.cfg", "@src/"]
    assert _complete(workspace, "look at @src/m") == ["@src/main.py"]
    assert _complete(workspace, "no mention here") == []
