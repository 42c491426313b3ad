"""User-facing short texts in English and Chinese, one module per topic (agent/text/i18n_*.py), merged
here into one table that `t` reads. Long prompt texts live in prompts/. No inline `lang == "zh"` branch
anywhere: tests/agent/text/test_i18n_only.py keeps it so."""

from __future__ import annotations

import locale
import os

from agent.text.i18n_approval import APPROVAL_TEXTS
from agent.text.i18n_commands import COMMANDS_TEXTS
from agent.text.i18n_compaction import COMPACTION_TEXTS
from agent.text.i18n_doctor import DOCTOR_TEXTS
from agent.text.i18n_endpoint import ENDPOINT_TEXTS
from agent.text.i18n_files import FILES_TEXTS
from agent.text.i18n_mcp import MCP_TEXTS
from agent.text.i18n_memory import MEMORY_TEXTS
from agent.text.i18n_model import MODEL_TEXTS
from agent.text.i18n_print import PRINT_TEXTS
from agent.text.i18n_repl import REPL_TEXTS
from agent.text.i18n_sandbox import SANDBOX_TEXTS
from agent.text.i18n_session import SESSION_TEXTS
from agent.text.i18n_settings import SETTINGS_TEXTS
from agent.text.i18n_status import STATUS_TEXTS
from agent.text.i18n_tools import TOOL_TEXTS
from agent.text.i18n_trust import TRUST_TEXTS

TABLES: tuple[dict[str, tuple[str, str]], ...] = (
    APPROVAL_TEXTS,
    COMMANDS_TEXTS,
    COMPACTION_TEXTS,
    DOCTOR_TEXTS,
    ENDPOINT_TEXTS,
    FILES_TEXTS,
    MCP_TEXTS,
    MEMORY_TEXTS,
    MODEL_TEXTS,
    PRINT_TEXTS,
    REPL_TEXTS,
    SANDBOX_TEXTS,
    SESSION_TEXTS,
    SETTINGS_TEXTS,
    STATUS_TEXTS,
    TOOL_TEXTS,
    TRUST_TEXTS,
)
TEXTS: dict[str, tuple[str, str]] = {key: text for table in TABLES for key, text in table.items()}


def t(key: str, lang: str, **values: object) -> str:
    en, zh = TEXTS[key]
    return (zh if lang == "zh" else en).format(**values)


def default_lang() -> str:
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(name)
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    code = (locale.getlocale()[0] or "").lower()
    return "zh" if code.startswith("zh") else "en"
