"""A refit of the summary request (agent.compaction.request) that changes nothing is not sent again."""

from __future__ import annotations


def test_a_refit_that_rebuilds_equal_messages_is_the_same_request() -> None:
    """The fuzzer's 16k seed 19: a refit that rebuilt the messages into equal copies sent the refused
    summary request four times."""
    import dataclasses

    from pydantic_ai.messages import ModelRequest, UserPromptPart

    from agent.compaction.request import _same

    messages = [ModelRequest(parts=[UserPromptPart("a")]), ModelRequest(parts=[UserPromptPart("b")])]
    assert _same([dataclasses.replace(m) for m in messages], messages)
    assert not _same([messages[0], ModelRequest(parts=[UserPromptPart("c")])], messages)
