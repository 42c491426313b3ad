"""Typed ends of a compaction: each carries the one line the user sees."""


class CompactError(Exception):
    """A compaction that did not happen; nothing was changed."""


class NothingToCompact(CompactError):
    pass


class CompactCancelled(CompactError):
    """The user saw the summary (/compact preview) and said no: only the summary request was spent."""


class WindowOverflow(Exception):
    """A request that cannot be made to fit the context window; the history was kept as it was."""
