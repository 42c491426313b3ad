"""A project's grants need the user's approval once: what its files say about where traffic goes or what
code runs (agent.provider.grants) is shown whole in one question before the first prompt, and counts
only after a yes. The yes is kept in the data folder, keyed by the folder and a hash of those grants:
a changed grant is asked about again. A project's custom commands' `allowed-tools` (`.claude/commands/`)
are among them: a command's turn would be given them.

Where no one can answer (`-p`) or the answer is no, none of it applies and one line says what was
skipped. `--trust-project` (or `trustProject` in the user's own settings) applies it without asking,
except that a key goes to the project's `baseUrl` only once a question named that URL and the key.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.config import data_home
from agent.provider import grants
from agent.text.i18n import t


@dataclass(frozen=True)
class Decision:
    """How the project's grants were settled: `trusted` (they count), `named` (the user saw them in the
    question, now or before: the project's baseUrl may get the key it named), `found` the grants."""

    trusted: bool
    named: bool = False
    found: dict[str, Any] = field(default_factory=dict)


def _store() -> Path:
    return data_home() / "trusted_projects.json"


def _approved() -> dict[str, str]:
    try:
        data = json.loads(_store().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def found_now(state: Any, reread: bool = False) -> dict[str, Any]:
    """The project's grants for this session; with `reread`, from the files as they are now (an
    "always for this project" answer changes one)."""
    settings = state.config.settings
    if reread:
        from agent.provider import settings as files

        settings = files.load(state.workspace, state.lang)
    return grants.collect(
        settings, state.workspace, state.config.project_endpoint, getattr(state.permissions, "project_mode", None)
    )


def is_trusted(state: Any, found: dict[str, Any] | None = None) -> bool:
    found = found_now(state, reread=True) if found is None else found
    return not found or _approved().get(str(state.workspace)) == grants.digest(found)


def remember(state: Any, found: dict[str, Any] | None = None) -> None:
    """Record the user's approval of the project's grants as they are now."""
    from agent.store.atomic import replace_file

    found = found_now(state, reread=True) if found is None else found
    approved = _approved()
    approved[str(state.workspace)] = grants.digest(found)
    path = _store()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    replace_file(path, (json.dumps(approved, indent=2) + "\n").encode(), mode=0o600)


async def settle(state: Any) -> Decision:
    """Before the first prompt: ask once about the project's grants (none, or approved before: no
    question). The caller switches on what the decision allows (lifecycle.start_project)."""
    from agent.events import Notice, TrustRequest, ask

    found = found_now(state)
    if not found or is_trusted(state, found):
        return Decision(True, named=True, found=found)
    what = grants.summary(found, state.lang)
    if state.config.trust_project:
        state.emit(Notice(t("trust_by_flag", state.lang, what=what), "dim"))
        return Decision(True, named=False, found=found)
    if state.config.one_shot:
        state.emit(Notice(t("trust_skipped_print", state.lang, what=what), "warn"))
        return Decision(False, found=found)
    lines = tuple(grants.describe(found, state.lang))
    if await ask(state.emit, TrustRequest(str(state.workspace), lines)) != "y":
        state.emit(Notice(t("trust_declined", state.lang, what=what), "warn"))
        return Decision(False, found=found)
    try:
        remember(state, found)
    except OSError as exc:  # approved for this session; asked again next time
        state.emit(Notice(t("trust_not_saved", state.lang, error=exc.strerror or exc), "warn"))
    return Decision(True, named=True, found=found)
