"""The last turns of a resumed session (--continue, --resume, /resume), drawn before the prompt as Claude
Code shows the conversation it picks up: the user's message, the tools called, the start of the answer."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.text import Text

from agent.text.i18n import t
from agent.text.visible import plain
from agent.turn.rewind import turns_of
from ui.tool_line import tool_line

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

    from agent.state.app import AppState

SHOWN_TURNS = 3
MESSAGE_LINES = 3  # of the user's message
ANSWER_LINES = 4  # of the model's last answer in the turn
LINE_MAX = 160


def resumed_lines(state: AppState) -> list[Text]:
    history, lang = state.history, state.lang
    turns = turns_of(history, None)
    if not turns:  # a history that is only a summary
        return [Text(t("resumed", lang, n=len(history)), style="dim")]
    shown = turns[-SHOWN_TURNS:]
    out = [Text(t("resumed_turns", lang, n=len(history), shown=len(shown), turns=len(turns)), style="dim")]
    if len(turns) > len(shown):
        out.append(Text(t("resumed_more", lang, n=len(turns) - len(shown)), style="dim"))
    for k, turn in enumerate(shown):
        end = shown[k + 1].index if k + 1 < len(shown) else len(history)
        out += _turn_lines(turn.text, history[turn.index + 1 : end])
    return out


def _turn_lines(message: str, rest: Sequence[ModelMessage]) -> list[Text]:
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart

    out = [Text("> " + line, style="bold") for line in _first_lines(message, MESSAGE_LINES)]
    answer = ""
    for response in (m for m in rest if isinstance(m, ModelResponse)):
        for part in response.parts:
            if isinstance(part, ToolCallPart):
                out.append(tool_line(part.tool_name, part.args_as_dict(), indent="  "))
        texts = [p.content for p in response.parts if isinstance(p, TextPart) and p.content.strip()]
        answer = "\n".join(texts) or answer
    out += [Text("  " + line, style="dim") for line in _first_lines(answer, ANSWER_LINES)]
    return out


def _first_lines(text: str, n: int) -> list[str]:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    shown = [_one_line(line) for line in lines[:n]]
    if len(lines) > n:
        shown[-1] += " …"
    return shown


def _one_line(text: str) -> str:
    line = plain(text.replace("\n", "↵"))
    return line if len(line) <= LINE_MAX else line[: LINE_MAX - 1] + "…"
