"""`--debug`: one JSON line per decision, under the data folder. Never holds API keys: fields
named like keys are dropped, and anything that looks like a key in any value is redacted."""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

from agent.config import data_home

_path: Path | None = None
_SECRET_NAMES = ("api_key", "authorization", "key")
# Values that look like credentials wherever they appear: an error body may echo the key back. JSON
# text is searched, so a match stops at a quote or a backslash and never breaks the line.
_SECRET_VALUES = re.compile(
    r"(?i)\b(?:bearer|token|basic)\s+[A-Za-z0-9._~+/=-]{8,}"  # an Authorization value
    r"|\bsk-[A-Za-z0-9_-]{8,}"  # OpenAI / DeepSeek style keys
    r"|\b(?=[A-Za-z0-9_-]*[0-9])(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9_-]{32,}\b"  # any long token
)
_known: set[str] = set()


def forget_secret(value: str | None) -> None:
    """Redact `value` wherever it appears, whatever it looks like (the configured key)."""
    if value and len(value) >= 4:
        _known.add(value)


def redact(text: str) -> str:
    for value in _known:
        text = text.replace(value, "[redacted]")
    return _SECRET_VALUES.sub("[redacted]", text)


def enable() -> Path:
    global _path
    home = data_home()
    home.mkdir(parents=True, exist_ok=True, mode=0o700)
    _path = home / "debug.log"
    return _path


def enabled() -> bool:
    return _path is not None


def log(event: str, **fields: object) -> None:
    if _path is None:
        return
    clean = {k: v for k, v in fields.items() if k.lower() not in _SECRET_NAMES}
    line = json.dumps({"t": round(time.time(), 3), "event": event, **clean}, ensure_ascii=False, default=str)
    line = redact(line)
    try:
        fd = os.open(_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            os.write(fd, (line + "\n").encode())
        finally:
            os.close(fd)
    except OSError:
        pass
