"""The renderer draws the loop's events: streamed answer, collapsed reasoning, tool lines, diffs."""

from __future__ import annotations

import re
from io import StringIO

from rich.console import Console

from agent.events import (
    CompactionFinished,
    CompactionStarted,
    TextDelta,
    ThinkingDelta,
    ToolCallStarted,
    ToolResult,
)
from ui.render import Renderer


def _render(events, lang="en") -> str:
    out = StringIO()
    renderer = Renderer(Console(file=out, width=100, force_terminal=True, color_system="standard"), lang)
    for event in events:
        renderer(event)
    renderer.end_answer()
    return out.getvalue()


def test_answer_reasoning_and_tools():
    text = _render(
        [
            ThinkingDelta("I should read the file first. " * 10),
            TextDelta("Here is **the** plan"),
            ToolCallStarted("c1", "edit_file", {"path": "app.py", "old_string": "a", "new_string": "b"}),
            ToolResult(
                "c1",
                "edit_file",
                "Edited app.py: replaced 1 occurrence",
                diff="--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-a = 1\n+a = 2\n",
            ),
            ToolCallStarted("c2", "read_file", {"path": "missing.py"}),
            ToolResult("c2", "read_file", "Error: missing.py does not exist", is_error=True),
        ]
    )
    assert "Reasoning (300 chars): I should read the file first." in text
    assert "\x1b[2" in text  # dimmed
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text)
    assert "Here is the plan" in text
    assert "edit_file app.py" in text and "read_file missing.py" in text
    assert "+a = 2" in text and "-a = 1" in text
    assert "Error: missing.py does not exist" in text


def test_compaction_lines_in_chinese():
    text = _render(
        [
            CompactionStarted("manual", 9000, 8000),
            CompactionFinished("manual", 9000, 1200, "/tmp/archive.jsonl", summary="1. 用户要求重构解析器"),
        ],
        lang="zh",
    )
    assert "压缩完成：9,000 → 1,200 tokens" in text and "/tmp/archive.jsonl" in text
    assert "摘要（12 字）：1. 用户要求重构解析器" in text and "chars" not in text


ANSWER = """# Plan

Here is **the** plan for the parser, in a few steps:

1. Read the grammar.
2. Write the tokenizer.

   It needs care with `strings`.

3. Test it.

```python
def add(a, b):

    return a + b
```

- one
- two

> a quote

## Done

Last paragraph with a [link](http://example.com).
"""


def _plain(text: str) -> list[str]:
    return [line.rstrip() for line in re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text).splitlines()]


def test_a_streamed_answer_looks_as_the_whole_answer_would():
    from rich.markdown import Markdown

    from tests.fake_openai import split_text

    whole = StringIO()
    Console(file=whole, width=80).print(Markdown(ANSWER, hyperlinks=False))  # links show their target
    streamed = StringIO()
    renderer = Renderer(Console(file=streamed, width=80), "en")
    for piece in split_text(ANSWER, 300):
        renderer(TextDelta(piece))
    renderer.end_answer()
    assert _plain(streamed.getvalue()) == _plain(whole.getvalue())


def test_streaming_parses_each_part_of_the_answer_a_bounded_number_of_times(monkeypatch):
    """The answer's markdown was parsed whole on every delta: 1,515 deltas of 6 kB took 9.75 s."""
    import rich.markdown

    from tests.fake_openai import split_text

    parsed: list[int] = []

    class Counting(rich.markdown.Markdown):
        def __init__(self, markup: str, *args, **kwargs) -> None:
            parsed.append(len(markup))
            super().__init__(markup, *args, **kwargs)

    monkeypatch.setattr(rich.markdown, "Markdown", Counting)
    text = "\n\n".join(f"Paragraph {i} says something about step {i} of the plan." for i in range(80)) * 3
    renderer = Renderer(Console(file=StringIO(), width=100, force_terminal=True), "en")
    for piece in split_text(text, 3000):
        renderer(TextDelta(piece))
    renderer.end_answer()
    assert sum(parsed) < 4 * len(text)
