"""The probe evaluation's judge: the rubric prompt (bench/probe_prompts/judge.md), its reply read as
six scores from 0 to 5, and the exact check of a probe that has one right answer.

The judge is a model (`--judge-model`), asked without tools. A reply that holds no JSON object with
the six scores counts as unscored (reported), not as zeros: a judge's bad format is not the
summary's fault.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.probe_load import Probe

PROMPTS = Path(__file__).resolve().parent / "probe_prompts"
DIMENSIONS = ("accuracy", "context_awareness", "artifact_trail", "completeness", "continuity", "instruction_following")


def prompt_text(name: str) -> str:
    return (PROMPTS / name).read_text(encoding="utf-8")


@dataclass
class Grade:
    scores: dict[str, float] | None  # None: the judge's reply was not readable
    exact: bool | None  # None: the probe has no single right answer
    reason: str = ""

    @property
    def overall(self) -> float | None:
        return sum(self.scores.values()) / len(self.scores) if self.scores else None


def judge_prompt(probe: Probe, answer: str) -> str:
    def listed(items: list[str]) -> str:
        return "\n".join(f"- {item}" for item in items) or "(none)"

    return prompt_text("judge.md").format(
        kind=probe.kind,
        question=probe.question,
        facts=listed(probe.facts),
        stale=listed(probe.stale),
        exact=probe.answer or "(none)",
        answer=answer.strip(),
    )


def number(value: Any) -> float | None:
    """A score as a judge writes it: 4, 4.5 or "4"."""
    if isinstance(value, bool):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def read_scores(reply: str) -> tuple[dict[str, float] | None, str]:
    """The six scores of the first JSON object in `reply` that has them all, clamped to 0..5."""
    decoder = json.JSONDecoder()
    for match in re.finditer(r"\{", reply):
        try:
            value, _ = decoder.raw_decode(reply[match.start() :])
        except ValueError:
            continue
        if isinstance(value, dict) and all(number(value.get(d)) is not None for d in DIMENSIONS):
            scores = {d: max(0.0, min(5.0, number(value[d]) or 0.0)) for d in DIMENSIONS}
            return scores, str(value.get("reason", ""))[:200]
    return None, reply.strip()[:200]


def normal(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).lower().split())


def exact(probe: Probe, answer: str) -> bool | None:
    """Whether the answer holds the one right answer (case, width and spacing aside)."""
    if not probe.answer:
        return None
    return normal(probe.answer) in normal(answer)


async def grade(judge: Any, probe: Probe, answer: str) -> Grade:
    """`judge`: a tool-less pydantic-ai Agent on the judge model."""
    result = await judge.run(judge_prompt(probe, answer))
    scores, reason = read_scores(result.output)
    return Grade(scores, exact(probe, answer), reason)
