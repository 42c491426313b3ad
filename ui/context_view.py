"""/context: what fills the window, as a bar and a table.

Counted part by part with our tokenizer (or the server's, agent.tokens.server_tokens), then scaled so
the parts add up to the gauge's figure, which trusts the server's count of the last request: one
screen never shows two totals (5,057 in the toolbar, 4,240 here, on llama.cpp).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text

from agent.compaction import fixed_prefix_tokens, head_end, threshold
from agent.marks import is_summary
from agent.state.pins import is_pins
from agent.text.i18n import t
from agent.tokens import count as tokens
from ui.approval import plain

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

    from agent.state.app import AppState

BAR_WIDTH = 50
COLOURS = {
    "fixed": "magenta",
    "mcpdefs": "bright_magenta",
    "summary": "cyan",
    "pins": "bright_white",
    "restored": "blue",
    "user": "green",
    "assistant": "yellow",
    "tool": "red",
}


def _restored(history: Sequence[ModelMessage]) -> set[int]:
    """Indexes of the file reads a compaction restored (agent.tools.mentions.read_messages): the run of
    them right after its head (agent.compaction.summary.head_end), or inside it in a session written
    before, told by their ids (mentions.stable_id): a read the model made that the compaction kept
    right after the head is not one of them."""
    from pydantic_ai.messages import ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart

    from agent.tools.mentions import stable_id

    found: set[int] = set()
    end = head_end(history)
    if not end:
        return found
    i = 1
    while i + 1 < len(history):
        if i < end and is_summary(history[i]):  # the user messages carried, the summary
            i += 1
            continue
        call, result = history[i], history[i + 1]
        if not (isinstance(call, ModelResponse) and isinstance(result, ModelRequest) and call.parts):
            break
        answers = {p.tool_call_id: p.content for p in result.parts if isinstance(p, ToolReturnPart)}
        if len(answers) != len(result.parts) or not all(
            isinstance(p, ToolCallPart)
            and p.tool_name == "read_file"
            and p.tool_call_id in answers
            and p.tool_call_id == stable_id(str(p.args_as_dict().get("path")), answers[p.tool_call_id])
            for p in call.parts
        ):
            break
        found.update((i, i + 1))
        i += 2
    return found


def breakdown(state: AppState) -> list[tuple[str, str, int]]:
    """(kind, tool name or "", tokens), biggest tool results first after the fixed kinds."""
    from pydantic_ai.messages import ModelRequest, ModelResponse, RetryPromptPart, ToolReturnPart

    history = state.history
    from agent.tools.mcp_servers import PREFIX, server_of

    sums: dict[tuple[str, str], int] = {("fixed", ""): fixed_prefix_tokens(state)}

    def add(kind: str, n: int, name: str = "") -> None:
        sums[(kind, name)] = sums.get((kind, name), 0) + n

    for server in state.mcp.servers.values():  # each server's tool definitions, apart from ours
        if server.state == "ready" and server.definition_tokens:
            add("mcpdefs", server.definition_tokens, f"{PREFIX}{server.name}")

    restored = _restored(history)
    for index, message in enumerate(history):
        if index in restored:
            add("restored", tokens.count_message(message))
        elif is_pins(message):
            add("pins", tokens.count_message(message))
        elif is_summary(message):
            add("summary", tokens.count_message(message))
        elif isinstance(message, ModelResponse):
            add("assistant", tokens.count_message(message))
        elif isinstance(message, ModelRequest):
            for part in message.parts:
                n = tokens.count_message(ModelRequest(parts=[part]))
                if isinstance(part, ToolReturnPart | RetryPromptPart) and getattr(part, "tool_name", None):
                    # An MCP server's results are shown by server (mcp__github), ours by tool.
                    server = server_of(part.tool_name)
                    add("tool", n, f"{PREFIX}{server}" if server else part.tool_name)
                else:  # the user's words (and retry prompts not tied to a tool)
                    add("user", n)
    order = ["fixed", "mcpdefs", "summary", "pins", "restored", "user", "assistant"]
    rows = [(k, name, n) for (k, name), n in sums.items() if k != "tool" and n]
    rows.sort(key=lambda r: order.index(r[0]))
    tools = sorted(((k, name, n) for (k, name), n in sums.items() if k == "tool"), key=lambda r: -r[2])
    return rows + tools


def scaled(rows: list[tuple[str, str, int]], total: int) -> list[tuple[str, str, int]]:
    """`rows` in proportion, summing to `total` exactly (largest remainders get the odd tokens)."""
    counted = sum(n for _k, _name, n in rows)
    if not counted or not total or counted == total:
        return rows
    shares = [n * total / counted for _k, _name, n in rows]
    whole = [int(s) for s in shares]
    by_remainder = sorted(range(len(rows)), key=lambda i: whole[i] - shares[i])
    for i in by_remainder[: total - sum(whole)]:
        whole[i] += 1
    return [(k, name, n) for (k, name, _n), n in zip(rows, whole, strict=True)]


def _label(kind: str, name: str, lang: str) -> str:
    # ctx_fixed, ctx_summary, ... ctx_free; a tool name is the model's (a session file keeps it).
    return t(f"ctx_{kind}", lang, name=plain(name))


def render(state: AppState) -> list[Text | Table]:
    from agent.compaction import context_tokens

    lang, window = state.lang, state.config.context_window
    rows = scaled(breakdown(state), context_tokens(state))
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
        table.add_row(
            Text("■ ", style=COLOURS[kind]) + Text(_label(kind, name, lang)),
            f"{n:,}",
            f"{100 * n / window:.1f}%" if window else "-",
        )
    free = max(0, window - used)
    table.add_row(Text("  " + _label("free", "", lang)), f"{free:,}", f"{100 * free / window:.1f}%" if window else "-")
    from ui.pin_commands import pin_lines

    return [head, table, *(Text(line) for line in pin_lines(state))]
