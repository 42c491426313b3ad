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
from agent.compaction import margin
from agent.compaction.context import fixed_prefix_tokens, history_tokens
from agent.errors import WindowOverflow
from agent.events import Notice
from agent.provider.model import MAX_ANSWER_ROOM, answer_room  # noqa: F401 - re-exported
from agent.text.i18n import t
from agent.tokens import count as tokens

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

    from agent.state.app import AppState


# Room left for an ordinary answer. A compaction request keeps more (agent.compaction.summarizer.request_limit):
# its answer is a whole summary.


def ceiling(state: AppState) -> int:
    """The largest ordinary request: the window minus room for the answer."""
    window = state.config.context_window
    return window - answer_room(window)


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
    if not margin.fits(state, needed, limit):
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
    if not margin.fits(state, history_tokens(state, state.history), limit):
        try:
            leave_out_oldest(state, margin.room(state, limit))
        except OSError as exc:
            debuglog.log("overflow_unsaved", error=str(exc))
            from agent.compaction.tiers import fit_messages

            return fit_messages(messages, margin.room(state, limit), fixed_prefix_tokens(state))[0]
    return None


def leave_out_oldest(state: AppState, limit: int) -> int:
    """Archive the session, then drop the oldest messages (calls and results together) until the
    request fits; a note where they were carries the user's own words from them (verbatim within
    the user-message budget, the older ones named by count) and says where the transcript is.
    Returns how many went."""

    from agent.compaction.budgets import for_state as budgets_for
    from agent.compaction.rebuild import checkpoints_cut, left_out_history
    from agent.compaction.summary import head_end
    from agent.compaction.tiers import fit_messages

    history = list(state.history)
    head = head_end(history)  # fit_messages keeps a compaction's head at the start
    budget = budgets_for(state).user_messages
    note_room = NOTE_ROOM
    for _ in range(4):  # the note's size depends on what is left out, and that on the note's size
        kept, dropped = fit_messages(history, limit - note_room, fixed_prefix_tokens(state))
        if not dropped:
            return 0
        users = _carried(history[head : head + dropped], budget, state.lang)
        needed = NOTE_ROOM + sum(tokens.count_texts(users[0]))
        if needed <= note_room:
            break
        note_room = needed

    kept, dropped = _keep_this_turn(state, history, kept, dropped, head, limit - note_room)

    def build(archive: Path) -> list[ModelMessage]:
        return left_out_history(kept, left_out_note(state, dropped, users, archive))

    fh = state.file_history
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


def _keep_this_turn(state: AppState, history: list[ModelMessage], kept: list[ModelMessage], dropped: int,
                    head: int, limit: int) -> tuple[list[ModelMessage], int]:
    """`kept` and `dropped`, unless the fit cut into this turn's @-mentioned files: then they stay,
    shortened to what the window leaves them (with where to read on), and the user is told. They
    were shown as attached: the fuzzer's 4k sessions saw them left out with the oldest messages."""
    import dataclasses

    from pydantic_ai.messages import ModelRequest, ToolReturnPart

    from agent.compaction.rebuild import last_prompt, with_attachments
    from agent.tools.mentions import attached_labels
    from agent.tools.reading import shorten

    prompt_at = last_prompt(history)
    if prompt_at is None or prompt_at < head:
        return kept, dropped
    group = with_attachments(history, prompt_at)
    if group == prompt_at or head + dropped <= group:
        return kept, dropped
    turn = list(history[group:])
    over = fixed_prefix_tokens(state) + tokens.count_messages([*history[:head], *turn]) - limit
    returns = [(i, j) for i, m in enumerate(turn[: prompt_at - group]) if isinstance(m, ModelRequest)
               for j, p in enumerate(m.parts) if isinstance(p, ToolReturnPart) and isinstance(p.content, str)]
    if over > 0 and returns:
        share = -(-over // len(returns)) + 20
        for i, j in returns:
            part = turn[i].parts[j]
            cap = max(READ_FLOOR, tokens.count_text(part.content) - share)
            parts = list(turn[i].parts)
            parts[j] = dataclasses.replace(part, content=shorten(part.content, cap))
            turn[i] = dataclasses.replace(turn[i], parts=parts)
        labels = t("list_separator", state.lang).join(attached_labels(turn[: prompt_at - group], state.lang))
        state.emit(Notice(t("attachment_shortened", state.lang, paths=labels), level="warn"))
    return [*history[:head], *turn], group - head


# An attachment shortened to fit keeps at least this many tokens (its first lines).
READ_FLOOR = 100

# The note's own words around the user's messages it carries.
NOTE_ROOM = 200


def _carried(dropped: list[ModelMessage], budget: int, lang: str) -> tuple[list[str], int]:
    """The user's words among the messages left out (and those an earlier note carried)."""
    from agent.compaction.summary import carried_and_older, older_user_count, user_messages

    carried, older = carried_and_older(user_messages(dropped), budget, lang)
    return carried, older + older_user_count(dropped)


def left_out_note(state: AppState, n: int, users: tuple[list[str], int], archive: Path) -> ModelMessage:
    """The note where `n` messages were left out: marked as the agent's own (session.is_agent_note),
    with the user's messages from them in the text the model reads and in the metadata (so a later
    compaction or note carries them on)."""
    from pydantic_ai.messages import ModelRequest, UserPromptPart

    import session
    from agent.compaction.summary import OLDER_KEY

    carried, older = users
    text = t("overflow_note", state.lang, n=n, archive=archive)
    if carried:
        text += "\n" + t("overflow_note_users", state.lang) + "\n" + "\n".join(f"- {m}" for m in carried)
    if older:
        text += "\n" + t("overflow_note_older", state.lang, n=older, archive=archive)
    metadata = {session.NOTE_KEY: "left_out", "user_messages": carried, "archives": [str(archive)],
                OLDER_KEY: older}
    return ModelRequest(parts=[UserPromptPart(text)], metadata=metadata)
