"""A file the user @-mentions arrives whole when the request fits the window once what came before
is compacted, in parts only when it cannot fit. At a 16k window, Python's own heapq.py (~6k tokens)
and json/decoder.py (~3k), after a conversation that has to be compacted first: the REPL in a
pseudo-terminal, the request checked as the emulator got it."""

from __future__ import annotations

import heapq
import json
import json.decoder
import shutil
from pathlib import Path

from tests.builders import is_compaction, long_answer, responder, script_forever
from tests.pty_kit import ask, leave, screen_of, shown, spawn, wait_prompt

WINDOW = 16_384


def _last_line(path: Path) -> str:
    return [line for line in path.read_text().splitlines() if line.strip()][-1].strip()


def test_two_mentioned_files_arrive_whole_after_the_history_is_compacted(workspace, home, live_server):
    live_server.max_context = WINDOW
    (workspace / "pkg").mkdir()
    shutil.copy(heapq.__file__, workspace / "heapq.py")
    shutil.copy(json.decoder.__file__, workspace / "pkg" / "decoder.py")
    script_forever(live_server, responder([long_answer(n, words=120) for n in range(1, 4)]))
    child = spawn(workspace, home, live_server, "--context-window", str(WINDOW))
    screen = screen_of(child)
    wait_prompt(child)
    for n in range(1, 4):
        ask(child, f"explain part {n} of the design", f"Answer {n}")
    compactions = sum(is_compaction(r["body"]) for r in live_server.requests)
    ask(child, "Review @heapq.py and @pkg/decoder.py together", "Echo: Review")
    assert shown(screen, "Attached @heapq.py, @pkg/decoder.py") and not shown(screen, "(lines 1")
    leave(child, "/exit")

    turn = [r for r in live_server.requests if not is_compaction(r["body"])][-1]
    sent = json.dumps(turn["body"]["messages"])
    for path in (workspace / "heapq.py", workspace / "pkg" / "decoder.py"):
        assert json.dumps(_last_line(path))[1:-1] in sent, f"{path.name} did not arrive whole"
    assert "continue with offset=" not in sent
    assert sum(is_compaction(r["body"]) for r in live_server.requests) > compactions  # what came before went first
    assert all(r["prompt_tokens"] <= WINDOW for r in live_server.requests if r.get("billed"))
