"""/context: what fills the window, as a bar and a table.

Counted with the DeepSeek tokenizer part by part, so the shares add up; the total can differ a
little from the gauge, which trusts the provider's count of the last request.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text

from agent.compaction.context import fixed_prefix_tokens, threshold
from agent.compaction.summary import is_summary
from agent.text.i18n import t
from agent.tokens import count as tokens

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

    from agent.state.app import AppState

BAR_WIDTH = 50
COLOURS = {"fixed": "magenta", "summary": "cyan", "restored": "blue", "user": "green", "assistant": "yellow",
           "tool": "red"}


def _restored(history: Sequence[ModelMessage]) -> set[int]:
    """Indexes of the file reads a compaction put right after its summary (agent.tools.mentions.read_messages)."""
    from pydantic_ai.messages import ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart

    found: set[int] = set()
    if not history or not is_summary(history[0]):
        return found
    i = 1
    while i + 1 < len(history):
        call, result = history[i], history[i + 1]
        if not (isinstance(call, ModelResponse) and call.parts and all(
                isinstance(p, ToolCallPart) and p.tool_name == "read_file" for p in call.parts)):
            break
        if not (isinstance(result, ModelRequest) and all(isinstance(p, ToolReturnPart) for p in result.parts)):
            break
        found.update((i, i + 1))
        i += 2
    return found


def breakdown(state: AppState) -> list[tuple[str, str, int]]:
    """(kind, tool name or "", tokens), biggest tool results first after the fixed kinds."""
    from pydantic_ai.messages import ModelRequest, ModelResponse, RetryPromptPart, ToolReturnPart

    history = state.history
    sums: dict[tuple[str, str], int] = {("fixed", ""): fixed_prefix_tokens(state)}

    def add(kind: str, n: int, name: str = "") -> None:
        sums[(kind, name)] = sums.get((kind, name), 0) + n

    restored = _restored(history)
    for index, message in enumerate(history):
        if index in restored:
            add("restored", tokens.count_message(message))
        elif is_summary(message):
            add("summary", tokens.count_message(message))
        elif isinstance(message, ModelResponse):
            add("assistant", tokens.count_message(message))
        elif isinstance(message, ModelRequest):
            for part in message.parts:
                n = tokens.count_message(ModelRequest(parts=[part]))
                if isinstance(part, ToolReturnPart | RetryPromptPart) and getattr(part, "tool_name", None):
                    add("tool", n, part.tool_name)
                else:  # the user's words (and retry prompts not tied to a tool)
                    add("user", n)
    order = ["fixed", "summary", "restored", "user", "assistant"]
    rows = [(k, name, n) for (k, name), n in sums.items() if k != "tool" and n]
    rows.sort(key=lambda r: order.index(r[0]))
    tools = sorted(((k, name, n) for (k, name), n in sums.items() if k == "tool"), key=lambda r: -r[2])
    return rows + tools


def _label(kind: str, name: str, lang: str) -> str:
    return t(f"ctx_{kind}", lang, name=name)  # ctx_fixed, ctx_summary, ... ctx_free


def render(state: AppState) -> list[Text | Table]:
    lang, window = state.lang, state.config.context_window
    rows = breakdown(state)
    used = sum(n for _k, _name, n in rows)
    limit = threshold(state)
    bar = Text("[")
    cells = 0
    for kind, _name, n in rows:
        width = min(BAR_WIDTH - cells, round(BAR_WIDTH * n / window)) if window else 0
        bar.append("█" * width, style=COLOURS[kind])
        cells += width
    mark = min(BAR_WIDTH - 1, round(BAR_WIDTH * limit / window)) if window else 0
    for i in range(cells, BAR_WIDTH):
        bar.append("|" if i == mark else "·", style="dim")
    bar.append("]")
    head = Text(t("ctx_head", lang, used=used, window=window, pct=100 * used / window if window else 0, limit=limit))
    head.append_text(bar)
    table = Table(show_edge=False, pad_edge=False, box=None)
    table.add_column("")
    table.add_column(t("ctx_tokens_column", lang), justify="right")
    table.add_column(t("ctx_share_column", lang), justify="right")
    for kind, name, n in rows:
        table.add_row(Text("■ ", style=COLOURS[kind]) + Text(_label(kind, name, lang)), f"{n:,}",
                      f"{100 * n / window:.1f}%" if window else "-")
    free = max(0, window - used)
    table.add_row(Text("  " + _label("free", "", lang)), f"{free:,}", f"{100 * free / window:.1f}%" if window else "-")
    return [head, table]
