"""What a user message may bring into the window (agent.turn.admission): one message larger than
the window is caught before it is sent, and sent as a file instead."""

from __future__ import annotations

import main
import session


def test_attached_long_lines_are_split_so_read_file_shows_them_whole(make_state) -> None:
    from agent.tools.reading import LINE_CAP
    from agent.turn.admission import attach

    text = "short\n" + "x" * (2 * LINE_CAP + 500) + "\nend"
    path, message = attach(make_state(), text)
    split = path.read_text()
    assert split.replace("\n", "") == text.replace("\n", "") and str(path) in message
    assert max(len(line) for line in split.splitlines()) == LINE_CAP and split.endswith("\nend")


async def test_print_mode_refuses_it_with_a_clear_error(make_state, workspace, server, capsys):
    state = make_state(context_window=8_000)
    paste = "".join(f"record {n}: lorem ipsum dolor sit amet, consectetur adipiscing\n" for n in range(450))

    code = await main.print_mode(state, paste)

    assert code == 2
    err = capsys.readouterr().err
    assert "does not fit" in err and "@file" in err
    assert server.requests == []
    assert session.load(state.session_id, workspace).messages == []


def test_a_message_that_fits_only_an_empty_history_is_caught(make_state, tmp_path) -> None:
    """The fuzzer's 16k seed 19: after a compaction, its head (the carried user messages and the
    summary) stays whatever compacts next; a paste that fits beside the instructions alone but not
    beside that head passed the check, and every request of its turn was refused."""
    from agent.compaction.summary import SummaryParts, summary_messages
    from agent.compaction.watermark import fixed_prefix_tokens, threshold
    from agent.tokens import count as tokens
    from agent.turn.admission import check_message

    state = make_state(context_window=16_384)
    head = summary_messages(SummaryParts("what happened so far, at length. " * 300, []), "en")[1]
    room = threshold(state) - fixed_prefix_tokens(state)
    paste = "".join(f"record {n}: lorem ipsum dolor sit amet\n" for n in range(2_000))
    while tokens.count_text(paste) >= room - 200:
        paste = paste[: len(paste) * 9 // 10]
    assert check_message(state, paste) is None  # an empty history has room for it
    state.transcript.update([head])
    assert tokens.count_message(head) > 200 and check_message(state, paste) is not None
