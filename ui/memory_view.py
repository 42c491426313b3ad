"""/memory: the memory files in the instructions (imports with what imported them), those a subfolder
brought while the model worked there, and the imports that were not read, with why."""

from __future__ import annotations

from agent.state.app import AppState
from agent.text.i18n import t


def memory_lines(state: AppState) -> list[str] | None:
    """The listing's lines; None when there is no memory file at all."""
    from agent.tokens import count as tokens
    from agent.tools import memory_files, nested_memory
    from agent.tools.memory_imports import MAX_HOPS, MAX_IMPORTED_CHARS

    lang = state.lang
    memory = memory_files.scan(state.workspace)
    nested = sorted(nested_memory.present(state.history))
    if not memory.files and not memory.skipped and not nested:
        return None
    lines = [t("memory_title", lang)]
    for found in memory.files:
        scope = t(f"memory_scope_{found.scope}", lang)
        n = tokens.count_text(found.text)
        if found.imported_by is None:
            lines.append(t("memory_line", lang, path=found.path, n=n, scope=scope))
        else:
            lines.append(t("memory_imported_line", lang, path=found.path, n=n, scope=scope, by=found.imported_by))
    if nested:
        lines.append(t("nested_memory_title", lang))
        lines += [f"  {state.workspace / path}" for path in nested]
    if memory.skipped:
        lines.append(t("memory_skipped_title", lang))
        for skipped in memory.skipped:
            why = t(f"memory_skip_{skipped.why}", lang, n=MAX_HOPS if skipped.why == "too_deep" else MAX_IMPORTED_CHARS)
            lines.append(t("memory_skip_line", lang, name=skipped.name, importer=skipped.importer, why=why))
    return lines
