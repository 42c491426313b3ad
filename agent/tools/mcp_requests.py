"""What an MCP server asks of the session while it runs, answered through fastmcp's client handlers: its
roots (the workspace), a question for the user (elicitation: asked in the REPL, field by field;
declined where no one can answer, as in -p), the use of the user's model (sampling: declined, politely,
unless the user's own settings allow it with `mcpSampling`) and a tool call's progress (shown on the
spinner's line). Everything a server sends is its own text: the UI escapes it, and it is cut here.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Callable
from typing import Any

from agent.events import Notice, Question, ToolProgress
from agent.text.i18n import t

REASKS = 3  # a field's answer that is not of its kind is asked again this often, then the question is cancelled
MESSAGE_CHARS = 2000  # of a server's question, shown
FIELD_CHARS = 200  # of a field's name or description, shown
SAMPLING_MAX_TOKENS = 4096  # at most, whatever the server asks
SAMPLING_TEXT_CHARS = 200_000  # of the messages a server has the model read

# The tool call running in this task (agent.tools.mcp_calls sets it): where its progress goes.
PROGRESS: contextvars.ContextVar[Callable[..., Any] | None] = contextvars.ContextVar("mcp_progress", default=None)


def progress_handler(emit: Callable[[Any], Any], tool_name: str) -> Callable[..., Any]:
    """A progress handler for one call of `tool_name`: each notification becomes a ToolProgress."""

    async def handle(progress: float, total: float | None, message: str | None) -> None:
        emit(ToolProgress(tool_name, float(progress), float(total) if total else None, (message or "")[:500]))

    return handle


def handlers(state: Any, server: Any) -> dict[str, Any]:
    """The fastmcp Client options that declare and answer roots, elicitation and sampling."""
    return {
        "roots": lambda _context: [state.workspace.as_uri()],
        "elicitation_handler": _elicit(state, server),
        "sampling_handler": _sample(state, server),
    }


# --- elicitation -----------------------------------------------------------------------------


def _elicit(state: Any, server: Any) -> Any:
    async def handle(message: str, _response_type: Any, params: Any, _context: Any) -> Any:
        from fastmcp.client.elicitation import ElicitResult

        schema = getattr(params, "requested_schema", None) or {}
        url = getattr(params, "url", None)  # a question answered on a page of the server's: shown, never opened
        shown = message[:MESSAGE_CHARS] + (f" ({str(url)[:MESSAGE_CHARS]})" if url else "")
        state.emit(Notice(t("mcp_elicit_asks", state.lang, server=server.name, message=shown)))
        try:
            action, content = await _ask_user(state, server, schema)
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise  # the session itself ends, not a question the user left
            action, content = "cancel", None  # Ctrl-C at the question: the server is told so
        key = {"accept": "mcp_elicit_sent", "decline": "mcp_elicit_declined", "cancel": "mcp_elicit_cancelled"}
        if action != "none":
            state.emit(Notice(t(key[action], state.lang, server=server.name), "dim"))
        _resume_spinner(state, server)
        return ElicitResult(action="decline" if action == "none" else action, content=content)

    return handle


async def _ask_user(state: Any, server: Any, schema: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
    """("accept", the answers) / ("decline" | "cancel" | "none", None): "none" when no one can answer."""
    reply = state.emit(Question(t("mcp_elicit_answer", state.lang), yes_no=True))
    if reply is None:
        state.emit(Notice(t("mcp_elicit_no_one", state.lang), "warn"))
        return "none", None
    if (await reply).strip() != "y":
        return "decline", None
    content: dict[str, Any] = {}
    required = set(schema.get("required") or ())
    for name, field in (schema.get("properties") or {}).items():
        value = await _ask_field(state, str(name), field if isinstance(field, dict) else {}, name in required)
        if value is _CANCEL:
            return "cancel", None
        if value is not None:
            content[name] = value
    return "accept", content


_CANCEL = object()


async def _ask_field(state: Any, name: str, field: dict[str, Any], required: bool) -> Any:
    """One field's answer as its kind (None: left empty, and it may be), or _CANCEL."""
    lang = state.lang
    kind = str(field.get("type", "string"))
    options = [str(x) for x in field.get("enum") or ()]
    shown = (
        t("mcp_elicit_kind_enum", lang, options=", ".join(options)[:FIELD_CHARS])
        if options
        else t(f"mcp_elicit_kind_{kind}", lang)
        if kind in ("integer", "number", "boolean")
        else t("mcp_elicit_kind_string", lang)
    )
    label = str(field.get("title") or name)[:FIELD_CHARS]
    if field.get("description"):
        label += f" - {str(field['description'])[:FIELD_CHARS]}"
    question = t(
        "mcp_elicit_field", lang, name=label, kind=shown, required=t("mcp_elicit_required", lang) if required else ""
    )
    for _ in range(REASKS):
        reply = state.emit(Question(question))
        answer = "" if reply is None else (await reply).strip()
        if not answer and not required:
            return field.get("default")
        value = _as_kind(answer, kind, options)
        if value is not None:
            return value
        state.emit(Notice(t("mcp_elicit_bad", lang, answer=answer[:40], kind=shown), "warn"))
    return _CANCEL


def _as_kind(answer: str, kind: str, options: list[str]) -> Any:
    if options:
        return answer if answer in options else None
    try:
        if kind == "integer":
            return int(answer)
        if kind == "number":
            return float(answer)
    except ValueError:
        return None
    if kind == "boolean":
        return {"y": True, "yes": True, "是": True, "n": False, "no": False, "否": False}.get(answer.lower())
    return answer or None


def _resume_spinner(state: Any, server: Any) -> None:
    """After a question, the spinner names the tool that still runs again."""
    if server.running:
        state.emit(ToolProgress(server.running[-1]))


# --- sampling --------------------------------------------------------------------------------


def sampling_allowed(state: Any, server: str) -> bool:
    """The user's own settings say `"mcpSampling": true` or list this server; a project's file never
    counts (it would spend the user's model for its own server)."""
    from agent.provider.settings import is_users

    settings = state.config.settings
    for layer, value in reversed(settings.section("mcpSampling") if settings is not None else ()):
        if is_users(layer):
            return value is True or (isinstance(value, list) and server in value)
    return False


def _sample(state: Any, server: Any) -> Any:
    async def handle(messages: list[Any], params: Any, _context: Any) -> Any:
        if not sampling_allowed(state, server.name):
            state.emit(Notice(t("mcp_sampling_declined", state.lang, server=server.name), "warn"))
            server.log.note("[client] a sampling request was declined (mcpSampling is not set)")
            raise RuntimeError("The user has not allowed MCP servers to use their model here (sampling declined)")
        return await _answer(state, server, messages, params)

    return handle


async def _answer(state: Any, server: Any, messages: list[Any], params: Any) -> Any:
    """The session's model answers the server's messages in a request of their own (not the
    conversation's), billed to the session like any other."""
    from mcp_types import CreateMessageResult, TextContent
    from pydantic_ai.direct import model_request
    from pydantic_ai.messages import ModelRequest, ModelResponse, SystemPromptPart, TextPart, UserPromptPart

    from agent.provider.model import build_model
    from agent.state import billing

    history: list[Any] = []
    budget = SAMPLING_TEXT_CHARS
    for message in messages:
        text = getattr(message.content, "text", None)
        text = (text if isinstance(text, str) else "[not text: left out]")[:budget]
        budget -= len(text)
        history.append(
            ModelResponse(parts=[TextPart(text)])
            if message.role == "assistant"
            else ModelRequest(parts=[UserPromptPart(text)])
        )
    if params.system_prompt and history and isinstance(history[0], ModelRequest):
        history[0] = ModelRequest(parts=[SystemPromptPart(params.system_prompt[:budget]), *history[0].parts])
    limit = min(int(params.max_tokens or SAMPLING_MAX_TOKENS), SAMPLING_MAX_TOKENS)
    response = await model_request(build_model(state.config), history, model_settings={"max_tokens": limit})
    hits = state.stats.add(response.usage)
    billing.bill(state.stats, state.config, response, hits)
    used = response.usage.input_tokens + response.usage.output_tokens
    state.emit(Notice(t("mcp_sampling_used", state.lang, server=server.name, tokens=used), "dim"))
    text = "".join(part.content for part in response.parts if isinstance(part, TextPart))
    return CreateMessageResult(
        role="assistant",
        model=response.model_name or state.config.model,
        content=TextContent(type="text", text=text),
        stop_reason="endTurn",
    )
