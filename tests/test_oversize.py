"""Issue 13, item 5: one message larger than the window is caught before it is sent."""

from __future__ import annotations

import main
import session


def test_too_large_means_no_compaction_can_make_room() -> None:
    from agent.compaction.oversize import too_large

    assert too_large(5_100, fixed=1_165, threshold=6_168)
    assert not too_large(4_000, fixed=1_165, threshold=6_168)


def test_long_lines_are_split_so_read_file_shows_them_whole() -> None:
    from agent.compaction.oversize import split_long_lines

    text = "short\n" + "x" * 4_500 + "\nend"
    split = split_long_lines(text, 2_000)
    assert split.replace("\n", "") == text.replace("\n", "")
    assert max(len(line) for line in split.splitlines()) == 2_000 and split.endswith("\nend")


async def test_print_mode_refuses_it_with_a_clear_error(make_state, workspace, server, capsys):
    state = make_state(context_window=8_000)
    paste = "".join(f"record {n}: lorem ipsum dolor sit amet, consectetur adipiscing\n" for n in range(450))

    code = await main.print_mode(state, paste)

    assert code == 2
    err = capsys.readouterr().err
    assert "does not fit" in err and "@file" in err
    assert server.requests == []
    assert session.load(state.session_id, workspace).messages == []
