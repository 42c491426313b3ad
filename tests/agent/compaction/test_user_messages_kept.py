"""Issue 20, cases 1, 2 and 9: user messages are never left out, and our own notes are never taken
for user messages (the session's title in /resume, "Original user messages")."""

from __future__ import annotations

import json

import session
from agent.compaction.summary import user_messages
from tests.builders import is_compaction, note, script_forever
from tests.fake_openai import Error, smart_reply
from tests.test_main import run_main

WINDOW = 16_000


def _present(text: str, request: str) -> bool:
    """`text` is in the request verbatim, or its first words are, with the cut marker after them."""
    if text in request:
        return True
    at = request.find(text[:60])
    end = request.find('"}', at)
    return at >= 0 and "characters cut" in request[at:end]


def test_left_out_turns_keep_the_users_words(workspace, home, server):
    """Summaries keep failing (the server refuses them), so the oldest turns must go: through
    `-p --continue`, as a script would, every user message stays in every later request."""
    server.max_context = WINDOW

    def reply(body):
        return Error(500, "summaries are down") if is_compaction(body) else smart_reply(body)

    script_forever(server, reply, n=400)
    sent: list[str] = []
    for i in range(10):
        text = note(i, 250)  # ~1.3k tokens, echoed back: ~2.6k a turn
        args = ["--base-url", server.base_url, "--context-window", str(WINDOW), "-p", text]
        result = run_main(args + (["--continue"] if i else []), workspace, home, timeout=120)
        assert result.returncode == 0, result.stderr
        sent.append(text.strip())
        last = json.dumps(
            [r for r in server.requests if not is_compaction(r["body"])][-1]["body"]["messages"], ensure_ascii=False
        )
        missing = [n for n, words in enumerate(sent) if not _present(words, json.loads(json.dumps(last)))]
        assert missing == [], f"turn {i}: user messages {missing} are gone"
    sid = session.list_sessions(workspace)[0]
    loaded = session.load(sid.session_id, workspace).messages
    assert any(
        "earlier messages were left out" in p.content for m in loaded for p in m.parts if p.part_kind == "user-prompt"
    )  # the path was taken
    # The note is ours: not a user message, not the session's title.
    assert not any("left out" in u for u in user_messages(loaded))
    assert sid.preview.startswith("note 0:")
    assert all(r["prompt_tokens"] <= WINDOW for r in server.requests if r.get("billed"))
