"""An emulator of DeepSeek's chat-completions API (or of Ollama / vLLM) on 127.0.0.1.

Used by the test suite, by pexpect tests and benchmarks (the agent talks HTTP to it), and by a new
user trying the agent without a key:  python -m tests.fake_openai [--port N] [--flavor ollama]

By default it is as strict as DeepSeek's API of today (tests/fake_rules.py): retired model names,
max_tokens over the ceiling, a forced tool_choice in thinking mode and a tool-call turn sent back
without reasoning_content all answer 400. In thinking mode every answer streams reasoning first;
`: keep-alive` comment lines come before and inside the stream; usage, with
prompt_cache_hit_tokens / prompt_cache_miss_tokens, comes on the final chunk. prompt_tokens is its
own count (tests/deepseek_template.py: DeepSeek's tokenizer over a DeepSeek-style rendering that is our
own, written from DeepSeek's description as the agent's was; not agent.tokens.count),
with DeepSeek's prefix cache simulated in 64-token blocks, least recently used evicted
(tests/prefix_cache.py). `skew=Skew()` (--skew) counts off DeepSeek's tokenizer by kind of text, the
window check ("maximum context length", 400) included. Every request is recorded in `requests`
(body, the emulator's count, cache hits, the refusal); `observe(fn)` sees each one as it is settled.

`flavor="ollama"`: no usage, tool_choice ignored, the oldest messages silently dropped past
`context_size`. `flavor="vllm"`: tool_choice "auto" refused unless `auto_tool_choice=True`.
Replies come from `server.script(...)` in order, else from `smart_reply`.
"""

from __future__ import annotations

import itertools
import json
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests import fake_rules
from tests.deepseek_template import Skew, counter, render
from tests.fake_replies import (  # noqa: F401 - the reply kinds are re-exported for the tests
    _ERROR_TYPES,
    CutStream,
    Empty,
    Error,
    Hang,
    Malformed,
    Reply,
    ReplyLike,
    Slow,
    Text,
    ToolCalls,
    smart_reply,
    split_text,
)
from tests.fake_rules import calls_of as _calls
from tests.fake_rules import content_of as _content
from tests.prefix_cache import DEFAULT_CAPACITY, PrefixCache

KEEP_ALIVE = b": keep-alive\n\n"


# ---- The server ----


class FakeOpenAI(fake_rules.ServerKind):
    # A server that counts more than the agent (another tokenizer or template): prompt_tokens, and
    # the max_context check, are its own count times this (a test sets it).
    count_scale = 1.0

    def __init__(
        self,
        latency: float = 0.0,
        *,
        port: int = 0,
        max_context: int | None = None,
        reject_tool_choice_none: bool = False,
        api_key: str | None = None,
        model: str = "deepseek-flash",
        flavor: str = "deepseek",
        context_size: int | None = None,
        auto_tool_choice: bool = False,
        skew: Skew | None = None,
        cache_tokens: int | None = DEFAULT_CAPACITY,
        vision_models: frozenset[str] = fake_rules.VISION_MODELS,
    ) -> None:
        assert flavor in fake_rules.FLAVORS, flavor
        self.flavor = flavor
        self.context_size = context_size  # Ollama's num_ctx: past it, messages are silently dropped
        self.auto_tool_choice = auto_tool_choice  # vLLM's --enable-auto-tool-choice
        self.vision_models = vision_models  # the models that take image parts (fake_rules.image_refusal)
        self.latency = latency
        self.port = port
        self.max_context = max_context
        self.reject_tool_choice_none = reject_tool_choice_none
        self.api_key = api_key
        self.model = model
        self.skew = skew
        self.cache = PrefixCache(cache_tokens)
        # The server's clock for `created` (a test sets it to bill a request at a chosen hour).
        self.clock: Callable[[], float] = time.time
        self.requests: list[dict[str, Any]] = []
        self.keep_bodies = True  # False: records keep the counts only (a long fuzzed session's memory)
        self.observers: list[Callable[[dict[str, Any], dict[str, Any]], None]] = []
        self._queue: deque[ReplyLike] = deque()
        self._lock = threading.Lock()
        self._counter = itertools.count(1)
        self._stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle --

    def start(self) -> FakeOpenAI:
        handler = type("Handler", (_Handler,), {"fake": self})
        self._stopping.clear()
        self._httpd = _Server(("127.0.0.1", self.port), handler)
        self.port = self._httpd.server_address[1]
        # A short poll interval keeps stop() fast; tests start and stop many servers.
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="fake-openai", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # wakes hanging handlers
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    # -- scripting and inspection --

    def script(self, *replies: ReplyLike) -> None:
        with self._lock:
            self._queue.extend(replies)

    def _hold(self, hang: Hang) -> None:
        deadline = time.monotonic() + hang.seconds
        while not self._stopping.is_set() and (left := deadline - time.monotonic()) > 0:
            if hang.release is None:
                self._stopping.wait(left)
            elif hang.release.wait(min(left, 0.05)):
                return

    def clear_script(self) -> None:
        """Forget the replies scripted and not used yet."""
        with self._lock:
            self._queue.clear()

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._queue)

    @property
    def last_request(self) -> dict[str, Any]:
        with self._lock:
            return self.requests[-1]

    def _next_reply(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            reply = self._queue.popleft() if self._queue else None
        if callable(reply) and not isinstance(reply, type):
            reply = reply(body)
        return reply if reply is not None else smart_reply(body)

    # -- token accounting --

    def prompt_ids(self, body: dict[str, Any]) -> list[int]:
        """The request's tokens by the server's own rendering (ours, DeepSeek-style; DeepSeek's
        tokenizer), skewed if asked, images counted the server's way."""
        return counter().ids(render(body), self.skew) + fake_rules.image_ids(body)

    def _cache_hits(self, ids: list[int], model: str = "") -> int:
        """Tokens in whole 64-token blocks shared with an earlier request's prefix, to the same model."""
        return self.cache.hits(ids, model)

    def observe(self, fn: Callable[[dict[str, Any], dict[str, Any]], None]) -> None:
        """Call `fn(record, body)` on every request once it is counted and refused or accepted,
        before the answer goes out (on the server's thread)."""
        self.observers.append(fn)

    def _settled(self, record: dict[str, Any], body: dict[str, Any], status: int = 200, error: str = "") -> None:
        record.update(status=status, error=error)
        for fn in self.observers:
            fn(record, body)
        if not self.keep_bodies:
            record.pop("body", None)
            record.pop("raw", None)


class _Server(ThreadingHTTPServer):
    daemon_threads = True  # a hanging or keep-alive connection must not hold up stop()

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that hangs up mid-answer (Ctrl-C, timeouts) is normal here, not worth a traceback.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    fake: FakeOpenAI
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep test output and the agent's terminal clean

    # -- plumbing --

    def _send_json(self, status: int, obj: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(obj).encode() if not isinstance(obj, bytes) else obj
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def _send_error(
        self, status: int, message: str, headers: dict[str, str] | None = None, code: str | None = None
    ) -> None:
        kind = _ERROR_TYPES.get(status, "server_error" if status >= 500 else "invalid_request_error")
        body = {"error": {"message": message, "type": kind, "param": None, "code": code or kind}}
        self._send_json(status, body, headers)

    def _authorized(self) -> bool:
        key = self.fake.api_key
        if key is None or self.headers.get("Authorization") == f"Bearer {key}":
            return True
        self._send_error(401, "Authentication Fails, Your api key is invalid", code="invalid_api_key")
        return False

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):X}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _event(self, obj: Any) -> None:
        self._chunk(b"data: " + (obj if isinstance(obj, bytes) else json.dumps(obj).encode()) + b"\n\n")

    # -- routes --

    def do_GET(self) -> None:
        if self.path.rstrip("/") not in ("/v1/models", "/models"):
            return self._send_error(404, f"no route {self.path}")
        if self._authorized():
            models = [
                {"id": m, "object": "model", "owned_by": "deepseek"} for m in (self.fake.model, "deepseek-v4-pro")
            ]
            self._send_json(200, {"object": "list", "data": models})

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        # DeepSeek serves both; a local server only under /v1.
        routes = (
            ("/v1/chat/completions", "/chat/completions")
            if self.fake.flavor == "deepseek"
            else ("/v1/chat/completions",)
        )
        if self.path.rstrip("/") not in routes:
            return self._send_error(404, f"404 page not found: {self.path}")
        try:
            body = json.loads(raw)
        except ValueError:
            return self._send_error(400, "request body is not valid JSON")
        fake = self.fake
        record: dict[str, Any] = {
            "path": self.path,
            "body": body,
            "raw": raw,
            "headers": {k.lower(): v for k, v in self.headers.items()},
            "prompt_tokens": 0,
            "cache_hit_tokens": 0,
            "completion_tokens": 0,
        }
        with fake._lock:
            fake.requests.append(record)
        if not self._authorized():
            return fake._settled(record, body, 401, "unauthorized")
        refusal = fake.refusal(body)
        if refusal is not None:
            if fake.observers:  # the window is checked on refused requests too
                record["counted"] = len(fake.prompt_ids(body))
            fake._settled(record, body, *refusal)
            return self._send_error(*refusal)
        if fake.flavor == "ollama":
            body = fake.ollama_view(body)
            record["ran"] = body  # what the model saw after the silent truncation
        ids = fake.prompt_ids(body)
        record["prompt_tokens"] = record["counted"] = prompt = int(len(ids) * fake.count_scale)
        if fake.max_context is not None and prompt > fake.max_context:
            message = (
                f"This model's maximum context length is {fake.max_context} tokens. However, you requested "
                f"{prompt} tokens ({prompt} in the messages, 0 in the completion). "
                "Please reduce the length of the messages."
            )
            fake._settled(record, body, 400, message)
            return self._send_error(400, message, code="invalid_request_error")
        record["cache_hit_tokens"] = hit = fake._cache_hits(ids, str(body.get("model", "")))
        fake._settled(record, body)
        reply = fake._next_reply(body)
        if isinstance(reply, Hang):
            fake._hold(reply)
            reply = reply.then or smart_reply(body)
        if fake.latency:
            time.sleep(fake.latency)
        if isinstance(reply, Error):
            return self._send_error(reply.status, reply.message, reply.headers, reply.code)
        reasoning = fake.reasoning_of(body, reply)
        usage = fake.usage(prompt, hit, reply, reasoning)
        # What the provider bills for this request, whether or not the client reads the usage.
        record["completion_tokens"] = (usage or {}).get("completion_tokens", 0)
        record["billed"] = True  # answered: a refused request costs nothing
        if body.get("stream"):
            include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
            # DeepSeek sends usage on the final chunk whatever the options say.
            wanted = fake.flavor == "deepseek" or include_usage
            self._stream(body, reply, usage if wanted else None, reasoning)
        else:
            self._complete(body, reply, usage, reasoning)

    def _base(self, body: dict[str, Any], obj: str) -> dict[str, Any]:
        asked = body.get("model") or self.fake.model
        served = fake_rules.SERVED_BY.get(asked, asked) if self.fake.flavor == "deepseek" else asked
        return {
            "id": f"chatcmpl-{next(self.fake._counter)}",
            "object": obj,
            "created": int(self.fake.clock()),
            "model": served,
            "system_fingerprint": "fp_fake",
        }

    def _complete(self, body: dict[str, Any], reply: Reply, usage: dict[str, Any] | None, reasoning: str) -> None:
        if isinstance(reply, Malformed):
            return self._send_json(200, b'{"id": "chatcmpl-bad", "choices": [')
        if isinstance(reply, Slow):
            time.sleep(reply.delay_per_chunk * reply.chunks)
        message: dict[str, Any] = {"role": "assistant", "content": _content(reply)}
        if reasoning:
            message["reasoning_content"] = reasoning
        finish = getattr(reply, "finish", "stop")
        resp = self._base(body, "chat.completion")
        if isinstance(reply, ToolCalls):
            message["tool_calls"] = [
                {"id": f"call_{resp['id'][9:]}_{i}", "type": "function", "function": {"name": name, "arguments": args}}
                for i, (name, args) in enumerate(_calls(reply))
            ]
            finish = "tool_calls"
        resp["choices"] = [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}]
        if usage is not None:
            resp["usage"] = usage
        self._send_json(200, resp)

    def _stream(self, body: dict[str, Any], reply: Reply, usage: dict[str, Any] | None, reasoning: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        base = self._base(body, "chat.completion.chunk")
        keep_alive = self.fake.flavor == "deepseek"
        if keep_alive:
            self._chunk(KEEP_ALIVE)  # DeepSeek's, while the request waits for inference to start

        def delta(d: dict[str, Any], finish: str | None = None) -> None:
            choice = {"index": 0, "delta": d, "finish_reason": finish, "logprobs": None}
            self._event({**base, "choices": [choice]})

        delta({"role": "assistant", "content": ""})
        if isinstance(reply, Malformed):
            self._event(b'{"id": "chatcmpl-bad", "choices": [{"delta": ')
            self._event(b"[DONE]")
            self._chunk(b"")
            return
        if isinstance(reply, CutStream):
            for piece in split_text(reply.content, reply.after_chunks + 2)[: reply.after_chunks]:
                delta({"content": piece})
            self.close_connection = True  # no terminating chunk: the client sees a broken stream
            return
        if reasoning:
            for piece in split_text(reasoning, 3):
                delta({"reasoning_content": piece})
        if keep_alive:
            self._chunk(KEEP_ALIVE)
        finish = getattr(reply, "finish", "stop")
        if isinstance(reply, Slow):
            for piece in split_text(reply.content, reply.chunks):
                if self.fake._stopping.wait(reply.delay_per_chunk):
                    break
                delta({"content": piece})
        elif isinstance(reply, Text):
            pieces = reply.chunks
            if not isinstance(pieces, list):
                pieces = split_text(reply.content, pieces or 4)
            for piece in pieces:
                delta({"content": piece})
        elif isinstance(reply, ToolCalls):
            if reply.content:
                for piece in split_text(reply.content, 2):
                    delta({"content": piece})
            for i, (name, args) in enumerate(_calls(reply)):
                cid = f"call_{base['id'][9:]}_{i}"
                delta(
                    {
                        "tool_calls": [
                            {"index": i, "id": cid, "type": "function", "function": {"name": name, "arguments": ""}}
                        ]
                    }
                )
                for piece in split_text(args, 3):
                    delta({"tool_calls": [{"index": i, "function": {"arguments": piece}}]})
            finish = "tool_calls"
        delta({}, finish)
        if usage is not None:
            self._event({**base, "choices": [], "usage": usage})
        self._event(b"[DONE]")
        self._chunk(b"")


if __name__ == "__main__":
    from tests.fake_cli import main

    main()
