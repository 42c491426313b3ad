"""The server's own tokenizer, where it has one: llama.cpp and vLLM answer `POST /tokenize`.

Our counts use DeepSeek's tokenizer; a local model's counts differently (SmolLM2 counts line-numbered
code 24-32% higher), and a request the guard thought fitted was refused. So at start the endpoint
is asked once whether it tokenizes; if it does, every text count (agent.tokens.count.count_text) goes to it
and is cached by text. Where it does not, the estimate stays ours and the margin learned from the
server's reported usage covers the skew (agent.compaction.watermark's learned margin on the guard's branch).
"""

from __future__ import annotations

import http.client
import json
import threading
from collections import OrderedDict
from urllib.parse import urlparse

from agent import debuglog
from agent.config import is_local_url
from agent.tokens import count as tokens

# A probe must never hold up the start for long: a server that answers at all answers at once.
PROBE_TIMEOUT = 2.0
# Counting a text is a local call; a server busy with a long prompt still answers it from its HTTP
# thread (llama.cpp tokenizes without a slot), but never wait on it for long: we fall back.
COUNT_TIMEOUT = 10.0
_CACHE_SIZE = 8_192


class ServerTokenizer:
    """Counts texts with the endpoint's `/tokenize` over one kept-alive connection."""

    def __init__(self, base_url: str, model: str) -> None:
        parsed = urlparse(base_url)
        self.host, self.port = parsed.hostname or "127.0.0.1", parsed.port
        self.https = parsed.scheme == "https"
        # llama.cpp and vLLM serve /tokenize beside /v1, not under it.
        self.path = parsed.path.rstrip("/").removesuffix("/v1") + "/tokenize"
        self.model = model
        self._conn: http.client.HTTPConnection | None = None
        self._lock = threading.Lock()
        self._cache: OrderedDict[str, int] = OrderedDict()
        self.calls = 0

    def _connection(self, timeout: float) -> http.client.HTTPConnection:
        if self._conn is None:
            kind = http.client.HTTPSConnection if self.https else http.client.HTTPConnection
            self._conn = kind(self.host, self.port, timeout=timeout)
        return self._conn

    def ask(self, text: str, timeout: float = COUNT_TIMEOUT) -> int | None:
        """The server's count of `text` (no special tokens), or None if it did not say."""
        # llama.cpp reads `content` (special tokens off by default); vLLM reads `prompt` and `model`.
        answer = self._post(
            self.path,
            {"content": text, "prompt": text, "model": self.model, "add_special": False, "add_special_tokens": False},
            timeout,
        )
        return _count_of(answer)

    def prefix(self, instructions: str | None, tool_defs: list) -> int | None:
        """The server's count of a request's fixed part (system message, tools, the markers), through
        llama.cpp's own template (`/apply-template`): its tools come wrapped in instructions of its own
        that our rendering does not have (7% of a fresh request at 4k). None where there is no such
        endpoint (vLLM, Ollama): the first response's count then calibrates it (agent.compaction.context)."""
        messages = [{"role": "system", "content": instructions}] if instructions else []
        rendered = self._post(
            self.path.removesuffix("/tokenize") + "/apply-template",
            {"messages": messages, "tools": tool_defs},
            COUNT_TIMEOUT,
        )
        prompt = rendered.get("prompt") if isinstance(rendered, dict) else None
        if not isinstance(prompt, str):
            return None
        # The template's markers are written as text: `content` is tokenized with them parsed.
        return _count_of(self._post(self.path, {"content": prompt, "add_special": False}, COUNT_TIMEOUT))

    def _post(self, path: str, payload: dict, timeout: float) -> object:
        body = json.dumps(payload)
        with self._lock:
            for attempt in range(2):  # a kept-alive connection the server closed: once more on a new one
                try:
                    conn = self._connection(timeout)
                    conn.request("POST", path, body, {"Content-Type": "application/json"})
                    response = conn.getresponse()
                    data = response.read()
                    break
                except (OSError, http.client.HTTPException):
                    self._close()
                    if attempt:
                        return None
            self.calls += 1
        if response.status != 200:
            return None
        try:
            return json.loads(data)
        except ValueError:
            return None

    def count(self, text: str) -> int | None:
        cached = self._cache.get(text)
        if cached is not None:
            return cached
        n = self.ask(text)
        if n is not None:
            with self._lock:
                self._cache[text] = n
                while len(self._cache) > _CACHE_SIZE:
                    self._cache.popitem(last=False)
        return n

    def _close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


def _count_of(answer: object) -> int | None:
    if not isinstance(answer, dict):
        return None
    if isinstance(answer.get("count"), int):  # vLLM
        return answer["count"]
    ids = answer.get("tokens")
    return len(ids) if isinstance(ids, list) else None


# Probed once per endpoint and process (the answer does not change while the server runs).
_probed: dict[tuple[str, str], ServerTokenizer | None] = {}


def probe(base_url: str | None, model: str) -> ServerTokenizer | None:
    """The endpoint's tokenizer if it answers `/tokenize` sensibly; never asked of DeepSeek or OpenAI."""
    if not is_local_url(base_url):
        return None
    key = (base_url, model)
    if key not in _probed:
        tokenizer = ServerTokenizer(base_url, model)
        n = tokenizer.ask("def probe(x):\n    return x", timeout=PROBE_TIMEOUT)
        _probed[key] = tokenizer if n is not None and n > 0 else None
        debuglog.log("server_tokenize", url=base_url, available=n is not None)
    return _probed[key]


def use(base_url: str | None, model: str) -> bool:
    """Count with the endpoint's tokenizer from now on, if it has one. Returns whether it does."""
    tokenizer = probe(base_url, model)
    tokens.use_counter(
        tokenizer.count if tokenizer is not None else None, tokenizer.prefix if tokenizer is not None else None
    )
    return tokenizer is not None
