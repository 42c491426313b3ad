"""bench/token_error.py's second count is rendered otherwise than ours, so the two cannot agree by
construction, and it is what llama-server feeds its model."""

from __future__ import annotations

import json
import urllib.request

from tests.deepseek_template import DSML, THINK, THINK_END, TOOLS_BLOCK, USER, counter, render
from tests.local_model import second_count
from tests.local_model.lane import MODEL

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "description": "Read a file of the workspace.",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}}},
        },
    }
]
BODY = {
    "model": "deepseek-v4-flash",
    "tools": TOOLS,
    "messages": [
        {"role": "system", "content": "You are a terse coding agent."},
        {"role": "user", "content": "读一下 a.py 的前十行"},
        {
            "role": "assistant",
            "content": "",
            "reasoning_content": "read it",
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "read_file", "arguments": '{"path": "a.py", "limit": 10}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "1\tdef main():\n2\t    return 0\n"},
    ],
}


def test_the_second_rendering_is_not_ours(llama):
    root = llama(4096).root
    theirs, ours = second_count.rendered(root, BODY), render(BODY)
    assert theirs != ours
    # None of our markers, DSML or tool instructions: the server's template has its own.
    assert DSML not in theirs and USER not in theirs and THINK_END not in theirs
    instructions = TOOLS_BLOCK.format(dsml=DSML, think=THINK, think_end=THINK_END, schemas="").splitlines()
    assert not [line for line in instructions if len(line) > 20 and line in theirs]
    assert "<|im_start|>system\nYou are a terse coding agent." in theirs
    assert '<tool_call>\n{"name": "read_file", "arguments": {"path": "a.py", "limit": 10}}\n</tool_call>' in theirs
    assert "<tool_response>\n1\tdef main():" in theirs
    # So the counts differ, by the tokenizer and by the rendering alone (the same tokenizer over both).
    assert second_count.token_count(root, theirs) != counter().count(ours)
    assert counter().count(theirs) != counter().count(ours)


def test_the_second_count_is_what_the_server_feeds_its_model(llama):
    """The rendered text's tokens are the prompt_tokens llama-server reports for the same request."""
    root = llama(4096).root
    body = {**BODY, "model": MODEL, "max_tokens": 1, "temperature": 0}
    request = urllib.request.Request(
        root + "/v1/chat/completions", data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=second_count.TIMEOUT) as response:
        usage = json.loads(response.read())["usage"]
    assert usage["prompt_tokens"] == second_count.token_count(root, second_count.rendered(root, BODY))
