"""Synthetic coding sessions, deterministic (seeded), as pydantic-ai messages.

A session is a run of user turns. Each turn: the user's request (English or Chinese), then 0-6
tool rounds (an assistant response with a short remark and one or two tool calls, carrying usage;
a request with the tool results: read_file, grep, run_command, list_files, edit_file, write_file),
then the assistant's answer. Tool results are about 80% of the tokens; the content mixes English,
Chinese, code (Python, TypeScript), JSON and logs. 8,000 messages come to about 920k tokens (tool
calls counted as DeepSeek's DSML markup), under the 980k a compaction request may carry in a 1M
window (window minus the summary's reserve).

Usage on each response is what the server would have reported: input = the fixed prefix (system
prompt + tools) plus every message before it, output = the answer's own tokens.

    python bench/synth.py [--quick]     prints the composition of the generated sessions
"""

from __future__ import annotations

import json
import random
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

if __package__ in (None, ""):
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from pydantic_ai.messages import (  # noqa: E402
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.usage import RequestUsage  # noqa: E402

from agent.tokens import count as tokens  # noqa: E402

MODEL = "deepseek-flash"
START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

# ---- vocabulary -------------------------------------------------------------------------------

WORDS = (
    "cache session token window summary archive history message request response tool result "
    "config parser buffer stream client server handler worker queue batch index record entry "
    "payload schema model agent state event loop guard budget limit offset chunk prefix suffix "
    "render format encode decode retry timeout backoff lock mutex signal socket route user order "
    "invoice account profile report metric counter gauge span trace logger option flag plugin"
).split()
VERBS = "load save parse build fetch merge split count check apply reset flush sync read write emit".split()
PACKAGES = ["core", "api", "storage", "billing", "search", "auth", "ui", "jobs"]
EXCEPTIONS = [
    "KeyError",
    "ValueError",
    "TypeError",
    "TimeoutError",
    "AssertionError",
    "UnicodeDecodeError",
    "ConnectionResetError",
    "IndexError",
]
ZH_TOPICS = [
    "缓存",
    "会话",
    "上下文窗口",
    "摘要",
    "归档",
    "配置文件",
    "解析器",
    "数据库连接",
    "重试逻辑",
    "超时处理",
    "日志",
    "单元测试",
    "并发锁",
    "序列化",
    "分页查询",
    "权限校验",
    "订单状态",
    "计费模块",
]
ZH_ISSUES = [
    "偶尔会卡住",
    "返回了空结果",
    "内存一直在涨",
    "报了一个奇怪的错误",
    "速度明显变慢",
    "在中文路径下出错",
    "结果和预期不一致",
    "测试不稳定，时好时坏",
]
ZH_CLAUSES = [
    "我先看一下相关的代码",
    "问题出在边界条件没有处理",
    "这里的锁没有及时释放",
    "需要在写入之前先检查文件是否存在",
    "测试覆盖了正常路径，但没有覆盖异常路径",
    "这个函数同时承担了解析和校验两件事，建议拆开",
    "修改后所有测试都通过了",
    "我把重复的逻辑提取成了一个辅助函数",
    "为了兼容旧数据，保留了原来的字段",
    "日志里能看到请求在第三次重试时超时",
    "这会导致缓存前缀失效，费用明显上升",
    "改动很小，只涉及两个文件",
    "下一步可以把配置项写进文档",
    "如果数据量继续增长，需要考虑分批处理",
]
EN_CLAUSES = [
    "Let me look at the code around it first",
    "The problem is an unhandled edge case at the boundary",
    "the lock is not released on the error path",
    "we should check that the file exists before writing",
    "the tests cover the happy path but not the failure path",
    "this function both parses and validates; I would split it",
    "all tests pass after the change",
    "I extracted the duplicated logic into a helper",
    "the old field is kept so existing data still loads",
    "the log shows the request timing out on the third retry",
    "that would invalidate the cached prefix and raise the bill",
    "the change is small and touches two files",
    "next we could document the new option",
    "if the data keeps growing we will need to process it in batches",
]


@dataclass
class ProjectFile:
    path: str
    lines: list[str]

    @property
    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


@dataclass
class Session:
    messages: list[ModelMessage]
    files: dict[str, ProjectFile]
    # Files read, oldest read first (what ReadFileState would hold).
    reads: list[str]
    fixed_prefix: int
    # Tokens per category (see composition()).
    shares: dict[str, int] = field(default_factory=dict)

    @property
    def tokens(self) -> int:
        """What the next request would carry: the fixed prefix plus every message."""
        return self.fixed_prefix + tokens.count_messages(self.messages)


class _Gen:
    def __init__(self, seed: int, instructions: str, fixed_prefix: int, track: bool = False) -> None:
        self.rng = random.Random(seed)
        self.track = track
        self.instructions = instructions or None
        self.fixed = fixed_prefix
        self.clock = START
        self.calls = 0
        self.context = fixed_prefix  # tokens of the request the next response answers
        self.messages: list[ModelMessage] = []
        self.shares: dict[str, int] = {}
        self.files = self._project()
        self.reads: list[str] = []

    # ---- helpers ----

    def tick(self, seconds: float = 7.0) -> datetime:
        self.clock += timedelta(seconds=self.rng.uniform(0.3, 2.0) * seconds)
        return self.clock

    def ident(self, parts: int = 2) -> str:
        return "_".join(self.rng.choice(WORDS) for _ in range(parts))

    def camel(self) -> str:
        return "".join(w.capitalize() for w in self.rng.sample(WORDS, 2))

    def add(self, message: ModelMessage, *kinds: tuple[str, str]) -> None:
        """Append `message`; `kinds` label its texts for the composition table."""
        for kind, text in kinds if self.track else ():
            self.shares[kind] = self.shares.get(kind, 0) + tokens.count_text(text)
        self.messages.append(message)
        self.context += tokens.count_message(message)

    # ---- the project the session works on ----

    def _code_line(self, indent: int) -> str:
        r = self.rng.random()
        pad = "    " * indent
        a, b = self.ident(), self.ident(1)
        if r < 0.22:
            return f"{pad}{a} = self.{b}.get({self.rng.choice(WORDS)!r}, {self.rng.randint(0, 512)})"
        if r < 0.34:
            return f"{pad}if {a} is None or len({a}) > {self.rng.choice(['limit', 'MAX_ITEMS', 'self.budget'])}:"
        if r < 0.44:
            return f"{pad}return {self.rng.choice(VERBS)}_{b}({a}, strict={self.rng.choice(['True', 'False'])})"
        if r < 0.52:
            zh = self.rng.choice(ZH_CLAUSES) if self.rng.random() < 0.35 else self.rng.choice(EN_CLAUSES).lower()
            return f"{pad}# {zh}"
        if r < 0.60:
            return f"{pad}for {b} in self.{a}:"
        if r < 0.68:
            return f'{pad}logger.debug("{self.rng.choice(VERBS)} %s in %.2f ms", {a}, elapsed * 1000)'
        if r < 0.75:
            return f'{pad}raise {self.rng.choice(EXCEPTIONS)}(f"bad {b}: {{{a}!r}}")'
        if r < 0.82:
            return f"{pad}self.{a}[{b}] = {self.rng.choice(VERBS)}_{self.ident(1)}({b})"
        if r < 0.90:
            return f"{pad}{a}: dict[str, int] = {{{', '.join(repr(w) + ': ' + str(self.rng.randint(0, 99)) for w in self.rng.sample(WORDS, 3))}}}"  # noqa: E501
        return f"{pad}await self.{self.rng.choice(VERBS)}_{b}({a}, timeout={self.rng.choice([5, 10, 30, 60])})"

    def _python(self, n: int) -> list[str]:
        lines = [
            '"""' + self.rng.choice(EN_CLAUSES) + '."""',
            "",
            "from __future__ import annotations",
            "",
            "import logging",
            f"from .{self.rng.choice(WORDS)} import {self.camel()}",
            "",
            "logger = logging.getLogger(__name__)",
            "",
        ]
        while len(lines) < n:
            lines += ["", f"class {self.camel()}:"]
            lines.append(
                f'    """{self.rng.choice(ZH_CLAUSES) if self.rng.random() < 0.3 else self.rng.choice(EN_CLAUSES)}."""'
            )  # noqa: E501
            for _ in range(self.rng.randint(2, 5)):
                lines += ["", f"    def {self.rng.choice(VERBS)}_{self.ident(1)}(self, {self.ident(1)}: str) -> int:"]
                depth = 2
                for _ in range(self.rng.randint(4, 14)):
                    line = self._code_line(depth)
                    lines.append(line)
                    if line.endswith(":"):
                        depth = min(depth + 1, 4)
                    elif self.rng.random() < 0.3:
                        depth = max(2, depth - 1)
        return lines[:n]

    def _typescript(self, n: int) -> list[str]:
        lines = [f"import {{ {self.camel()} }} from './{self.rng.choice(WORDS)}';", ""]
        while len(lines) < n:
            name = self.camel()
            lines += [f"export interface {name} {{"]
            for _ in range(self.rng.randint(3, 7)):
                field, optional = self.ident(1), self.rng.choice(["", "?"])  # the seeded draws' order kept
                lines.append(f"  {field}{optional}: {self.rng.choice(['string', 'number', 'boolean', 'string[]'])};")
            lines += [
                "}",
                "",
                f"export async function {self.rng.choice(VERBS)}{name}(id: string): Promise<{name}> {{",
                f"  const res = await fetch(`/api/{self.rng.choice(WORDS)}/${{id}}`);",
                "  if (!res.ok) throw new Error(`HTTP ${res.status}`);",
                f"  // {self.rng.choice(ZH_CLAUSES) if self.rng.random() < 0.3 else self.rng.choice(EN_CLAUSES)}",
                "  return (await res.json()) as " + name + ";",
                "}",
                "",
            ]
        return lines[:n]

    def _project(self) -> dict[str, ProjectFile]:
        files = {}
        for pkg in PACKAGES:
            for _ in range(6):
                path = f"src/{pkg}/{self.rng.choice(WORDS)}_{self.rng.choice(WORDS)}.py"
                files[path] = ProjectFile(path, self._python(self.rng.randint(40, 260)))
            path = f"web/{pkg}/{self.camel()}.ts"
            files[path] = ProjectFile(path, self._typescript(self.rng.randint(40, 200)))
        for i in range(6):
            path = f"tests/test_{PACKAGES[i]}.py"
            files[path] = ProjectFile(path, self._python(self.rng.randint(80, 300)))
        return files

    # ---- texts ----

    def json_value(self, depth: int = 0) -> object:
        r = self.rng.random()
        if depth >= 3 or r < 0.35:
            return self.rng.choice(
                [
                    self.rng.randint(0, 100_000),
                    round(self.rng.uniform(0, 1000), 3),
                    self.rng.random() < 0.5,
                    None,
                    self.ident(),
                    f"{self.rng.choice(ZH_TOPICS)}{self.rng.choice(ZH_ISSUES)}",
                    f"2026-03-{self.rng.randint(1, 28):02d}T{self.rng.randint(0, 23):02d}:"
                    f"{self.rng.randint(0, 59):02d}:00Z",
                ]
            )
        if r < 0.6:
            return [self.json_value(depth + 1) for _ in range(self.rng.randint(1, 5))]
        return {self.ident(1 + (depth == 0)): self.json_value(depth + 1) for _ in range(self.rng.randint(2, 6))}

    def json_text(self, items: int) -> str:
        data = {
            "status": self.rng.choice(["ok", "partial", "error"]),
            "request_id": f"req_{self.rng.getrandbits(48):012x}",
            "items": [self.json_value(1) for _ in range(items)],
        }
        return json.dumps(data, ensure_ascii=False, indent=self.rng.choice([None, 2]))

    def sentence(self, zh: bool) -> str:
        if zh:
            return f"{self.rng.choice(ZH_CLAUSES)}，{self.rng.choice(ZH_CLAUSES)}。"
        return f"{self.rng.choice(EN_CLAUSES)}; {self.rng.choice(EN_CLAUSES).lower()}."

    def clause(self, zh: bool) -> str:
        return self.rng.choice(ZH_CLAUSES) + "。" if zh else self.rng.choice(EN_CLAUSES) + "."

    def user_text(self, zh: bool) -> str:
        f = self.rng.choice(list(self.files))
        func = f"{self.rng.choice(VERBS)}_{self.ident(1)}"
        if zh:
            head = self.rng.choice(
                [
                    f"帮我看一下 {f}，为什么 {func} {self.rng.choice(ZH_ISSUES)}？",
                    f"把 {f} 里的 {func} 重构一下，{self.rng.choice(ZH_TOPICS)}的部分{self.rng.choice(ZH_ISSUES)}。",
                    f"给 {func} 加一个测试，覆盖{self.rng.choice(ZH_TOPICS)}为空的情况。",
                    "跑一下测试，把失败的都修好。",
                    f"{self.rng.choice(ZH_TOPICS)}在数据量大的时候{self.rng.choice(ZH_ISSUES)}，分析一下原因并给出修改方案。",
                    f"把所有的 {self.ident()} 改名为 {self.ident()}。",
                ]
            )
            extra = "".join(self.sentence(True) for _ in range(self.rng.choice([0, 0, 1, 2])))
        else:
            head = self.rng.choice(
                [
                    f"Can you look at {f} and figure out why {func} raises {self.rng.choice(EXCEPTIONS)}?",
                    f"Refactor {func} in {f} so it no longer does the {self.rng.choice(WORDS)} lookup twice.",
                    f"Add a test for {func} covering an empty {self.rng.choice(WORDS)}.",
                    "Run the test suite and fix whatever breaks.",
                    f"The {self.rng.choice(WORDS)} {self.rng.choice(WORDS)} is slow on large inputs; "
                    "profile and fix it.",
                    f"Rename {self.ident()} to {self.ident()} everywhere.",
                ]
            )
            extra = " ".join(self.sentence(False) for _ in range(self.rng.choice([0, 0, 1, 2])))
        return (head + (" " if not zh else "") + extra).strip()

    def answer_text(self, zh: bool) -> str:
        parts = [" ".join(self.sentence(zh) for _ in range(self.rng.randint(1, 2)))]
        if self.rng.random() < 0.2:
            f = self.files[self.rng.choice(list(self.files))]
            start = self.rng.randrange(max(1, len(f.lines) - 8))
            body = "\n".join(f.lines[start : start + self.rng.randint(3, 6)])
            lang = "ts" if f.path.endswith(".ts") else "python"
            parts.append(f"```{lang}\n{body}\n```")
        if self.rng.random() < 0.3:
            parts.append(self.sentence(zh))
        return "\n\n".join(parts)

    # ---- tools: a call and its result ----

    def _read(self) -> tuple[dict, str, str]:
        f = self.files[self.rng.choice(list(self.files))]
        if self.rng.random() < 0.035:
            offset, limit = 1, len(f.lines)
            args: dict = {"path": f.path}
        else:
            offset = self.rng.randint(1, max(1, len(f.lines) - 20))
            limit = self.rng.choice([8, 10, 12, 15, 18, 20])
            args = {"path": f.path, "offset": offset, "limit": limit}
        shown = f.lines[offset - 1 : offset - 1 + limit]
        text = "\n".join(f"{offset + i:6}\t{line}" for i, line in enumerate(shown))
        if offset - 1 + limit < len(f.lines):
            text += f"\n[more lines follow; continue with offset={offset + limit}]"
        if f.path in self.reads:
            self.reads.remove(f.path)
        self.reads.append(f.path)
        return args, text, "code"

    def _grep(self) -> tuple[dict, str, str]:
        word = self.rng.choice(WORDS)
        found = []
        for f in self.rng.sample(list(self.files.values()), self.rng.randint(1, 5)):
            for n, line in enumerate(f.lines, start=1):
                if word in line and self.rng.random() < 0.5:
                    found.append(f"{f.path}:{n}:{line.strip()[:200]}")
        return {"pattern": word, "path": "src"}, "\n".join(found[: self.rng.randint(2, 12)]) or "No matches", "code"

    def _pytest(self) -> str:
        lines = [
            "============================= test session starts ==============================",
            "platform linux -- Python 3.11.7, pytest-9.0.3",
            f"collected {self.rng.randint(40, 400)} items",
            "",
        ]
        for path in self.rng.sample([p for p in self.files if p.startswith("tests/")], 3):
            lines.append(f"{path} " + "".join(self.rng.choice("....F.s") for _ in range(self.rng.randint(5, 30))))
        if self.rng.random() < 0.6:
            exc = self.rng.choice(EXCEPTIONS)
            lines += [
                "",
                "=================================== FAILURES ===================================",
                f"____________________ test_{self.rng.choice(VERBS)}_{self.ident(1)} ____________________",
                "",
            ]
            for _ in range(self.rng.randint(1, 3)):
                f = self.files[self.rng.choice(list(self.files))]
                n = self.rng.randrange(len(f.lines))
                lines += [f"{f.path}:{n + 1}: in {self.rng.choice(VERBS)}_{self.ident(1)}", f"    {f.lines[n].strip()}"]
            lines += [
                f"E   {exc}: {self.rng.choice(ZH_TOPICS) if self.rng.random() < 0.2 else self.ident()}",
                "",
                f"FAILED tests/test_x.py::test_{self.ident(1)} - {exc}",
            ]
        lines.append(
            f"========== {self.rng.randint(0, 3)} failed, {self.rng.randint(30, 300)} passed in "
            f"{self.rng.uniform(0.5, 30):.2f}s =========="
        )
        return "\n".join(lines)

    def _run(self) -> tuple[dict, str, str]:
        r = self.rng.random()
        if r < 0.3:
            cmd, out, kind = "python -m pytest -q -x", self._pytest(), "log"
        elif r < 0.65:
            cmd = self.rng.choice(
                [
                    "curl -s localhost:8000/api/" + self.rng.choice(WORDS),
                    "cat config.json",
                    "jq . build/report.json",
                    "python -m tools.dump --json",
                ]
            )
            out, kind = self.json_text(self.rng.randint(1, 4)), "json"
        elif r < 0.85:
            f = self.files[self.rng.choice(list(self.files))]
            n = self.rng.randrange(max(1, len(f.lines) - 6))
            hunk = [f"diff --git a/{f.path} b/{f.path}", f"@@ -{n},6 +{n},7 @@"]
            hunk += [" " + line for line in f.lines[n : n + 3]]
            hunk += ["-" + f.lines[min(n + 3, len(f.lines) - 1)], "+" + self._code_line(2), "+" + self._code_line(2)]
            cmd, out, kind = "git diff", "\n".join(hunk), "code"
        else:
            cmd = self.rng.choice(["git status --short", "ls -la src", "wc -l src/**/*.py"])
            out = "\n".join(
                f" M {p}" if cmd.startswith("git") else f"{self.rng.randint(10, 900):6} {p}"
                for p in self.rng.sample(list(self.files), self.rng.randint(2, 10))
            )
            kind = "log"
        return {"command": cmd}, f"{out}\n[exit code: {self.rng.choice([0, 0, 0, 1])}]", kind

    def _edit(self) -> tuple[dict, str, str]:
        f = self.files[self.rng.choice(list(self.files))]
        n = self.rng.randrange(len(f.lines))
        old = f.lines[n].strip() or "pass"
        new = self._code_line(0).strip()
        return {"path": f.path, "old_string": old, "new_string": new}, f"Edited {f.path}: replaced 1 occurrence", "code"

    def _write(self) -> tuple[dict, str, str]:
        pkg = self.rng.choice(PACKAGES)
        path = f"src/{pkg}/{self.ident(1)}_{self.rng.getrandbits(16):04x}.py"
        lines = self._python(self.rng.randint(10, 24))
        return {"path": path, "content": "\n".join(lines) + "\n"}, f"Created {path} ({len(lines)} lines)", "code"

    def _list(self) -> tuple[dict, str, str]:
        paths = sorted(self.rng.sample(list(self.files), self.rng.randint(5, 25)))
        return {"pattern": "**/*." + self.rng.choice(["py", "ts"])}, "\n".join(paths), "code"

    def tool_call(self) -> tuple[str, dict, str, str]:
        r = self.rng.random()
        for limit, name, make in (
            (0.36, "read_file", self._read),
            (0.56, "grep", self._grep),
            (0.80, "run_command", self._run),
            (0.92, "edit_file", self._edit),
            (0.94, "write_file", self._write),
            (1.01, "list_files", self._list),
        ):
            if r < limit:
                args, text, kind = make()
                return name, args, text, kind
        raise AssertionError

    # ---- messages ----

    def response(self, parts: list, *kinds: tuple[str, str]) -> None:
        out = 0
        for part in parts:
            if isinstance(part, TextPart):
                out += tokens.count_text(part.content)
            elif isinstance(part, ToolCallPart):
                out += tokens.count_text(part.tool_name) + tokens.count_text(part.args_as_json_str())
        usage = RequestUsage(input_tokens=self.context, output_tokens=out)
        finish = "tool_call" if any(isinstance(p, ToolCallPart) for p in parts) else "stop"
        self.add(
            ModelResponse(
                parts=parts,
                usage=usage,
                model_name=MODEL,
                timestamp=self.tick(),
                provider_name="deepseek",
                finish_reason=finish,
            ),
            *kinds,
        )

    def turn(self, rounds: int) -> None:
        zh = self.rng.random() < 0.45
        text = self.user_text(zh)
        ts = self.tick(30)
        self.add(
            ModelRequest(parts=[UserPromptPart(text, timestamp=ts)], timestamp=ts, instructions=self.instructions),
            ("user " + ("zh" if zh else "en"), text),
        )
        for _ in range(rounds):
            calls, results, kinds = [], [], []
            remark = self.clause(zh) if self.rng.random() < 0.4 else ""
            for _ in range(2 if self.rng.random() < 0.15 else 1):
                self.calls += 1
                name, args, result, kind = self.tool_call()
                call_id = f"call_{self.calls:06d}"
                calls.append(ToolCallPart(name, json.dumps(args, ensure_ascii=False), tool_call_id=call_id))
                results.append(ToolReturnPart(name, result, tool_call_id=call_id, timestamp=self.clock))
                kinds.append(("tool result " + kind, result))
            head = [TextPart(remark)] if remark else []
            self.response(
                head + calls,
                ("assistant " + ("zh" if zh else "en"), remark),
                *(("tool call args", c.args_as_json_str()) for c in calls),
            )
            ts = self.tick()
            self.add(ModelRequest(parts=results, timestamp=ts, instructions=self.instructions), *kinds)
        answer = self.answer_text(zh)
        self.response([TextPart(answer)], ("assistant " + ("zh" if zh else "en"), answer))


def generate(
    n_messages: int, seed: int = 1, *, instructions: str = "", fixed_prefix: int = 0, shares: bool = False
) -> Session:
    """A session of exactly `n_messages` messages (rounded up to even), seeded.

    `instructions` and `fixed_prefix` should be the agent's (state.scratch.instructions,
    agent.compaction.context.fixed_prefix_tokens(state)) so that usage matches what the server reports."""
    gen = _Gen(seed, instructions, fixed_prefix, shares)
    n_messages += n_messages % 2
    while len(gen.messages) < n_messages:
        left = n_messages - len(gen.messages)
        rounds = min(gen.rng.choice([0, 1, 2, 2, 3, 3, 4, 5, 6]), (left - 2) // 2)
        gen.turn(rounds)
    return Session(gen.messages, gen.files, gen.reads, fixed_prefix, gen.shares)


# Shares are of the content tokens: the texts of the messages, not the fixed prefix or the
# chat template's marker tokens around each message.
def composition(s: Session) -> dict[str, float]:
    total = sum(s.shares.values()) or 1
    return {k: v / total for k, v in sorted(s.shares.items())}


def tool_share(s: Session) -> float:
    total = sum(s.shares.values()) or 1
    return sum(v for k, v in s.shares.items() if k.startswith("tool result")) / total


def write_project(s: Session, workspace: Path, only: list[str] | None = None) -> None:
    """Put the session's project files (or just `only`) on disk, so restores can re-read them."""
    for path in only if only is not None else list(s.files):
        target = workspace / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(s.files[path].text, encoding="utf-8")


def main() -> None:
    import time

    from bench import common

    args = common.parse_args(__doc__)
    report = common.Report("synth: the synthetic sessions")
    sizes = common.sizes(args.quick)
    rows = []
    kinds: dict[str, dict[str, float]] = {}
    for n in sizes:
        t0 = time.perf_counter()
        s = generate(n, seed=1, fixed_prefix=1200, shares=True)
        dt = time.perf_counter() - t0
        total = s.tokens
        kinds[str(n)] = composition(s)
        rows.append([f"{n:,}", f"{len(s.messages):,}", f"{total:,}", f"{100 * tool_share(s):.1f}%", f"{dt:.2f} s"])
        report.figure(f"session_{n}_tokens", total, "tokens")
        report.figure(
            f"session_{n}_tool_result_share",
            round(100 * tool_share(s), 1),
            "%",
            "~80% of content tokens (realistic share)",
            ok=None,
        )
    headers = [
        "messages asked",
        "messages",
        "tokens (prefix 1,200 + messages)",
        "tool results (of content)",
        "generated in",
    ]
    report.table(headers, rows)
    labels = sorted({k for c in kinds.values() for k in c})
    report.table(
        ["share of content tokens", *kinds],
        [[k, *(f"{100 * c.get(k, 0):.1f}%" for c in kinds.values())] for k in labels],
    )
    report.finish()


if __name__ == "__main__":
    main()
