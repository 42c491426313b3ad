"""What the emulator refuses, per kind of server: DeepSeek's API of today, Ollama, vLLM.

DeepSeek (api-docs.deepseek.com, autumn 2026): the retired names answer 400; the legacy V4 Flash names
are answered by the model that serves them (the response's `model`); max_tokens above the
384K ceiling answers 400; in thinking mode (the V4 default) a tool_choice other than "auto"
answers 400, and so does a tool-call turn sent back without its reasoning_content. Image parts are
refused by a model without vision (VISION_MODELS), as DeepSeek's text models refuse the variant.
Ollama ignores tool_choice, reports no usage and silently drops the oldest messages past its
context size (num_ctx). vLLM refuses tool_choice "auto" (the default when tools are sent) unless
it was started with --enable-auto-tool-choice --tool-call-parser.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from typing import Any

from tests.deepseek_template import Counter, counter, render, thinking_mode
from tests.fake_replies import CutStream, Reply, Slow, Text, ToolCalls

RETIRED = {"deepseek-chat": "2026-07-24", "deepseek-reasoner": "2026-07-24"}
# Still accepted, served by V4.1 Flash (the page of 2026-12-01).
SERVED_BY = {"deepseek-v4-flash": "deepseek-flash", "deepseek-v4-flash-vision-exp": "deepseek-flash"}
# Models that take image parts; any other refuses them as DeepSeek's text models do (an unknown variant).
VISION_MODELS = frozenset({"deepseek-flash", *SERVED_BY})  # legacy names are served by Flash
# The server's own count of an image's tokens: a stand-in for a provider's, and not the agent's rule
# (agent.tools.images estimates from the pixels; this counts every image the same).
IMAGE_TOKENS = 1_024
_DATA_URL = re.compile(r"data:image/(png|jpeg|gif|webp);base64,([A-Za-z0-9+/]+=*)\Z")
MAX_OUTPUT = 393_216
FLAVORS = ("deepseek", "ollama", "vllm")

Refusal = tuple[int, str]
# What a thinking-mode answer reasons when its script gives no reasoning: the real API always reasons.
DEFAULT_REASONING = "Let me work out what is being asked."


def deepseek_refusal(body: dict[str, Any]) -> Refusal | None:
    model = body.get("model")
    if model in RETIRED:
        return 400, (
            f"Model Not Exist: the model `{model}` was retired on {RETIRED[model]}. "
            "Please use `deepseek-flash` or `deepseek-v4-pro`."
        )
    max_tokens = body.get("max_tokens")
    if isinstance(max_tokens, int) and not 1 <= max_tokens <= MAX_OUTPUT:
        return 400, f"Invalid max_tokens value, the valid range of max_tokens is [1, {MAX_OUTPUT}]"
    pairing = _tool_pairing(body.get("messages") or [])
    if pairing is not None:
        return pairing
    if not thinking_mode(body):
        return None
    choice = body.get("tool_choice")
    if choice is not None and choice != "auto":
        return 400, "Thinking mode does not support this tool_choice"
    for message in body.get("messages") or []:
        if (
            message.get("role") == "assistant"
            and message.get("tool_calls")
            and message.get("reasoning_content") is None
        ):
            return 400, "The `reasoning_content` in the thinking mode must be passed back to the API."
    return None


def _tool_pairing(messages: list[dict[str, Any]]) -> Refusal | None:
    """Every tool call answered by the tool messages right after its turn, and every tool message an
    answer to one: the API refuses a history a cut or a clearing left broken."""
    pending: set[Any] = set()
    for message in messages:
        if message.get("role") == "tool":
            if message.get("tool_call_id") not in pending:
                return 400, "Messages with role 'tool' must be a response to a preceding message with 'tool_calls'"
            pending.discard(message.get("tool_call_id"))
            continue
        if pending:
            break
        if message.get("role") == "assistant":
            pending = {call.get("id") for call in message.get("tool_calls") or []}
    if pending:
        return 400, (
            "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
            "'tool_call_id'. (insufficient tool messages following tool_calls message)"
        )
    return None


def _image_parts(body: dict[str, Any]):
    for index, message in enumerate(body.get("messages") or []):
        content = message.get("content")
        for part in content if isinstance(content, list) else []:
            if isinstance(part, dict) and part.get("type") == "image_url":
                yield index, message, part


def image_refusal(body: dict[str, Any], vision_models: frozenset[str]) -> Refusal | None:
    """Image parts: refused by a model without vision, in a message other than the user's, or when the
    data URL is not a base64 PNG/JPEG/GIF/WebP."""
    for index, message, part in _image_parts(body):
        if body.get("model") not in vision_models:
            return 400, (
                f"Failed to deserialize the JSON body into the target type: messages[{index}]: "
                "unknown variant `image_url`, expected `text`"
            )
        if message.get("role") != "user":
            return 400, f"messages[{index}]: image content is only allowed in user messages"
        url = str((part.get("image_url") or {}).get("url", ""))
        match = _DATA_URL.match(url)
        try:
            if match is None or not base64.b64decode(match.group(2), validate=True):
                raise ValueError(url[:40])
        except (binascii.Error, ValueError):
            return 400, f"messages[{index}]: invalid image: expected a base64 data URL of a PNG, JPEG, GIF or WebP"
    return None


def image_ids(body: dict[str, Any]) -> list[int]:
    """IMAGE_TOKENS ids per image, the same for the same image (the prefix cache sees it again)."""
    ids: list[int] = []
    for _index, _message, part in _image_parts(body):
        digest = hashlib.sha256(str((part.get("image_url") or {}).get("url", "")).encode()).digest()
        ids += [int.from_bytes(digest[:4], "big") % 100_000 + n for n in range(IMAGE_TOKENS)]
    return ids


def vllm_refusal(body: dict[str, Any], auto_tool_choice: bool) -> Refusal | None:
    if body.get("tools") and body.get("tool_choice", "auto") == "auto" and not auto_tool_choice:
        return 400, '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set'
    return None


def ollama_truncate(body: dict[str, Any], counter: Counter, context_size: int) -> dict[str, Any]:
    """The body Ollama actually runs: oldest non-system messages dropped until the prompt fits."""
    messages = list(body.get("messages") or [])
    system = [m for m in messages if m.get("role") == "system"]
    rest = [m for m in messages if m.get("role") != "system"]
    while len(rest) > 1 and counter.count(render({**body, "messages": system + rest})) > context_size:
        rest.pop(0)
        while len(rest) > 1 and rest[0].get("role") == "tool":
            rest.pop(0)  # a result without its call would not make sense to the model either
    return {**body, "messages": system + rest}


def content_of(reply: Reply) -> str | None:
    if isinstance(reply, Text | Slow | CutStream):
        return reply.content
    if isinstance(reply, ToolCalls):
        return reply.content or None
    return None


def calls_of(reply: ToolCalls) -> list[tuple[str, str]]:
    """(name, arguments JSON) of each call, raw strings passed through as scripted."""
    return [
        (name, args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)) for name, args in reply.calls
    ]


class ServerKind:
    """What differs between DeepSeek, Ollama and vLLM (mixed into tests.fake_openai.FakeOpenAI)."""

    flavor: str
    vision_models: frozenset[str]
    context_size: int | None
    auto_tool_choice: bool
    reject_tool_choice_none: bool

    def refusal(self, body: dict[str, Any]) -> tuple[int, str] | None:
        if self.reject_tool_choice_none and body.get("tool_choice") == "none":
            return 400, "tool_choice `none` is not supported by this model"
        if (refused := image_refusal(body, self.vision_models)) is not None:
            return refused
        if self.flavor == "deepseek":
            return deepseek_refusal(body)
        if self.flavor == "vllm":
            return vllm_refusal(body, self.auto_tool_choice)
        return None

    def ollama_view(self, body: dict[str, Any]) -> dict[str, Any]:
        """Ollama ignores tool_choice (the model may call a tool anyway) and truncates silently."""
        body = {k: v for k, v in body.items() if k != "tool_choice"}
        if self.context_size is not None:
            body = ollama_truncate(body, counter(), self.context_size)
        return body

    def reasoning_of(self, body: dict[str, Any], reply: Reply) -> str:
        """DeepSeek reasons in thinking mode only, always; the local servers as scripted."""
        scripted = getattr(reply, "reasoning", None) or ""
        if self.flavor != "deepseek":
            return scripted
        if not thinking_mode(body):
            return ""
        return scripted or (DEFAULT_REASONING if isinstance(reply, Text | ToolCalls) else "")

    def usage(self, prompt: int, hit: int, reply: Reply, reasoning: str) -> dict[str, Any] | None:
        if self.flavor == "ollama":
            return None
        count = counter().count
        thought = count(reasoning)
        completion = thought + count(content_of(reply) or "")
        if isinstance(reply, ToolCalls):
            completion += sum(count(name) + count(args) for name, args in calls_of(reply))
        usage: dict[str, Any] = {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": hit},
            "completion_tokens_details": {"reasoning_tokens": thought},
        }
        if self.flavor == "deepseek":
            usage.update(prompt_cache_hit_tokens=hit, prompt_cache_miss_tokens=prompt - hit)
        return usage
