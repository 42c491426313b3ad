"""The scripted model of a fuzzed session: each input's replies in order (tool calls on cue, then the
answer), a summary for every summary request, "Done." once a turn's script is used up.

The summary quotes none of the user's messages and the answers never echo them, so the oracle's
"every user message is still in the request" is the agent's doing, not the model's.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import Any

from tests.deepseek_template import counter
from tests.fake_replies import Reply, Text
from tests.fuzz.requests import is_summary_request

SUMMARY_EN = (
    "The session so far: the user and the assistant went through several modules of the project, "
    "read a few of them, changed some lines and discussed the design. "
)
SUMMARY_ZH = "到目前为止：用户和助手浏览了项目里的几个模块，读了其中一些文件，改了几行代码，讨论了设计。"


class ScriptedModel:
    def __init__(self, window: int) -> None:
        self.window = window
        self._steps: deque[Reply] = deque()
        self._lock = threading.Lock()

    def start(self, replies: list[Any]) -> None:
        """A new input: its replies replace whatever an interrupted one left."""
        with self._lock:
            self._steps = deque(replies)

    def __call__(self, body: dict[str, Any]) -> Reply:
        if is_summary_request(body):
            return Text(self._summary(body))
        with self._lock:
            reply = self._steps.popleft() if self._steps else Text("Done.")
        return _capped(reply, body.get("max_tokens"))

    def _summary(self, body: dict[str, Any]) -> str:
        zh = "摘要" in str((body.get("messages") or [{}])[-1].get("content"))
        # About 2% of the window, at least a paragraph: a summary a real model might write.
        repeat = max(1, int(0.02 * self.window) // 40)
        text = (SUMMARY_ZH if zh else SUMMARY_EN) * min(repeat, 60)
        last = (
            "6. 当前工作与下一步：继续用户最后的请求。"
            if zh
            else "6. Current work and next step: go on with the last request."
        )
        return f"<analysis>Went through the turns in order.</analysis>\n<summary>\n{text}\n{last}\n</summary>"


def _capped(reply: Reply, max_tokens: Any) -> Reply:
    """An answer stops at max_tokens, as a real model's does (finish "length")."""
    if not isinstance(reply, Text) or not isinstance(max_tokens, int):
        return reply
    size = counter().count(reply.content)
    if size <= max_tokens:
        return reply
    return Text(reply.content[: len(reply.content) * max_tokens // size * 9 // 10], finish="length")
