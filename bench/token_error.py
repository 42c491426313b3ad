"""Token-count error of context_tokens against the server's prompt_tokens on the next request.

For each kind of content (Chinese, English, code, JSON; ~8k tokens each) and three situations:
  fresh      a new session (or one just compacted): no usage yet, everything is counted
  user text  after a turn: the newest usage plus the pending user message (the kind's text)
  tool result  mid-turn: read_file returns a file of that kind; the guard's estimate before the
             request that carries it
the agent's estimate is compared with the prompt_tokens the local server reports for that very
request (it counts with the DeepSeek tokenizer and DeepSeek's chat-template layout). Baseline:
the request's characters / 4. Error = (estimate - actual) / actual.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench import common  # noqa: E402

TARGET = 2.0  # percent


def samples() -> dict[str, tuple[str, str]]:
    """kind -> (text, file suffix). Real prose and code from the repo, padded with synthetic text."""
    import random

    from bench import synth

    gen = synth._Gen(11, "", 0)
    rng = random.Random(5)
    prompts = common.ROOT / "prompts"
    zh = "\n\n".join(p.read_text(encoding="utf-8") for p in sorted(prompts.glob("*.zh.md")))
    while len(zh) < 12_000:
        zh += "\n" + "".join(gen.sentence(True) for _ in range(6)) + rng.choice(synth.ZH_TOPICS) + rng.choice(
            synth.ZH_ISSUES) + "。"
    en = "\n\n".join(p.read_text(encoding="utf-8") for p in sorted(prompts.glob("*.en.md")))
    while len(en) < 36_000:
        en += "\n" + " ".join(gen.sentence(False) for _ in range(6))
    code = (common.ROOT / "compact.py").read_text(encoding="utf-8") + (common.ROOT / "agent" / "tokens.py").read_text(
        encoding="utf-8")
    data = gen.json_text(60)
    while len(data) < 24_000:
        data += "\n" + gen.json_text(30)
    return {"zh": (zh, "md"), "en": (en, "md"), "code": (code, "py"), "json": (data, "json")}


def chars_over_4(body: dict[str, Any]) -> float:
    from agent import tokens

    pieces = tokens.render_request(body.get("messages") or [], body.get("tools") or [])
    return sum(len(p) for p in pieces if isinstance(p, str)) / 4


async def measure(text: str, suffix: str) -> list[tuple[str, int, int, float]]:
    """[(situation, estimate, actual, chars/4)]"""
    from pydantic_ai.messages import ModelRequest, UserPromptPart

    import compact
    from agent import guard
    from main import on_submit

    out = []
    with common.workdir("tokerr-") as ws, common.server() as server:
        (ws / f"sample.{suffix}").write_text(text, encoding="utf-8")

        # fresh: nothing in the history has usage
        state = common.make_state(server.base_url, ws)
        pending = [ModelRequest(parts=[UserPromptPart(text)])]
        estimate = compact.context_tokens(state, pending)
        await on_submit(state, text)
        rec = server.requests[0]
        out.append(("fresh", estimate, rec["prompt_tokens"], chars_over_4(rec["body"])))

        # user text after a turn: usage anchor + the pending message
        state = common.make_state(server.base_url, ws)
        await on_submit(state, "hello")
        pending = [ModelRequest(parts=[UserPromptPart(text)])]
        estimate = compact.context_tokens(state, pending)
        index = len(server.requests)
        await on_submit(state, text)
        rec = server.requests[index]
        out.append(("user text", estimate, rec["prompt_tokens"], chars_over_4(rec["body"])))

        # tool result, mid-turn: what the guard estimates before the request carrying it
        seen: list[tuple[int, int]] = []
        original = guard.history_tokens

        def recording(st: Any, history: Any) -> int:
            value = original(st, history)
            seen.append((len(server.requests), value))
            return value

        guard.history_tokens = recording
        try:
            await on_submit(state, f"read sample.{suffix}")
        finally:
            guard.history_tokens = original
        index, estimate = seen[-1]
        rec = server.requests[index]
        assert rec["body"]["messages"][-1]["role"] == "tool", "the estimate must precede the tool-result request"
        out.append(("tool result", estimate, rec["prompt_tokens"], chars_over_4(rec["body"])))
    return out


async def run(quick: bool) -> None:
    report = common.Report("token_error: context_tokens vs the server's prompt_tokens")
    report.note((__doc__ or "").strip())
    rows = []
    worst: dict[str, tuple[float, float]] = {}
    for kind, (text, suffix) in samples().items():
        for situation, est, actual, naive in await measure(text, suffix):
            err, nerr = 100 * (est - actual) / actual, 100 * (naive - actual) / actual
            rows.append([kind, situation, actual, est, f"{err:+.3f}%", f"{naive:,.0f}", f"{nerr:+.1f}%"])
            w, nw = worst.get(kind, (0.0, 0.0))
            worst[kind] = (max(w, abs(err)), max(nw, abs(nerr)))
    report.table(["content", "situation", "server prompt_tokens", "context_tokens", "error", "chars/4",
                  "chars/4 error"], rows)
    for kind, (w, nw) in worst.items():
        report.figure(f"token_error_{kind}", round(w, 3), "%", f"<= {TARGET:g}%", w <= TARGET)
        report.figure(f"token_error_{kind}_chars_over_4", round(nw, 1), "%")
    report.finish()


if __name__ == "__main__":
    common.main(run, __doc__)
