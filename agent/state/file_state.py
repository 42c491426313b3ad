"""Reading text files, and what the model has read: edits are only allowed on files it has seen
as they are now.

Without this, the model would edit from a stale picture of a file (changed by the user, by a
command, or never read at all) and silently clobber work.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from agent.store.regular_file import NotRegularFile, open_regular  # noqa: F401 - re-exported

_CHUNK = 1 << 20
_BINARY_SNIFF = 8192


def looks_binary(f: BinaryIO) -> bool:
    """A NUL byte in the first 8 KB: what git and grep call binary. Rewinds `f`."""
    head = f.read(_BINARY_SNIFF)
    f.seek(0)
    return b"\0" in head


def file_lines(f: BinaryIO, cap: int) -> Iterator[str]:
    """`f`'s lines, decoded, without line endings, each cut to `cap` characters.

    Memory stays bounded whatever the file: a 50 MB line is skipped, not loaded.
    """
    limit = 4 * cap + 4  # enough bytes for `cap` characters of UTF-8
    while raw := f.readline(limit):
        cut = len(raw) >= limit and not raw.endswith(b"\n")
        if cut:
            while (rest := f.readline(_CHUNK)) and not rest.endswith(b"\n"):
                pass
        line = raw.removesuffix(b"\n").removesuffix(b"\r").decode("utf-8", errors="replace")
        if cut or len(line) > cap:
            line = f"{line[:cap]} [... line cut at {cap} characters]"
        yield line


def hash_file(path: Path) -> str:
    """sha256 of a file, streamed so a huge file never sits in memory."""
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


@dataclass
class FileStamp:
    mtime_ns: int
    size: int
    sha256: str


class ReadFileState:
    def __init__(self) -> None:
        # Insertion order is read order: re-reading moves a file to the end.
        self._files: dict[Path, FileStamp] = {}

    @staticmethod
    def _key(path: Path) -> Path:
        return Path(path).resolve()

    def record(self, path: Path, content: bytes | None = None) -> None:
        """Remember `path` as read, with `content` if the caller already has it."""
        key = self._key(path)
        st = key.stat()
        digest = hashlib.sha256(content).hexdigest() if content is not None else hash_file(key)
        self._files.pop(key, None)
        self._files[key] = FileStamp(st.st_mtime_ns, st.st_size, digest)

    def merge(self, other: ReadFileState) -> None:
        """Take `other`'s reads as the newest: what the model was shown, without reading again."""
        for key, stamp in other._files.items():
            self._files.pop(key, None)
            self._files[key] = stamp

    def paths(self) -> list[Path]:
        """Files read, oldest read first."""
        return list(self._files)

    def __contains__(self, path: object) -> bool:
        return isinstance(path, str | Path) and self._key(Path(path)) in self._files

    def __len__(self) -> int:
        return len(self._files)

    def forget(self, path: Path) -> None:
        self._files.pop(self._key(path), None)

    def check_fresh(self, path: Path) -> str | None:
        """None if `path` was read and is unchanged on disk; otherwise why the model must read it."""
        key = self._key(path)
        stamp = self._files.get(key)
        if stamp is None:
            return f"you have not read {path}; read it first with read_file"
        try:
            st = key.stat()
        except OSError:
            return f"{path} was deleted or moved since you read it"
        if st.st_mtime_ns == stamp.mtime_ns and st.st_size == stamp.size:
            return None
        # A touch or a rewrite with identical bytes is not a change worth a re-read.
        if st.st_size == stamp.size and hash_file(key) == stamp.sha256:
            stamp.mtime_ns = st.st_mtime_ns
            return None
        return f"{path} changed on disk since you read it; read it again"
