"""-p mode's run: the project's set-up, a custom command or the prompt as one turn, or (with
`--input-format stream-json`) one turn per user message on stdin until it ends, as Claude Code's
long-lived -p process takes them. main.py gives the turn (`on_submit`) and the view."""

from __future__ import annotations

import asyncio
import json
import sys
import threading
from collections.abc import Awaitable, Callable
from typing import Any

from agent.events import Notice
from agent.state.app import AppState
from agent.text.i18n import t
from ui.print_json import JsonRenderer, StreamJsonRenderer
from ui.print_view import PrintRenderer, exit_code

OnSubmit = Callable[..., Awaitable[Any]]  # main.on_submit(state, text, typed=None)


async def run(state: AppState, view: PrintRenderer, prompt: str | None, input_format: str, on_submit: OnSubmit) -> int:
    """The exit status: 0 done, 1 failed, 2 refused before any request, 3 something declined."""
    import lifecycle
    from agent.tools import mcp_servers
    from agent.turn.admission import check_message
    from agent.turn.loop import instructions

    instructions(state)  # the prefix the check counts (the REPL's warm-up renders it before any input)
    if prompt is not None and (found := check_message(state, prompt)) is not None:
        print(found + " " + t("too_large_print", state.lang), file=sys.stderr)
        return 2
    await lifecycle.start_project(state)
    if not state.config.api_key and not state.config.base_url:  # the project's baseUrl was not approved
        print(t("no_api_key", state.lang), file=sys.stderr)
        return 2
    mcp_servers.start(state, state.project.trusted)
    try:
        if isinstance(view, StreamJsonRenderer):  # what this run has, before anything else
            await mcp_servers.wait_started(state)
            view.init_line()
        if prompt is None:
            return await _stream_input(state, view, on_submit)
        if (refused := await run_prompt(state, prompt, on_submit)) is not None:
            print(refused, file=sys.stderr)
            return 2
        return view.finish()
    finally:
        await mcp_servers.stop_all(state)


async def run_prompt(state: AppState, prompt: str, on_submit: OnSubmit) -> str | None:
    """One turn, or a custom command's (expanded as in the REPL); the reason when it is refused
    before any request (a built-in or unknown /command)."""
    from agent.provider import command_files
    from agent.tools import mcp_offers
    from agent.tools.mcp_servers import PREFIX
    from agent.turn import custom_commands
    from ui.commands import COMMANDS, slash_command

    def known(name: str) -> bool:
        return name in COMMANDS or name.startswith(PREFIX) or command_files.find(state.workspace, name) is not None

    found = slash_command(prompt, known)
    if found is None:
        await on_submit(state, prompt)
        return None
    name, arguments = found
    if name in COMMANDS:  # a built-in name wins over a file's, as in the REPL
        return t("print_builtin_command", state.lang, name=name)
    command = command_files.find(state.workspace, name)
    if command is None and name.startswith(PREFIX):  # an MCP server's prompt
        return await mcp_offers.run_command(state, name, arguments, lambda text, typed: on_submit(state, text, typed))
    if command is None:
        return t("print_unknown_command", state.lang, name=name)
    await custom_commands.run(state, command, arguments, lambda text, typed: on_submit(state, text, typed))
    return None


def user_text(line: str) -> str:
    """The text of one stream-json input line: `{"type": "user", "message": {"role": "user", "content":
    "..." or [{"type": "text", "text": "..."}]}}`; ValueError for anything else."""
    data = json.loads(line)
    message = data.get("message") if isinstance(data, dict) and data.get("type") == "user" else None
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [block.get("text") for block in content if isinstance(block, dict) and block.get("type") == "text"]
        if texts and all(isinstance(text, str) for text in texts) and len(texts) == len(content):
            return "\n\n".join(texts)
    raise ValueError('expected {"type": "user", "message": {"role": "user", "content": text or text blocks}}')


def _read_lines(loop: asyncio.AbstractEventLoop, queue: asyncio.Queue[str | None]) -> None:
    """stdin's lines into `queue`, then None; in a daemon thread, which a blocked read never keeps
    alive once the turns are over (Ctrl-C, an error)."""
    for line in sys.stdin:
        loop.call_soon_threadsafe(queue.put_nowait, line)
    loop.call_soon_threadsafe(queue.put_nowait, None)


async def _stream_input(state: AppState, view: PrintRenderer, on_submit: OnSubmit) -> int:
    """A turn per user message until stdin ends; each turn ends with its result line."""
    queue: asyncio.Queue[str | None] = asyncio.Queue()
    threading.Thread(target=_read_lines, args=(asyncio.get_running_loop(), queue), daemon=True).start()
    number = 0
    while (line := await queue.get()) is not None:
        number += 1
        if not line.strip():
            continue
        try:
            text = user_text(line)
        except ValueError as exc:
            state.emit(Notice(t("print_input_bad_line", state.lang, n=number, error=exc), "warn"))
            continue
        if (refused := await run_prompt(state, text, on_submit)) is not None:
            state.emit(Notice(refused, "error"))
        if isinstance(view, JsonRenderer):
            view.turn_done()
    return exit_code(view)


def read_prompt(prompt: str, stdin, lang: str) -> str:
    """`-p -`: the message is stdin. `-p TEXT` with stdin piped (`git diff | coding-agent -p "review
    this"`): what came in is added below the text. A terminal's stdin is never read."""
    if prompt != "-" and stdin.isatty():
        return prompt
    data = stdin.buffer.read().decode("utf-8", errors="replace") if hasattr(stdin, "buffer") else stdin.read()
    if prompt == "-":
        if not data.strip():
            raise ValueError(t("stdin_empty", lang))
        return data
    return f"{prompt}\n\n<stdin>\n{data.rstrip()}\n</stdin>" if data.strip() else prompt


def check_stream_input(args: Any, lang: str) -> None:
    """--input-format stream-json: user messages on stdin, answered as stream-json, with no prompt of its own."""
    from cli import PRINT_WITHOUT_TEXT

    if args.prompt != PRINT_WITHOUT_TEXT or args.output_format != "stream-json":
        raise ValueError(t("print_input_needs_stream", lang))
