"""The four ways the probe evaluation compresses a recorded session, each through its real path:

  ours    /compact: the agent's own compaction (compact.run_compact: plan, one summary request with
          the turn's prefix, commit), the summary message, the user's messages, the restored files
  cheap   the cheap tier alone: old tool results cleared (agent.compaction.cheap_tier at the
          window's threshold), no summary
  seed    the original design's separate summarizer: an agent without tools asked the design's
          prompt over the whole history, its summary in the design's wrapper, then the files read
          most recently (up to 5), re-read from disk
  none    no compaction: the whole session

Each gets a fresh workspace holding the session's files, the session written to its file, and the
session's reads recorded (what a compaction restores from).
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench import common
from bench.probe_judge import prompt_text
from bench.probe_load import Session

STRATEGIES = ("ours", "cheap", "seed", "none")
SEED_FILES = 5


@dataclass
class Compressed:
    history: list[Any]
    before: int  # tokens of the request the session makes, by our count
    after: int
    error: str = ""  # the compaction failed: the history is the session's, scored as it is


def prepare(base_url: str, model: str, api_key: str | None, session: Session, ws: Path, window: int) -> Any:
    import session as session_file
    from agent.state.transcript import Transcript

    for path, text in session.files.items():
        (ws / path).parent.mkdir(parents=True, exist_ok=True)
        (ws / path).write_text(text, encoding="utf-8")
    state = common.make_state(base_url, ws, window, model=model, lang=session.lang)
    state.config.api_key = api_key
    messages = copy.deepcopy(session.messages)
    session_file.rewrite_messages(state.session_id, messages, ws)
    state.transcript = Transcript(state.session_id, ws, messages)
    for path in session.reads:
        state.read_file_state.record(ws / path)
    return state


def seed_summary(text: str) -> str:
    """The design's extract_summary: <analysis> dropped, <summary> taken, stray tags removed."""
    text = re.sub(r"<analysis>.*?</analysis>", "", text, flags=re.DOTALL)
    match = re.search(r"<summary>(.*?)</summary>", text, re.DOTALL)
    return re.sub(r"</?(analysis|summary)>", "", match.group(1) if match else text).strip()


def bare_agent(state: Any, instructions: str | None = None, max_tokens: int | None = None) -> Any:
    """An agent on the state's model and settings, without tools; `max_tokens` caps its answers."""
    from pydantic_ai import Agent

    from agent.turn.loop import get_agent

    agent = get_agent(state)
    settings = {**(agent.model_settings or {}), **({"max_tokens": max_tokens} if max_tokens else {})}
    return Agent(agent.model, model_settings=settings, instructions=instructions)


async def seed(state: Any) -> list[Any]:
    from pydantic_ai.messages import ModelRequest, UserPromptPart

    import session as session_file
    from agent.state.file_state import ReadFileState
    from agent.tools.mentions import build_mention_messages

    lang, history = state.lang, list(state.history)
    result = await bare_agent(state).run(prompt_text(f"seed_compact.{lang}.md"), message_history=history)
    summary = seed_summary(result.output)
    if not summary:
        raise ValueError("empty summary")
    archive = session_file.archive_session(state.session_id, state.workspace)
    paths = [str(p) for p in state.read_file_state.paths()[-SEED_FILES:]]
    restored, _ = build_mention_messages(paths, state, ReadFileState())
    head = ModelRequest(
        parts=[UserPromptPart(prompt_text(f"seed_wrapper.{lang}.md").format(summary=summary, transcript=archive))]
    )
    return [head, *restored]


async def compress(name: str, state: Any) -> Compressed:
    import compact
    from agent import compaction

    figs = compaction.figures(state)
    history = list(state.history)
    before = figs.count(history)
    try:
        if name == "ours":
            await compact.run_compact(state)
            history = list(state.history)
        elif name == "cheap":
            history, _ = compaction.cheap_tier(history, figs.threshold)
        elif name == "seed":
            history = await seed(state)
        elif name != "none":
            raise ValueError(f"unknown strategy {name!r}")
    except Exception as exc:  # a compaction that fails leaves the session: scored so, and said
        return Compressed(list(state.history), before, before, f"{type(exc).__name__}: {exc}"[:200])
    return Compressed(history, before, figs.count(history))


async def ask(state: Any, history: list[Any], question: str, max_tokens: int | None = None) -> str:
    """The probe as the next user message after the compressed history, answered without tools."""
    from agent.turn.loop import instructions

    result = await bare_agent(state, instructions(state), max_tokens).run(
        prompt_text(f"probe.{state.lang}.md").format(question=question), message_history=history
    )
    return result.output
