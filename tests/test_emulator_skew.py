"""Issue 20: the emulator can count off the agent by construction, evicts old prefixes like a real
provider, and records every request it saw (what the fuzzer's oracle reads)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import openai
import pytest

from tests.deepseek_template import USER, Skew, counter, render
from tests.fake_openai import FakeOpenAI
from tests.prefix_cache import PrefixCache

ROOT = Path(__file__).resolve().parent.parent
MODEL = "deepseek-v4-flash"
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "description": "Read a file. " * 40,
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
        },
    }
]
PROSE = "The parser reads the header first and then every record in order. " * 40
CHINESE = "解析器先读取文件头，然后按顺序读取每一条记录，最后把结果写回磁盘。" * 40
CODE = "".join(f"    value_{i} = compute(item, {i})  # step {i}\n" for i in range(150))


def _client(srv: FakeOpenAI) -> openai.OpenAI:
    return openai.OpenAI(base_url=srv.base_url, api_key="k", max_retries=0)


def _counts(skew: Skew | None, **body: object) -> int:
    with FakeOpenAI(skew=skew) as srv:
        _client(srv).chat.completions.create(model=MODEL, **body)
        return srv.last_request["prompt_tokens"]


@pytest.mark.parametrize(
    "kind, body, share",
    [
        (
            "system and tools",
            {"messages": [{"role": "system", "content": PROSE}, {"role": "user", "content": "hi"}], "tools": TOOLS},
            0.15,
        ),
        ("CJK", {"messages": [{"role": "user", "content": CHINESE}]}, 0.10),
        ("code", {"messages": [{"role": "user", "content": CODE}]}, -0.05),
    ],
)
def test_skewed_counts_move_by_the_share_of_each_kind(kind, body, share):
    plain, skewed = _counts(None, **body), _counts(Skew(), **body)
    # Unskewed: our DeepSeek-style rendering (tests/deepseek_template.py), DeepSeek's tokens.
    assert plain == counter().count(render({"model": MODEL, **body}))
    assert skewed / plain == pytest.approx(1 + share, abs=0.02), kind


def test_english_prose_in_a_turn_is_not_skewed():
    body = {"messages": [{"role": "user", "content": PROSE}]}
    assert _counts(Skew(), **body) == _counts(None, **body)


def test_the_window_check_uses_the_skewed_count():
    body = [{"role": "user", "content": CHINESE}]
    plain = _counts(None, messages=body)
    with FakeOpenAI(skew=Skew(), max_context=plain + 1) as srv:  # fits by DeepSeek's own count
        with pytest.raises(openai.BadRequestError) as info:
            _client(srv).chat.completions.create(model=MODEL, messages=body)
        record = srv.last_request
    assert "maximum context length" in str(info.value)
    assert record["status"] == 400 and record["counted"] > plain + 1 and "maximum context length" in record["error"]


def test_a_skewed_prefix_is_still_cached():
    system = {"role": "system", "content": PROSE}
    with FakeOpenAI(skew=Skew()) as srv:
        client = _client(srv)
        client.chat.completions.create(model=MODEL, messages=[system, {"role": "user", "content": CHINESE}])
        client.chat.completions.create(model=MODEL, messages=[system, {"role": "user", "content": CHINESE + "再来"}])
        first, second = srv.requests
    assert second["cache_hit_tokens"] >= second["prompt_tokens"] - 2 * 64 > 0


def test_a_skewed_text_extended_at_its_end_is_still_cached():
    """A tool result of code and English, then a Chinese compaction prompt in the same user turn (a
    mid-turn summary request): a real tokenizer gives the start the same ids, so must the skew."""
    result = {"role": "user", "content": CODE + PROSE[:400]}
    with FakeOpenAI(skew=Skew()) as srv:
        client = _client(srv)
        client.chat.completions.create(model=MODEL, messages=[result])
        client.chat.completions.create(model=MODEL, messages=[result, {"role": "user", "content": CHINESE}])
        first, second = srv.requests
    assert second["cache_hit_tokens"] >= first["prompt_tokens"] - 2 * 64 > 0


def test_skew_parse():
    assert Skew.parse("") == Skew()
    assert Skew.parse("cjk=0.2, code=0") == Skew(system=0.15, cjk=0.2, code=0.0)
    with pytest.raises(ValueError, match="unknown kind"):
        Skew.parse("emoji=1")


def test_the_prefix_cache_evicts_the_least_recently_used():
    cache = PrefixCache(capacity=64 * 4)
    a, b = list(range(64 * 3)), list(range(1000, 1000 + 64 * 3))
    assert cache.hits(a) == 0 and cache.hits(a) == 64 * 3
    assert cache.hits(b) == 0  # 6 blocks do not fit in 4: a's oldest go first
    assert cache.hits(a) == 0 and cache.evicted > 0
    unbounded = PrefixCache(capacity=None)
    for ids in (a, b):
        unbounded.hits(ids)
    assert unbounded.hits(a) == len(a) and unbounded.evicted == 0


def test_a_used_prefix_stays_while_others_are_evicted():
    cache = PrefixCache(capacity=64 * 6)
    system = list(range(64 * 2))
    for n in range(10):  # ten different conversations on one system prompt
        tail = list(range(10_000 * (n + 1), 10_000 * (n + 1) + 64 * 2))
        assert cache.hits(system + tail) == (0 if n == 0 else len(system))


def test_every_request_is_recorded_with_its_refusal_and_seen_by_observers():
    seen = []
    with FakeOpenAI(max_context=50) as srv:
        srv.keep_bodies = False
        srv.observe(lambda record, body: seen.append((record["status"], len(body["messages"]))))
        client = _client(srv)
        client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": "hi"}])
        with pytest.raises(openai.BadRequestError):
            client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": "word " * 200}])
        with pytest.raises(openai.BadRequestError):  # refused by the rules: a tool result with no call
            client.chat.completions.create(
                model=MODEL,
                messages=[{"role": "user", "content": "hi"}, {"role": "tool", "tool_call_id": "x", "content": "r"}],
            )
        records = list(srv.requests)
    assert seen == [(200, 1), (400, 1), (400, 2)]
    assert [r["status"] for r in records] == [200, 400, 400]
    assert records[0]["billed"] and not records[1].get("billed") and "role 'tool'" in records[2]["error"]
    assert records[2]["counted"] > 0  # counted for the window check even though refused
    assert all("body" not in r and "raw" not in r for r in records)


def test_the_command_line_takes_skew_and_cache_bound():
    from tests.fake_cli import parse_args

    args = parse_args(["--skew", "--cache-tokens", "1000"])
    assert args.skew == "" and args.cache_tokens == 1000
    proc = subprocess.run(
        [sys.executable, "-m", "tests.fake_openai", "--skew", "cjk=x"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode != 0 and "could not convert" in proc.stderr


def test_user_marker_ends_the_system_part():
    # The skew of the system part stops at the first turn marker: a user text is skewed by its kind.
    prompt = "system words here" + USER + "user words here"
    plain, skewed = counter().ids(prompt), counter().ids(prompt, Skew(system=1.0, cjk=0, code=0))
    assert len(skewed) - len(plain) == len(counter().text_ids("system words here"))


@pytest.mark.parametrize("server", [{"skew": Skew(cjk=0.3), "cache_tokens": 64 * 10}], indirect=True)
def test_the_server_fixture_takes_emulator_options(server):
    assert server.skew == Skew(cjk=0.3) and server.cache.capacity == 640
    body = [{"role": "user", "content": CHINESE}]
    _client(server).chat.completions.create(model=MODEL, messages=body)
    assert server.last_request["prompt_tokens"] > 1.25 * _counts(None, messages=body)
