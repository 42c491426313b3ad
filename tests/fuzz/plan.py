"""A seeded session: the project's files and what the user does, turn by turn, with what the
scripted model answers. The same seed and window give the same session.

Sizes are drawn relative to the window (a read may be near or over it, so may an answer or a
paste), with byte caps so that a 1M-window session stays quick to generate and to count.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from tests.fake_replies import Text, ToolCalls

EN = [
    "the parser reads the header before the records",
    "this lock is not released on the error path",
    "we should check the file exists before writing",
    "the tests cover the happy path only",
    "the cache key must include the version",
    "a retry with backoff would hide this failure",
    "the config loader ignores unknown keys",
    "split the function that parses and validates",
    "rename the helper so it says what it does",
    "the migration keeps the old column for now",
]
ZH = [
    "解析器先读文件头再读记录",
    "错误路径上的锁没有释放",
    "写入之前应该先检查文件是否存在",
    "测试只覆盖了正常路径",
    "缓存的键必须包含版本号",
    "带退避的重试会掩盖这个故障",
    "配置加载器忽略了未知的键",
    "把解析和校验拆成两个函数",
    "给辅助函数换个能说明用途的名字",
    "迁移暂时保留旧的列",
]
WORDS = ["record", "header", "cache", "lock", "config", "parser", "token", "buffer", "session", "window"]
# Share of the window a drawn size may take: mostly small, sometimes near or over the whole window.
SHARES = [0.01, 0.02, 0.05, 0.1, 0.2, 0.35, 0.5, 0.8, 0.95, 1.2]
SHARE_WEIGHTS = [20, 18, 16, 12, 9, 7, 6, 5, 4, 3]
CHARS_PER_TOKEN = {"en": 4.5, "zh": 1.3, "code": 3.2}
MAX_FILE_TOKENS = 120_000  # a 1M window's "big file" is big, not the whole window: generation time
MAX_ANSWER_TOKENS = 30_000
KINDS = [
    "chat",
    "read",
    "reread",
    "edit",
    "answer",
    "mention",
    "paste",
    "compact",
    "undo",
    "continue",
    "pin",
    "preview",
]
WEIGHTS = [22, 20, 10, 10, 9, 9, 5, 5, 3, 3, 3, 2]
# Inputs that are commands, not turns.
COMMANDS = ("compact", "undo", "continue", "pin", "preview")
CTRL_C = 0.08  # share of inputs interrupted at a random event


@dataclass
class Step:
    kind: str
    text: str = ""  # what the user types ("" for --continue)
    replies: list[Any] = field(default_factory=list)  # the model's answers in the turn, in order
    mentions: list[str] = field(default_factory=list)
    cancel_at: int | None = None  # Ctrl-C at this event of the input (1 = the first)


@dataclass
class Session:
    seed: int
    window: int
    lang: str
    files: dict[str, str]
    steps: list[Step]

    @property
    def turns(self) -> int:
        return sum(1 for s in self.steps if s.kind not in COMMANDS)


def _tokens(rng: random.Random, window: int, cap: int) -> int:
    share = rng.choices(SHARES, SHARE_WEIGHTS)[0] * rng.uniform(0.8, 1.2)
    return max(20, min(cap, int(share * window)))


def _prose(rng: random.Random, zh: bool, tokens: int) -> str:
    pool, sep = (ZH, "，") if zh else (EN, ", ")
    out, size = [], 0
    goal = tokens * CHARS_PER_TOKEN["zh" if zh else "en"]
    while size < goal:
        sentence = sep.join(rng.sample(pool, 3)) + ("。" if zh else ".")
        out.append(sentence)
        size += len(sentence) + 1
    return " ".join(out)


def _file_text(rng: random.Random, kind: str, tokens: int, name: str) -> str:
    """Lines that are all different (each names its number), so an edit's old line is unique."""
    goal, lines = tokens * CHARS_PER_TOKEN[kind], []
    size, n = 0, 0
    while size < goal:
        n += 1
        if kind == "code":
            line = f"    {rng.choice(WORDS)}_{n} = step({n}, '{rng.choice(WORDS)}')  # {name} {n}"
        else:
            line = f"L{n} " + _prose(rng, kind == "zh", rng.randint(10, 60))
        lines.append(line)
        size += len(line) + 1
    return "\n".join(lines) + "\n"


def _files(rng: random.Random, window: int) -> dict[str, str]:
    files = {}
    for i in range(12):
        kind = ["code", "en", "zh"][i % 3]
        name = f"src/mod_{i}.py" if kind == "code" else f"docs/{'notes' if kind == 'en' else 'zh'}_{i}.md"
        files[name] = _file_text(rng, kind, _tokens(rng, window, MAX_FILE_TOKENS), name)
    return files


def generate(seed: int, window: int, turns: int) -> Session:
    rng = random.Random(seed * 1_000_003 + window)
    files = _files(rng, window)
    contents = dict(files)  # the files as edits change them, so every scripted edit applies
    steps: list[Step] = []
    read: list[str] = []
    lang = rng.choice(["en", "zh"])
    n = 0
    while sum(1 for s in steps if s.kind not in COMMANDS) < turns:
        kind = rng.choices(KINDS, WEIGHTS)[0]
        if kind in ("reread", "edit") and not read:
            kind = "read"
        n += 1
        step = _step(rng, kind, n, window, files, contents, read)
        if kind != "continue" and rng.random() < CTRL_C:
            step.cancel_at = rng.randint(1, 40)
        steps.append(step)
    return Session(seed, window, lang, files, steps)


def _step(
    rng: random.Random, kind: str, n: int, window: int, files: dict[str, str], contents: dict[str, str], read: list[str]
) -> Step:
    zh = rng.random() < 0.4
    tag = f"[第{n}条]" if zh else f"[#{n}]"  # first: a message cut to its start is still recognisable
    answer = Text(_prose(rng, zh, rng.randint(15, 120)))
    paths = list(files)
    if kind == "continue":
        return Step(kind)
    if kind == "compact":
        extra = rng.choice(["", "", "keep the file names", "保留所有的文件名"])
        return Step(kind, f"/compact {extra}".strip())
    if kind == "undo":
        return Step(kind, "/compact undo")
    if kind == "preview":  # applied: the channel answers a command's question "y"
        return Step(kind, "/compact preview " + rng.choice(["", "keep the file names"]).strip())
    if kind == "pin":  # a line of text or a file, kept verbatim through every compaction
        return Step(
            kind,
            f"/pin {tag} " + _prose(rng, zh, rng.randint(4, 20))
            if rng.random() < 0.6
            else f"/pin @{rng.choice(paths)}",
        )
    if kind == "chat":
        return Step(kind, f"{tag} {_prose(rng, zh, rng.randint(8, 40))}", [answer])
    if kind == "answer":
        size = _tokens(rng, window, MAX_ANSWER_TOKENS)
        ask = "详细解释一下这个模块的设计" if zh else "Explain the design of this module in detail"
        return Step(kind, f"{tag} {ask}", [Text(_prose(rng, zh, size))])
    if kind == "paste":
        body = _file_text(rng, rng.choice(["code", "en", "zh"]), _tokens(rng, window, 40_000), "paste")
        ask = "这是日志，帮我看看" if zh else "Here is the log, what went wrong?"
        return Step(kind, f"{tag} {ask}\n{body}", [answer])
    if kind == "mention":
        chosen = rng.sample(paths, rng.choice([1, 1, 2]))
        read.extend(chosen)
        ask = "看一下" if zh else "Have a look at"
        return Step(kind, f"{tag} {ask} " + " ".join(f"@{p}" for p in chosen), [answer], mentions=chosen)
    path = rng.choice(read) if kind in ("reread", "edit") else rng.choice(paths)
    read.append(path)
    replies: list[Any] = [ToolCalls([("read_file", {"path": path})])]
    if rng.random() < 0.25:  # a second file in the same turn, sometimes in the same response
        other = rng.choice(paths)
        read.append(other)
        call = ("read_file", {"path": other})
        replies = [ToolCalls([replies[0].calls[0], call])] if rng.random() < 0.5 else replies + [ToolCalls([call])]
    if kind == "edit":
        lines = contents[path].splitlines()
        j = rng.randrange(len(lines))
        old, new = lines[j], lines[j] + f" edited {n}"
        lines[j] = new
        contents[path] = "\n".join(lines) + "\n"
        replies.append(ToolCalls([("edit_file", {"path": path, "old_string": old, "new_string": new})]))
        ask = f"修改 {path} 的第 {j + 1} 行" if zh else f"Change line {j + 1} of {path}"
    else:
        ask = f"读一下 {path}" if zh else f"Read {path} and tell me what it does"
    return Step(kind, f"{tag} {ask}", replies + [answer])
