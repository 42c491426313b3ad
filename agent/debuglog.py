"""`--debug`: one JSON line per decision, under the data folder. Never holds API keys."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from agent.config import data_home

_path: Path | None = None
_SECRET_NAMES = ("api_key", "authorization", "key")


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
    try:
        fd = os.open(_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            os.write(fd, (line + "\n").encode())
        finally:
            os.close(fd)
    except OSError:
        pass
