"""The emulator's stand-ins for the probe evaluation (bench/probe_eval.py): a summarizer, a reader of
its context, and a judge, each mechanical, so that what survives a compaction decides the scores.

- The summarizer (any request whose last user message asks for <analysis> and <summary>: ours and the
  seed's) lists the conversation's statements: user and assistant text, the calls made, the lines of
  tool results that report (errors, counts, test outcomes), not code. `keep` is the knob: the share of
  statements it keeps, spread over the conversation (1.0 keeps all, 0.2 drops four in five).
- The reader answers a probe question it knows (from bench/probe_sessions/*.toml, read here on its
  own) with the probe's facts that appear in what it was sent, and when one is missing, the outdated
  values that appear instead (a model that lost the change recalls the old value).
- The judge reads the reference facts, the outdated values and the candidate answer out of the judge
  prompt and scores the rubric's six dimensions from which facts the answer holds.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

from agent.tokens import count as tokens
from tests.fake_openai import FakeOpenAI
from tests.fake_replies import Text, smart_reply

SESSIONS = Path(__file__).resolve().parent.parent / "bench" / "probe_sessions"
# What a tool result's line must look like to be a statement: it reports, it is not code.
REPORTING = re.compile(
    r"error|failed|passed|traceback|refused|missing|rows|count|rss|\d+ (?:passed|failed)|=|错误", re.IGNORECASE
)
CODE_LINE = re.compile(r"^\s*\d+\t")
PATH_LIKE = re.compile(r"[/\\]|\.\w{1,5}$")


def text_of(content: Any) -> str:
    return "\n".join(tokens.content_texts(content))


def known_probes(folder: Path = SESSIONS) -> dict[str, dict[str, Any]]:
    """Question -> the probe as the session file writes it."""
    probes = {}
    for path in sorted(folder.glob("*.toml")):
        for probe in tomllib.loads(path.read_text(encoding="utf-8"))["probes"]:
            probes[probe["question"]] = probe
    return probes


def statements(messages: list[dict[str, Any]]) -> list[str]:
    out: list[str] = []
    for m in messages:
        role, text = m.get("role"), text_of(m.get("content"))
        if role in ("user", "assistant") and text.strip():
            out += [line.strip() for line in text.splitlines() if line.strip()]
        for call in m.get("tool_calls") or []:
            out.append(f"called {call['function']['name']} {called_on(call['function']['arguments'])}")
        if role == "tool":
            out += [
                line.strip()
                for line in text.splitlines()
                if line.strip() and not CODE_LINE.match(line) and REPORTING.search(line)
            ]
    return out


def called_on(arguments: str) -> str:
    """What a call was made on (a path, a command, a pattern), not the text it wrote."""
    try:
        args = json.loads(arguments or "{}")
    except ValueError:
        return ""
    return " ".join(str(args[k]) for k in ("path", "command", "pattern") if isinstance(args, dict) and k in args)


def summary(messages: list[dict[str, Any]], keep: float) -> Text:
    said = statements(messages[:-1])
    # Every statement i where the running share crosses a whole number: `keep` of them, spread evenly.
    kept = [s for i, s in enumerate(said) if int((i + 1) * keep) > int(i * keep)]
    body = "\n".join(f"- {s}" for s in kept)
    return Text(
        f"<analysis>draft</analysis>\n<summary>\n1. Primary Request and Intent:\n{body}\n"
        "6. Current Work and Next Step: as above\n</summary>",
        chunks=4,
    )


def answer(question: str, context: str, probe: dict[str, Any]) -> Text:
    seen = context.lower()
    found = [f for f in probe["facts"] if f.lower() in seen]
    if len(found) < len(probe["facts"]):
        found += [s for s in probe.get("stale", []) if s.lower() in seen]
    return Text("; ".join(found) if found else "I do not know.", chunks=2)


def section(prompt: str, title: str) -> str:
    """The text after `title` up to the next line in capitals ending with a colon."""
    match = re.search(re.escape(title) + r"\n(.*?)(?=\n[A-Z][A-Z ]+:|\Z)", prompt, re.DOTALL)
    return match.group(1) if match else ""


def judge(prompt: str) -> Text:
    facts = [line[2:].strip() for line in section(prompt, "REFERENCE FACTS:").splitlines() if line.startswith("- ")]
    stale = [line[2:].strip() for line in section(prompt, "OUTDATED VALUES:").splitlines() if line.startswith("- ")]
    exact = section(prompt, "EXACT ANSWER:").strip()
    candidate = section(prompt, "CANDIDATE ANSWER:").strip().removeprefix("<<<").removesuffix(">>>").lower()
    held = [f for f in facts if f.lower() in candidate]
    # The one right answer missing is a wrong answer, whatever else it holds.
    wrong = sum(1 for s in stale if s.lower() in candidate) + (exact != "(none)" and exact.lower() not in candidate)
    share = len(held) / len(facts) if facts else 0.0
    paths = [f for f in facts if PATH_LIKE.search(f)]
    path_share = sum(1 for f in paths if f in held) / len(paths) if paths else share

    def clamp(x: float) -> int:
        return max(0, min(5, round(x)))

    scores = {
        "accuracy": clamp(5 * share - 2 * wrong),
        "context_awareness": clamp(5 * share - 3 * wrong),
        "artifact_trail": clamp(5 * path_share),
        "completeness": clamp(5 * share) if len(held) < len(facts) else 5,
        "continuity": clamp(5 * share - wrong),
        "instruction_following": 5 if candidate and "i do not know" not in candidate else 2,
    }
    return Text(json.dumps({**scores, "reason": f"{len(held)} of {len(facts)} facts, {wrong} outdated"}))


class ProbeEmulator(FakeOpenAI):
    """The emulator with the three stand-ins; anything else is the emulator's usual answer."""

    def __init__(self, keep: float = 1.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.keep, self.probes = keep, known_probes()

    def _next_reply(self, body: dict[str, Any]) -> Any:
        messages = body.get("messages") or []
        last = text_of(messages[-1].get("content")) if messages and messages[-1].get("role") == "user" else ""
        if "CANDIDATE ANSWER:" in last and "REFERENCE FACTS:" in last:
            return judge(last)
        if "<analysis>" in last and "<summary>" in last:
            return summary(messages, self.keep)
        question = next((q for q in self.probes if q in last), None)
        if question is not None:
            context = "\n".join(
                text_of(m.get("content")) + json.dumps(m.get("tool_calls") or "", ensure_ascii=False)
                for m in messages[:-1]
                if m.get("role") != "system"
            )
            return answer(question, context, self.probes[question])
        return super()._next_reply(body) if self.pending else smart_reply(body)
