"""How much of the window one file read may take."""

from __future__ import annotations

# Tokens of one read_file answer (and of one @-mentioned file): a share of the window, so one read
# cannot fill it (a 40 kB Chinese file is ~13k tokens, most of a 16k window); Claude Code's cap,
# 25,000, on large windows.
READ_WINDOW_SHARE = 8
READ_TOKENS_MIN, READ_TOKENS_MAX = 1_000, 25_000


def read_token_cap(window: int) -> int:
    return max(READ_TOKENS_MIN, min(READ_TOKENS_MAX, window // READ_WINDOW_SHARE))
