"""Never a request over the window, whatever automatic compaction is allowed to do.

The thrash guard, the failure breaker and --no-auto-compact all switch automatic compaction off,
and then the context grows without bound until the provider refuses every request. Before each
request (midturn.before_request, the loop's hook) a history that would not fit the window is made
to fit: by a summary, unless summaries are what keeps failing; else by leaving out the oldest
messages (archived first, with a notice). If not even the current request fits, one clear error,
and the history stays as it was.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from agent import debuglog
from agent.compaction.context import fixed_prefix_tokens, history_tokens
from agent.errors import WindowOverflow
from agent.events import Notice
from agent.text.i18n import t
from agent.tokens import count as tokens

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

    from agent.state.app import AppState


# Room left for an ordinary answer. A compaction request keeps more (agent.compaction.summarizer.request_limit):
# its answer is a whole summary.
MAX_ANSWER_ROOM = 8_192


def ceiling(state: AppState) -> int:
    """The largest ordinary request: the window minus room for the answer."""
    window = state.config.context_window
    return window - min(MAX_ANSWER_ROOM, window // 16)


async def make_fit(
    state: AppState, messages: list[ModelMessage], keep: list[ModelMessage],
    summarize: Callable[[], Awaitable[object]],
) -> list[ModelMessage] | None:
    """Make `state.history` a history built from `messages` whose request fits the window.

    `keep` (the current user request and the turn's newest exchanges) stays verbatim. `summarize`
    compacts `state.history` keeping `keep` (the compaction layer's run_compact, given from above).
    Raises WindowOverflow, with `state.history` unchanged, when not even `keep` fits. Returns None,
    or, when the session file cannot be written (a full disk), the messages to send this once while
    the history stays as it was."""
    limit = ceiling(state)
    used = history_tokens(state, messages)
    needed = fixed_prefix_tokens(state) + tokens.count_messages(keep)
    if needed > limit:
        raise WindowOverflow(t("overflow_nothing_fits", state.lang, needed=needed, limit=limit))
    state.emit(Notice(t("overflow_fitting", state.lang, used=used, limit=limit), level="warn"))
    state.transcript.update(messages)
    # A summary, unless summaries are what fails (the breaker, or the last automatic one failed).
    # A failed one leaves the history as it was (agent.state.transcript).
    if state.compaction.off_reason != "failures" and not state.compaction.failures:
        try:
            await summarize()
        except Exception as exc:  # noqa: BLE001 - leaving out the oldest still works
            debuglog.log("overflow_summary_failed", error=repr(exc)[:300])
    if history_tokens(state, state.history) > limit:
        try:
            leave_out_oldest(state, limit)
        except OSError as exc:
            debuglog.log("overflow_unsaved", error=str(exc))
            from agent.compaction.tiers import fit_messages

            return fit_messages(messages, limit, fixed_prefix_tokens(state))[0]
    return None


def leave_out_oldest(state: AppState, limit: int) -> int:
    """Archive the session, then drop the oldest messages (calls and results together) until the
    request fits; a note where they were says where the transcript is. Returns how many went."""
    from pydantic_ai.messages import ModelRequest, UserPromptPart

    from agent.compaction.rebuild import checkpoints_cut, left_out_history
    from agent.compaction.summary import is_summary
    from agent.compaction.tiers import fit_messages

    history = list(state.history)
    note_room = 200
    kept, dropped = fit_messages(history, limit - note_room, fixed_prefix_tokens(state))
    if not dropped:
        return 0

    def build(archive: Path) -> list[ModelMessage]:
        note = ModelRequest(parts=[UserPromptPart(t("overflow_note", state.lang, n=dropped, archive=archive))])
        return left_out_history(kept, note)

    fh = state.file_history
    head = 1 if is_summary(history[0]) else 0  # fit_messages keeps a summary at the start
    checkpoints = checkpoints_cut(fh.checkpoints, head + dropped)
    archive = state.transcript.replace(build, dropped=checkpoints)
    if checkpoints:
        fh.drop_from(checkpoints[0])
    state.scratch.recorder.forget()
    state.stats.left_out_messages += dropped
    state.stats.last_archive = str(archive)
    debuglog.log("overflow_left_out", messages=dropped, archive=str(archive))
    state.emit(Notice(t("overflow_left_out", state.lang, n=dropped, archive=archive), level="warn"))
    return dropped
