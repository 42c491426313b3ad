"""The fuzzer's own parts: the oracle flags what it must (so the sweep can fail), sessions are the
same for the same seed, the figures add up."""

from __future__ import annotations

from tests.fuzz.figures import growth_floor
from tests.fuzz.oracle import Oracle
from tests.fuzz.plan import generate
from tests.fuzz.requests import is_summary_request, normal, presence

SYSTEM = {"role": "system", "content": "You are an agent."}
PROMPT = {"role": "user", "content": "Summarize. Answer with <analysis>...</analysis> then <summary>...</summary>."}
CALL = {"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": '{"path": "a.md"}'}}


def _user(text: str) -> dict:
    return {"role": "user", "content": text}


def _seen(oracle: Oracle, messages: list[dict], counted: int = 100) -> dict:
    record = {"counted": counted}
    oracle.see(record, {"messages": messages})
    return record


def test_presence_whole_cut_and_missing():
    message = normal("Please read the parser and tell me why the header is read twice (#3)")
    assert presence(message, f"x {message} y") == "whole"
    assert presence(message, message[:30] + " [... 40 characters cut ...] more") == "cut"
    assert presence(message, message[:30] + " [……截去 40 个字符……]") == "cut"
    assert presence(message, message[:30] + " and then something else") is None
    assert presence(message, message[:6] + " [... 60 characters cut ...]") is None  # too little left to tell
    assert presence(message, message[:30] + " [see 4 files]") is None  # a bracket, but no cut


def _archive(path, *texts: str) -> str:
    import json

    path.write_text("".join(json.dumps({"parts": [{"content": t}]}, ensure_ascii=False) + "\n" for t in texts))
    return str(path)


def test_a_message_in_a_transcript_the_request_points_to_is_archived_not_lost(tmp_path):
    """Earlier messages may go to the transcripts, followed from the request as the model would read
    them (one archive naming the next); a message in none of them is lost, and so is the message of
    this very input, wherever it is."""
    first = _archive(tmp_path / "a1.jsonl", "oldest question about the parser (#1)", "fifth (#5)")
    second = _archive(
        tmp_path / "a2.jsonl",
        f"[1 earlier message was left out; it is in {first}]",
        "second question about the lock (#2)",
    )
    oracle = Oracle(window=1000)
    typed = [
        "oldest question about the parser (#1)",
        "second question about the lock (#2)",
        "third question about the cache (#3)",
        "fourth question about the tests (#4)",
    ]
    for step, text in enumerate(typed[:3]):
        oracle.begin(step, text, {})
        _seen(oracle, [SYSTEM, *(_user(t) for t in typed[: step + 1])])
        oracle.end("")
    oracle.begin(3, typed[3], {})
    _seen(
        oracle,
        [SYSTEM, _user(f"[2 earlier messages left out; the transcript is {second}]"), _user(typed[2]), _user(typed[3])],
    )
    assert oracle.violations["user_messages"] == 0 and oracle.archived == {0, 1}
    oracle.begin(4, "fifth (#5)", {})
    _seen(oracle, [SYSTEM, _user(f"[the transcript is {first}]"), _user(typed[1]), _user(typed[3])])
    # #3 is in no transcript reachable from here; #5, this input's, is in one but not in its request.
    assert oracle.violations["user_messages"] == 2, oracle.examples
    assert any("step 2" in e for e in oracle.examples["user_messages"]), oracle.examples


def test_a_missing_message_is_flagged_once_and_an_interrupted_one_apart():
    oracle = Oracle(window=1000)
    oracle.begin(0, "first question about the parser (#1)", {})
    _seen(oracle, [SYSTEM, _user("first question about the parser (#1)")])
    oracle.end("")
    oracle.begin(1, "second question about the lock (#2)", {})
    oracle.interrupted()
    oracle.end("")
    oracle.begin(2, "third question about the cache (#3)", {})
    for _ in range(2):
        _seen(oracle, [SYSTEM, _user("third question about the cache (#3)")])
    assert oracle.violations["user_messages"] == 1 and oracle.violations["interrupted_messages"] == 1
    assert "step 0" in oracle.examples["user_messages"][0]


def test_window_pairing_and_summary_without_conversation():
    oracle = Oracle(window=1000)
    oracle.begin(0, "look at a.md please (#1)", {})
    call = {"role": "assistant", "content": "", "tool_calls": [CALL]}
    _seen(oracle, [SYSTEM, _user("look at a.md please (#1)"), call], counted=1001)
    summary = _seen(oracle, [SYSTEM, {"role": "assistant", "content": "a long answer"}, PROMPT])
    assert summary["kind"] == "summary" and is_summary_request({"messages": [PROMPT]})
    assert oracle.violations["over_window"] == 1 and oracle.violations["tool_pairing"] == 1
    assert oracle.violations["summary_without_conversation"] == 1
    _seen(oracle, [SYSTEM, _user("look at a.md please (#1)"), PROMPT])
    assert oracle.violations["summary_without_conversation"] == 1  # this one holds the conversation


def test_an_attachment_must_be_in_its_turn_unless_the_user_was_told():
    first = "L1 the parser reads the header"
    for told, flagged in (("", 1), ("a.md is too large to attach", 0)):
        oracle = Oracle(window=1000)
        oracle.begin(0, "see @a.md (#1)", {"a.md": first})
        _seen(oracle, [SYSTEM, _user("see @a.md (#1)")])
        oracle.end(told)
        assert oracle.violations["attachments"] == flagged
    oracle = Oracle(window=1000)
    oracle.begin(0, "see @a.md (#1)", {"a.md": first})
    _seen(
        oracle,
        [
            SYSTEM,
            {"role": "assistant", "content": None, "tool_calls": [CALL]},
            {"role": "tool", "tool_call_id": "c1", "content": f"     1\t{first}"},
            _user("see @a.md (#1)"),
        ],
    )
    oracle.end("")
    assert oracle.violations["attachments"] == 0


def test_a_seed_makes_the_same_session_and_sizes_follow_the_window():
    a, b = generate(7, 8192, 40), generate(7, 8192, 40)
    assert [s.text for s in a.steps] == [s.text for s in b.steps] and a.files == b.files
    assert a.turns == 40 and generate(8, 8192, 40).files != a.files
    kinds = {s.kind for s in generate(3, 16384, 200).steps}
    assert kinds >= {"chat", "read", "reread", "edit", "answer", "mention", "paste", "compact", "undo", "continue"}
    big = max(len(t) for t in generate(3, 1_000_000, 10).files.values())
    assert big > 10 * max(len(t) for t in generate(3, 4096, 10).files.values())


def test_growth_floor():
    assert growth_floor([100, 150, 120, 200]) == 100 + 50 + 80
    assert growth_floor([]) == 0


def test_the_oracle_does_not_import_the_agent():
    """It must not agree with the agent by construction: no token counting, no keep-rules of ours."""
    import ast
    from pathlib import Path

    here = Path(__file__).parent
    for name in ("oracle.py", "requests.py"):
        tree = ast.parse((here / name).read_text(encoding="utf-8"))
        imported = {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        assert not {m for m in imported if m.split(".")[0] in ("agent", "compact", "main", "session")}


def test_a_message_never_sent_is_declined_if_the_user_was_told_and_lost_if_not():
    for told, lost in (("too large to send", 0), ("", 1)):
        oracle = Oracle(window=1000)
        oracle.begin(0, "a message the agent refused (#1)", {})
        oracle.end(told)
        oracle.begin(1, "the next one (#2)", {})
        _seen(oracle, [SYSTEM, _user("the next one (#2)")])
        assert oracle.violations["user_messages"] == lost and oracle.declined == 1 - lost


def test_a_late_request_of_an_interrupted_turn_is_not_taken_for_the_next_one():
    oracle = Oracle(window=1000)
    oracle.begin(0, "first message (#1)", {})
    oracle.interrupted()
    oracle.end("")
    oracle.begin(1, "second message (#2)", {})
    _seen(oracle, [SYSTEM, _user("first message (#1)")])  # sent before Ctrl-C, arrived after
    assert oracle.violations["user_messages"] == 0
    _seen(oracle, [SYSTEM, _user("first message (#1)"), _user("second message (#2)")])
    _seen(oracle, [SYSTEM, _user("first message (#1)")])  # the new message lost: flagged now
    assert oracle.violations["user_messages"] == 1


def test_a_reread_note_needs_its_read_above_it():
    from agent.text.i18n import t

    note = t("read_unchanged", "en", path="a.md")
    second = {**CALL, "id": "c2", "function": {"name": "read_file", "arguments": '{"path":"a.md"}'}}

    def request(first_answer: str) -> list[dict]:
        return [
            SYSTEM,
            _user("read a.md"),
            {"role": "assistant", "tool_calls": [CALL]},
            {"role": "tool", "tool_call_id": "c1", "content": first_answer},
            {"role": "assistant", "tool_calls": [second]},
            {"role": "tool", "tool_call_id": "c2", "content": note},
        ]

    oracle = Oracle(window=10_000)
    oracle.begin(0, "read a.md", {})
    _seen(oracle, request("     1\t# A"))
    assert oracle.violations["reference_without_read"] == 0
    _seen(oracle, request('[Old tool result cleared to save context: read_file(path="a.md").]'))
    assert oracle.violations["reference_without_read"] == 1
