"""What an MCP server offers besides tools, as Claude Code uses it: its prompts as slash commands
(`/mcp__<server>__<prompt> args`), its resources as `@<server>:<uri>` mentions and through the
`read_mcp_resource` tool. Both are the server's text: a prompt reaches the model framed as the
server's (not the user's words), a resource as a tool's answer, cut like one (agent.tools.answer_cap).
Both are listed once, when the server has started (agent.tools.mcp_servers).
"""

from __future__ import annotations

import asyncio
import re
import shlex
import uuid
from typing import Any

from agent.events import Notice
from agent.text.i18n import t
from agent.tools.mcp_servers import PREFIX

READ_TOOL = "read_mcp_resource"
LIST_TOOL = "list_mcp_resources"
# "@server:uri", at the start or after whitespace (as @path mentions are found).
_MENTION = re.compile(r"(?:^|(?<=\s))@([A-Za-z0-9_-]+):(\S+)")
_TRAILING = ".,;:!?)]}'\""


def ready(state: Any) -> list[Any]:
    return [s for s in state.mcp.servers.values() if s.state == "ready" and s.session is not None]


# --- prompts ---------------------------------------------------------------------------------


def prompt_commands(state: Any) -> list[tuple[str, Any, Any]]:
    """(command name, server, prompt) for each prompt of a server that is up."""
    return [
        (f"{PREFIX}{server.name}__{prompt.name}", server, prompt)
        for server in ready(state)
        for prompt in server.prompts
    ]


def usage(prompt: Any) -> str:
    """`topic [depth]`: the prompt's arguments, the optional ones in brackets."""
    return " ".join(a.name if a.required else f"[{a.name}]" for a in prompt.arguments or ())


def _arguments(prompt: Any, text: str) -> tuple[dict[str, str], list[str]]:
    """The words typed, given to the prompt's arguments in order (the last takes what is left), and
    the names of the required ones left without a value."""
    try:
        words = shlex.split(text)
    except ValueError:
        words = text.split()
    names = [a.name for a in prompt.arguments or ()]
    if len(words) > len(names) and names:
        words = [*words[: len(names) - 1], " ".join(words[len(names) - 1 :])]
    given = dict(zip(names, words, strict=False))
    missing = [a.name for a in prompt.arguments or () if a.required and a.name not in given]
    return given, missing


async def prompt_text(state: Any, server: Any, prompt: Any, typed: str) -> str | None:
    """The text a prompt command sends: the server's prompt, framed as the server's; None (with a line
    that says why) when an argument is missing or the server gives no prompt."""
    from agent.text.prompts import load_prompt
    from agent.tools.read_cap import read_token_cap

    name = f"{PREFIX}{server.name}__{prompt.name}"
    given, missing = _arguments(prompt, typed)
    if missing:
        state.emit(
            Notice(
                t("mcp_prompt_missing", state.lang, name=name, missing=", ".join(missing), usage=usage(prompt)), "warn"
            )
        )
        return None
    try:
        result = await asyncio.wait_for(server.session.get_prompt(prompt.name, given), _timeout(state))
    except Exception as exc:  # noqa: BLE001 - the server's failure is one line
        state.emit(
            Notice(
                t(
                    "mcp_prompt_failed",
                    state.lang,
                    server=server.name,
                    name=prompt.name,
                    error=str(exc)[:300] or type(exc).__name__,
                ),
                "warn",
            )
        )
        return None
    parts = []
    for message in result.messages:
        text = getattr(message.content, "content", None)
        text = text if isinstance(text, str) else "[a part that is not text was left out]"
        parts.append(text if message.role == "user" else f"[{message.role}]\n{text}")
    body = "\n\n".join(parts)[: read_token_cap(state.config.context_window) * 2]
    state.emit(Notice(t("mcp_prompt_sent", state.lang, name=prompt.name, server=server.name, n=len(body)), "dim"))
    return load_prompt("mcp_prompt", state.lang).format(
        server=server.name, name=prompt.name, command=f"/{name} {typed}".rstrip(), text=body
    )


async def find_prompt(state: Any, name: str) -> tuple[Any, Any] | None:
    """(server, prompt) of the command `name`, once the servers still starting are up (or failed)."""
    from agent.tools.mcp_servers import wait_started

    if any(s.state == "starting" for s in state.mcp.servers.values()):
        await wait_started(state)
    return next(((server, prompt) for command, server, prompt in prompt_commands(state) if command == name), None)


async def run_command(state: Any, name: str, typed: str, submit: Any) -> str | None:
    """-p's `/mcp__server__prompt args`: the prompt as one turn (`submit(text, typed)`), or why not."""
    found = await find_prompt(state, name)
    if found is None:
        return t("print_unknown_command", state.lang, name=name)
    text = await prompt_text(state, *found, typed)
    if text is None:
        return t("mcp_prompt_not_sent", state.lang, name=name)
    await submit(text, typed)
    return None


def _timeout(state: Any) -> float:
    from agent.tools.mcp_servers import timeouts

    return timeouts(state).tool


# --- resources -------------------------------------------------------------------------------


def resource_mentions(text: str, names: set[str]) -> list[tuple[str, str]]:
    """(server, uri) of each `@server:uri` in `text` whose server is configured, in order, once each."""
    found = ((m.group(1), m.group(2).rstrip(_TRAILING)) for m in _MENTION.finditer(text))
    return list(dict.fromkeys((s, uri) for s, uri in found if s in names and uri))


async def read(state: Any, server_name: str, uri: str) -> str:
    """A resource's text for the model, cut like an MCP answer; "Error: ..." when it cannot be read."""
    from agent.tools.permissions import decide

    kind, rule = decide(state.permissions, f"{PREFIX}{server_name}__{READ_TOOL}", state.workspace)
    if kind == "deny" and rule is not None:
        return f"Error: the permission rule {rule.text!r} (deny) refuses reading {server_name}'s resources"
    server = state.mcp.servers.get(server_name)
    if server is None or server.state != "ready" or server.session is None:
        why = "no MCP server has this name" if server is None else f"it is not running ({server.state})"
        return f"Error: cannot read {server_name}:{uri}: {why}"
    try:
        contents = await asyncio.wait_for(server.session.read_resource(uri), _timeout(state))
    except Exception as exc:  # noqa: BLE001 - the server's failure is the answer
        return f"Error: {server_name} could not read {uri}: {str(exc)[:300] or type(exc).__name__}"
    texts = []
    for item in contents if isinstance(contents, list) else [contents]:
        if isinstance(item, str):
            texts.append(item)
        else:
            texts.append(
                f"[{getattr(item, 'media_type', 'binary')} content, {len(getattr(item, 'data', b''))} bytes, not shown]"
            )
    return await asyncio.to_thread(_capped, state, server_name, "\n".join(texts))


def _capped(state: Any, server_name: str, text: str) -> str:
    import mcp_types

    from agent.tools.answer_cap import cap_result, saved_path
    from agent.tools.read_cap import read_token_cap

    path = saved_path(state.workspace, state.session_id, f"{server_name}-resource-{uuid.uuid4().hex[:12]}")
    result = mcp_types.CallToolResult(content=[mcp_types.TextContent(type="text", text=text)])
    return cap_result(result, read_token_cap(state.config.context_window), path).content[0].text


async def mention_messages(state: Any, text: str) -> tuple[list[Any], list[str]]:
    """A read_mcp_resource call and its answer for each `@server:uri` (marked as an @-mention's read),
    and a line for each one that could not be read."""
    from pydantic_ai.messages import ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart

    from agent.marks import MENTION_KEY

    calls, answers, notices = [], [], []
    for server, uri in resource_mentions(text, set(state.mcp.servers)):
        answer = await read(state, server, uri)
        if answer.startswith("Error: "):
            notices.append(t("mcp_resource_failed", state.lang, what=f"@{server}:{uri}", error=answer[7:]))
            continue
        call_id = f"call_{uuid.uuid4().hex[:24]}"
        calls.append(ToolCallPart(READ_TOOL, {"server": server, "uri": uri}, tool_call_id=call_id))
        answers.append(ToolReturnPart(READ_TOOL, answer, tool_call_id=call_id))
    if not calls:
        return [], notices
    mark = {MENTION_KEY: True}
    return [ModelResponse(parts=calls, metadata=mark), ModelRequest(parts=answers, metadata=mark)], notices


def completions(state: Any, typed: str) -> list[tuple[str, str]]:
    """("@server:uri", its name) for each resource of a server that is up whose mention starts with `typed`."""
    return [
        (f"@{server.name}:{r.uri}", r.name or "")
        for server in ready(state)
        for r in server.resources
        if f"@{server.name}:{r.uri}".startswith(typed)
    ]


def toolsets(state: Any) -> list[Any]:
    """The tools that list and read MCP resources, while a server that is up has resources."""
    if not any(server.resources for server in ready(state)):
        return []
    if state.mcp.resource_tools is None:
        state.mcp.resource_tools = _tools(state)
    return [state.mcp.resource_tools]


def _tools(state: Any) -> Any:
    from pydantic_ai.toolsets import FunctionToolset

    toolset: FunctionToolset[Any] = FunctionToolset()

    @toolset.tool_plain(name=LIST_TOOL)
    async def list_mcp_resources(server: str = "") -> str:
        """The resources of the MCP servers that are up (of one, if `server` names it): uri, name, description."""
        lines = [
            f"{s.name}  {r.uri}  {r.name or ''}  {(r.description or '')[:200]}".rstrip()
            for s in ready(state)
            if server in ("", s.name)
            for r in s.resources
        ]
        return "\n".join(lines) or "No MCP server that is up lists resources"

    @toolset.tool_plain(name=READ_TOOL)
    async def read_mcp_resource(server: str, uri: str) -> str:
        """Read a resource of an MCP server by its URI (list_mcp_resources lists them). The text is the server's."""
        return await read(state, server, uri)

    return toolset
