"""How a chat request becomes tokens: DeepSeek's chat template as a list of pieces to count.

The layout follows DeepSeek's published description of its chat template (written by us from it: no
installable package carries DeepSeek's encoding): marker tokens around each message, texts encoded on
their own between them, tool calls written as DSML (V3.2/V4: one tagged parameter per argument,
which costs about twice the tokens of the JSON arguments). A pydantic-ai message is first turned
into the chat-completions messages OpenAIChatModel sends (`openai_messages`). No tokenizer here:
agent.tokens.count counts the pieces.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic_ai import Tool
    from pydantic_ai.messages import ModelMessage

# Marker token ids of DeepSeek's vocabulary (tokenizer.json "added_tokens").
BOS, EOS = 0, 1
USER, ASSISTANT = 128803, 128804
TOOL_SEP = 128814
THINK, THINK_END = 128821, 128822
DSML = 128825
SYS_BEGIN, SYS_END = 128826, 128827

# A rendered request is a list of pieces: a text to encode, or one marker token id.
Piece = str | int
# One token of an image, as a piece (an image is counted as its estimate of these).
IMAGE = -1


# ---- The rendering rule (the emulator has its own, tests/deepseek_template.py) ----


def content_texts(content: Any) -> list[str]:
    """Texts of an OpenAI message `content`: a string, or a list of parts of which text ones count."""
    if content is None:
        return []
    if isinstance(content, str):
        return [content] if content else []
    texts = []
    for part in content:
        if isinstance(part, Mapping) and part.get("type") == "text" and part.get("text"):
            texts.append(part["text"])
    return texts


def render_message(msg: Mapping[str, Any]) -> list[Piece]:
    """One OpenAI chat message as the model reads it. The tool_call_id and names of tool messages
    are not shown to the model, as in DeepSeek's template."""
    role = msg.get("role")
    texts = content_texts(msg.get("content"))
    if role in ("system", "developer"):
        return [SYS_BEGIN, *texts, SYS_END]
    if role == "tool":
        return ["<tool_result>", *texts, "</tool_result>"]
    if role == "assistant":
        pieces: list[Piece] = [ASSISTANT]
        reasoning = msg.get("reasoning_content")
        if reasoning:
            pieces += [THINK, reasoning, THINK_END]
        pieces += texts
        calls = msg.get("tool_calls") or []
        if calls:
            pieces += _dsml_calls(calls)
        pieces.append(EOS)
        return pieces
    return [USER, *texts, *[IMAGE] * _image_tokens(msg.get("content"))]


def _image_tokens(content: Any) -> int:
    """The estimated tokens of the images in a `content` list (agent.tools.images says how it estimates)."""
    if not isinstance(content, list):
        return 0
    from agent.tokens.image_tokens import data_url_tokens

    total = 0
    for part in content:
        if isinstance(part, Mapping) and part.get("type") == "image_url":
            total += part.get("tokens") or data_url_tokens(str((part.get("image_url") or {}).get("url", "")))
    return total


def _dsml_calls(calls: Sequence[Mapping[str, Any]]) -> list[Piece]:
    """The calls as DeepSeek's DSML: a `tool_calls` block of `invoke`s, one tagged `parameter` per
    argument (strings as they are, the rest as JSON); the texts between the DSML markers are the
    pieces, as the tokenizer splits them."""
    invokes = []
    for call in calls:
        fn = call.get("function") or {}
        raw = fn.get("arguments") or "{}"
        try:
            args = json.loads(raw) if isinstance(raw, str) else raw
        except ValueError:
            args = None
        if not isinstance(args, dict):
            args = {"arguments": raw}
        params = [
            f'<\0parameter name="{key}" string="{"true" if isinstance(v, str) else "false"}">'
            f"{v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)}</\0parameter>"
            for key, v in args.items()
        ]
        invokes.append(f'<\0invoke name="{fn.get("name") or ""}">\n' + "\n".join(params) + "\n</\0invoke>")
    text = "\n\n<\0tool_calls>\n" + "\n".join(invokes) + "\n</\0tool_calls>"
    pieces: list[Piece] = []
    for i, segment in enumerate(text.split("\0")):
        if i:
            pieces.append(DSML)
        if segment:
            pieces.append(segment)
    return pieces


def tool_json(tool: Any) -> str:
    """A tool definition as the model reads it: its name, description and parameter schema as JSON.

    Takes an OpenAI tool dict ({"type": "function", "function": {...}}), a bare function dict,
    or a pydantic-ai ToolDefinition."""
    if isinstance(tool, Mapping):
        fn = tool.get("function", tool)
        name, desc = fn.get("name", ""), fn.get("description") or ""
        params = fn.get("parameters", fn.get("parameters_json_schema", {}))
    else:
        name, desc = tool.name, tool.description or ""
        params = tool.parameters_json_schema
    return json.dumps({"name": name, "description": desc, "parameters": params}, ensure_ascii=False)


def render_tools(tools: Iterable[Any]) -> list[Piece]:
    pieces: list[Piece] = []
    for tool in tools:
        pieces += [TOOL_SEP, tool_json(tool)]
    return pieces


def render_request(messages: Sequence[Mapping[str, Any]], tools: Iterable[Any] = ()) -> list[Piece]:
    """A whole request: BOS, the leading system messages, the tools, the rest, and the
    assistant marker the answer follows."""
    lead = 0
    while lead < len(messages) and messages[lead].get("role") in ("system", "developer"):
        lead += 1
    pieces: list[Piece] = [BOS]
    for msg in messages[:lead]:
        pieces += render_message(msg)
    pieces += render_tools(tools)
    for msg in messages[lead:]:
        pieces += render_message(msg)
    pieces.append(ASSISTANT)
    return pieces


# ---- pydantic-ai messages ----


def _tool_return(part: Any) -> tuple[str, list[Any]]:
    # What OpenAIChatModel sends: strings as is, other values as JSON, errors wrapped in {"error": ...};
    # an image in a result goes in a user message after the results, the result naming it.
    if hasattr(part, "model_response_str_and_user_content"):
        return part.model_response_str_and_user_content()
    return part.model_response_str(), []


def _user_content(content: Any) -> str | list[dict[str, str]]:
    if isinstance(content, str):
        return content
    items = []
    for item in content:
        text = item if isinstance(item, str) else getattr(item, "content", None)
        if isinstance(text, str):
            items.append({"type": "text", "text": text})
        else:
            from agent.tokens.image_tokens import content_tokens

            if (n := content_tokens(item)) is not None:  # other files are not counted
                items.append({"type": "image_url", "tokens": n})
    return items


def _request_messages(msg: Any) -> list[dict[str, Any]]:
    from pydantic_ai import messages as m

    out: list[dict[str, Any]] = []
    files: list[Any] = []
    for part in msg.parts:
        if isinstance(part, m.SystemPromptPart):
            out.append({"role": "system", "content": part.content})
        elif isinstance(part, m.UserPromptPart):
            out.append({"role": "user", "content": _user_content(part.content)})
        elif isinstance(part, m.BaseToolReturnPart):
            text, attached = _tool_return(part)
            out.append({"role": "tool", "content": text})
            files += attached
        elif isinstance(part, m.RetryPromptPart | m.RetryFeedbackPart):
            # A retry goes out as a tool result when it answers a call, else as user text.
            role = "tool" if getattr(part, "tool_name", None) else "user"
            out.append({"role": role, "content": part.model_response()})
        elif isinstance(part, m.CompactionPart) and isinstance(part.content, str):
            out.append({"role": "user", "content": part.content})
        # Other parts (instruction and settings deltas) are not sent as text.
    if files:
        out.append({"role": "user", "content": _user_content(files)})
    return out


def _response_message(msg: Any) -> dict[str, Any] | None:
    from pydantic_ai import messages as m

    texts: list[str] = []
    thinking: list[str] = []
    calls: list[dict[str, Any]] = []
    for part in msg.parts:
        if isinstance(part, m.TextPart):
            texts.append(part.content)
        elif isinstance(part, m.ThinkingPart):
            thinking.append(part.content)
        elif isinstance(part, m.ToolCallPart):
            calls.append({"function": {"name": part.tool_name, "arguments": part.args_as_json_str()}})
    if not texts and not calls:
        return None  # pydantic-ai drops such a response (e.g. thinking only) from the request
    out: dict[str, Any] = {"role": "assistant", "content": "\n\n".join(texts) if texts else None}
    if thinking:
        out["reasoning_content"] = "\n\n".join(thinking)
    if calls:
        out["tool_calls"] = calls
    return out


def openai_messages(msg: ModelMessage) -> list[dict[str, Any]]:
    """The chat-completions messages one pydantic-ai message becomes (text fields only)."""
    if getattr(msg, "kind", None) == "response":
        one = _response_message(msg)
        return [one] if one else []
    return _request_messages(msg)


def tool_definitions(tools: Iterable[Tool[Any]]) -> list[dict]:
    """The tools as OpenAI sends them (the agent's own Tool objects: the definitions pydantic-ai sends)."""
    return [
        {
            "type": "function",
            "function": {
                "name": tool.tool_def.name,
                "description": tool.tool_def.description or "",
                "parameters": tool.tool_def.parameters_json_schema,
            },
        }
        for tool in tools
    ]
