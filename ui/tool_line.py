"""A tool call's one line: its name and the argument that best names what it does (the approval
question shows a command whole; this line only names it)."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from agent.text.visible import plain

# The argument that best names what a tool call does, shown on its one line.
MAIN_ARG = {
    "read_file": "path",
    "write_file": "path",
    "edit_file": "path",
    "list_files": "pattern",
    "grep": "pattern",
    "run_command": "command",
}
ARG_MAX = 100


def tool_line(name: str, args: dict[str, Any], indent: str = "") -> Text:
    key = MAIN_ARG.get(name)
    arg = plain(str(args.get(key, ""))).replace("\n", "↵") if key else ""
    if len(arg) > ARG_MAX:
        arg = arg[: ARG_MAX - 3] + "..."
    line = Text(indent + "⏺ ", style="cyan")
    line.append(plain(name), style="bold")
    if arg:
        line.append(f" {arg}")
    return line
