"""A second count of a request, rendered and tokenized by llama.cpp: none of it is our code.

The emulator's count (tests/deepseek_template.py) uses DeepSeek's real tokenizer, but its DSML
rendering is ours, written from DeepSeek's published description like the agent's own rule: the two
can agree by construction. This count cannot: llama-server renders the chat-completions body with
llama.cpp's bundled Qwen2.5 tool template (`POST /apply-template`: the tools as a JSON block in the
system message, `<|im_start|>role` turns, tool calls as JSON in `<tool_call>` tags, results in
`<tool_response>`), and tokenizes that text with SmolLM2's tokenizer (`POST /tokenize`).
bench/token_error.py reports the agent's error against it beside the emulator's.
"""

from __future__ import annotations

import json
import urllib.request
from typing import Any

TIMEOUT = 60.0


def _post(root: str, path: str, payload: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        root + path, data=json.dumps(payload).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
        return json.loads(response.read())


def rendered(root: str, body: dict[str, Any]) -> str:
    """The prompt llama-server's chat template makes of a chat-completions body (messages and tools)."""
    payload: dict[str, Any] = {"messages": body.get("messages") or []}
    if body.get("tools"):
        payload["tools"] = body["tools"]
    return _post(root, "/apply-template", payload)["prompt"]


def token_count(root: str, text: str) -> int:
    """The server's tokens of `text`, its marker tokens (`<|im_start|>`, `<|im_end|>`) one each."""
    return len(_post(root, "/tokenize", {"content": text, "parse_special": True})["tokens"])
