"""The probe evaluation (bench/probe_eval.py) can fail: on the emulator, whose summarizer keeps a set
share of what was said and whose judge scores only which reference facts an answer holds
(tests/fake_probe.py), a summarizer that drops facts scores measurably lower than one that keeps them,
through the real compaction (compact.run_compact) and the real openai client over HTTP."""

from __future__ import annotations

import os

import pytest

from tests.fake_probe import ProbeEmulator, judge

# What importing the bench sets for its own processes (no retries, no keys): undone after each test.
BENCH_ENV = (
    "CODING_AGENT_MAX_RETRIES",
    "CODING_AGENT_TIMEOUT",
    "PYDANTIC_AI_NO_BANNER",
    "API_KEY",
    "DEEPSEEK_API_KEY",
    "OPENAI_API_KEY",
)


@pytest.fixture
def bench(monkeypatch):
    from pydantic_ai import models

    for name in BENCH_ENV:
        if name in os.environ:
            monkeypatch.setenv(name, os.environ[name])
        else:
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(models, "ALLOW_MODEL_REQUESTS", True)
    from bench import probe_eval

    return probe_eval


def test_the_sessions_are_eight_or_more_in_both_languages_with_every_kind_of_probe(bench):
    from bench.probe_load import KINDS, all_sessions

    sessions = all_sessions()
    assert len(sessions) >= 8
    assert {s.lang for s in sessions} == {"en", "zh"}
    questions = [p.question for s in sessions for p in s.probes]
    assert len(set(questions)) == len(questions)  # the emulator's reader knows a probe by its question
    for s in sessions:
        assert {p.kind for p in s.probes} == set(KINDS), s.name
        assert any(p.answer for p in s.probes), s.name  # something scored exactly
        assert s.reads and len(s.files) >= 2, s.name  # several files, some read (what a compaction restores)


async def test_a_summarizer_that_drops_facts_scores_lower_than_one_that_keeps_them(bench):
    from bench.probe_load import all_sessions

    sessions = all_sessions(["en-retry-backoff", "zh-pagination"])
    with ProbeEmulator(keep=1.0, model="deepseek-flash") as server:
        kept = await bench.evaluate(server.base_url, "deepseek-flash", "deepseek-flash", sessions, ["ours", "none"])
        server.keep = 0.2
        dropped = await bench.evaluate(server.base_url, "deepseek-flash", "deepseek-flash", sessions, ["ours"])
        summaries = [r for r in server.requests if "<analysis>" in str(r["body"]["messages"][-1].get("content"))]
    ours = [r for r in kept if r.strategy == "ours"]
    assert len(summaries) == 4 and not any(r.compressed.error for r in ours + dropped)
    assert all(r.compressed.after < r.compressed.before for r in ours + dropped)  # compacted, for real
    assert all(r.grade.scores is not None for r in kept + dropped)  # the judge's replies were read
    whole, faithful, lossy = (
        bench.overall([r for r in kept if r.strategy == "none"]),
        bench.overall(ours),
        bench.overall(dropped),
    )
    assert whole == 5.0 and faithful >= 4.5, (whole, faithful)
    assert faithful - lossy >= 0.75, (faithful, lossy)
    exact = [sum(bool(r.grade.exact) for r in rows) for rows in (ours, dropped)]
    assert exact[0] > exact[1], exact


def test_the_emulators_judge_scores_the_facts_an_answer_holds(bench):
    from bench.probe_judge import DIMENSIONS, judge_prompt, read_scores
    from bench.probe_load import Probe

    probe = Probe(
        "decision",
        "What backoff cap did we settle on, and where?",
        ["30", "client/retry.py"],
        answer="30",
        stale=["60"],
    )

    def scores(answer: str) -> dict[str, float]:
        got, _ = read_scores(judge(judge_prompt(probe, answer)).content)
        assert got is not None
        return got

    right, half, old = scores("30 s, in client/retry.py"), scores("30 seconds"), scores("60, client/retry.py")
    assert all(right[d] == 5 for d in DIMENSIONS)
    assert half["accuracy"] < right["accuracy"] and half["artifact_trail"] == 0
    assert scores("client/retry.py")["accuracy"] <= 1  # the one right answer missing
    assert old["context_awareness"] < half["context_awareness"] and old["accuracy"] <= 1
    assert scores("I do not know.")["instruction_following"] < 5


def test_the_judges_reply_is_read_whatever_surrounds_it_and_unreadable_is_not_zero(bench):
    from bench.probe_judge import exact, read_scores
    from bench.probe_load import Probe

    reply = (
        'Sure. {"note": 1} then {"accuracy": "4", "context_awareness": 9, "artifact_trail": 3, '
        '"completeness": 2, "continuity": -1, "instruction_following": 5, "reason": "ok"} done'
    )
    scores, reason = read_scores(reply)
    assert (
        scores
        == {
            "accuracy": 4,
            "context_awareness": 5,
            "artifact_trail": 3,
            "completeness": 2,
            "continuity": 0,
            "instruction_following": 5,
        }
        and reason == "ok"
    )
    assert read_scores("accuracy: 4/5")[0] is None
    probe = Probe("decision", "q", ["三个月"], answer="三个月")
    assert exact(probe, "保留 三个月 兼容期") and not exact(probe, "两个月")
    assert exact(Probe("recall", "q", ["x"]), "x") is None
