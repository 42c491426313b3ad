"""Issue 20, case 5: a summary request is the last request as sent plus the compaction prompt, so
the provider serves it from its cache; what came after that request (a big mid-turn read) is kept
out of it and follows the summary, cut to fit with a note when it is too large."""

from __future__ import annotations

from agent.events import CompactionFinished
from main import on_submit
from tests.builders import SUMMARY, chat, is_compaction, note
from tests.fake_openai import Text, ToolCalls

WINDOW = 32_000


def _code(name: str, lines: int) -> str:
    return "".join(
        f"def {name}_{n}(value):  # step {n} of the {name} module\n    return value + {n}\n" for n in range(lines)
    )


async def test_a_mid_turn_read_past_the_request_limit_keeps_the_summary_cached(make_state, workspace, server):
    server.max_context = WINDOW
    state = make_state(context_window=WINDOW, cheap_tier="off")
    for name in ("a", "b"):
        (workspace / f"{name}.py").write_text(_code(name, 400))
    await chat(state, [note(i, 380) for i in range(6)])  # ~19.7k tokens, under the threshold
    turn = [ToolCalls([("read_file", {"path": "a.py"}), ("read_file", {"path": "b.py"})]), Text("Both read.")]

    def reply(body):
        if is_compaction(body):
            return Text(SUMMARY)
        return turn.pop(0) if turn else Text("ok")

    server.script(*([reply] * 50))
    await on_submit(state, "read a.py and b.py together")
    summaries = [r for r in server.requests if is_compaction(r["body"]) and r.get("billed")]
    assert summaries and state.emit.of(CompactionFinished)
    for r in summaries:
        assert r["cache_hit_tokens"] / r["prompt_tokens"] >= 0.9, (r["cache_hit_tokens"], r["prompt_tokens"])
    # The reads came after the last request: they follow the summary (cut to fit, with the note).
    texts = "\n".join(str(getattr(p, "content", "")) for m in state.history for p in m.parts)
    assert "def a_0(value)" in texts and "def b_0(value)" in texts
    assert "read a.py and b.py together" in texts
    assert state.history[-1].parts[-1].content == "Both read."
    assert all(r["prompt_tokens"] <= WINDOW for r in server.requests if r.get("billed"))


async def test_the_request_after_a_compaction_shares_its_start_with_the_last_one(make_state, workspace, server):
    """Case 7: the summary message puts what changes least first (the user's messages verbatim,
    oldest first) and the summary last, so the request after the next compaction is served from
    the cache past the instructions and tools."""
    import compact
    from agent.compaction.watermark import fixed_prefix_tokens
    from tests.builders import long_answer, responder, script_forever

    state = make_state()
    script_forever(
        server,
        responder(
            [long_answer(n) for n in range(8)],
            summary=lambda body: (
                f"<summary>1. SUMMARY of {len(body['messages'])} messages, "
                + "the work so far in detail " * 60
                + "\n6. ok</summary>"
            ),
        ),
    )
    asks = ["build the parser for the config files", "use tabs, not spaces", "and keep the comments"]
    for text in asks:
        await on_submit(state, text + ": " + "every section, key and value must round-trip exactly " * 12)
    await compact.run_compact(state)
    await on_submit(state, "now the lexer")  # the request after the first compaction: cached from now on
    await on_submit(state, "and its tests")
    await compact.run_compact(state)
    await on_submit(state, "go on")
    after = [r for r in server.requests if not is_compaction(r["body"])][-1]
    # Past the fixed prefix: the summary message's start (its fixed line, the user's messages).
    assert after["cache_hit_tokens"] >= fixed_prefix_tokens(state) + 256, after["cache_hit_tokens"]
