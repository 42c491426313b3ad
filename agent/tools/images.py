"""Images for models that see them: what is an image, what it is estimated to cost, and how it goes
into the history (a read_file result, for @mentions, pasted paths and the tool alike).

The token estimate (agent/tokens/image_tokens.py). Providers bill an image by its pixels after
scaling it down, and DeepSeek publishes no rule; we use Anthropic's published one, tokens = width x
height / 750 after scaling the image to fit 1568 px on its long side and 1.15 megapixels, i.e. at
most 1,600 tokens, and 1,600 for an image whose size cannot be read. Erring high keeps compaction
early rather than late; once a request with the image has been answered, the gauge counts from the
server's own figure (agent/compaction/context.py).

An image is never restored as text after a compaction: the summary names it and its path
(`compaction_note`), the model reads the file again if it needs to see it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from agent.tokens.image_tokens import MAX_TOKENS, content_tokens, data_url_tokens, dimensions, estimate_tokens  # noqa: F401

if TYPE_CHECKING:
    from pydantic_ai.messages import BinaryContent, ModelMessage

    from agent.config import Config

MAX_BYTES = 5_000_000  # Anthropic's ceiling for one image; larger screenshots should be scaled first
EXTENSIONS = (".png", ".jpg", ".jpeg", ".gif", ".webp")
_SIGNATURES = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


class ImageError(Exception):
    """An image that cannot be attached (too large, unreadable, the model does not take images)."""


def media_type(head: bytes) -> str | None:
    """The image type by the file's first bytes (not its name): PNG, JPEG, GIF or WebP."""
    for signature, kind in _SIGNATURES:
        if head.startswith(signature):
            return kind
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def takes_images(config: Config) -> bool:
    """--images on|off, else as known for the model (agent.config.IMAGE_MODELS: deepseek-flash does)."""
    from agent.config import IMAGE_MODELS

    if config.images is not None:
        return config.images
    return config.model in IMAGE_MODELS


def is_image_file(path: Path) -> bool:
    """Whether `path` is a regular file that starts as an image does. Only a regular file is opened:
    a pasted or command-named `shot.png` may be a FIFO or /dev/stdin, which would block the REPL."""
    from agent.store.regular_file import open_regular

    try:
        with open_regular(path) as f:
            return media_type(f.read(16)) is not None
    except OSError:
        return False


def read_image(path: str, workspace: Path, config: Config, roots: list[Path]) -> list[str | BinaryContent] | None:
    """read_file's answer if `path` is an image (by its first bytes), else None (read it as text).
    Raises ImageError when it is one that cannot be shown."""
    from agent.tools.workspace import PathError, resolve_path

    try:
        target = resolve_path(path, workspace, readable_roots=roots)
    except PathError:
        return None  # the text path says why
    if not target.is_file() or not is_image_file(target):
        return None
    return load(target, path, config)


def load(path: Path, shown: str, config: Config) -> list[str | BinaryContent]:
    """What read_file answers for an image: a line about it, and the image. Raises ImageError."""
    from pydantic_ai.messages import BinaryContent

    from agent.text.i18n import t

    if not takes_images(config):
        raise ImageError(t("image_unsupported", config.lang, path=shown, model=config.model))
    from agent.store.regular_file import open_regular

    with open_regular(path) as f:
        size = os.fstat(f.fileno()).st_size
        if size > MAX_BYTES:
            raise ImageError(t("image_too_large", config.lang, path=shown, size=size, limit=MAX_BYTES))
        data = f.read(MAX_BYTES + 1)
    kind = media_type(data[:16])
    if kind is None:
        raise ImageError(t("image_unreadable", config.lang, path=shown))
    size_text = "x".join(map(str, dims)) if (dims := dimensions(data)) else "size unknown"
    line = f"Image {shown} ({kind}, {size_text}, {len(data):,} bytes, about {estimate_tokens(data):,} tokens)"
    return [line, BinaryContent(data, media_type=kind, identifier=shown)]


# A path as a terminal pastes or drops it: quoted, or with its spaces escaped; absolute or from ~.
_PASTED = re.compile(r"""'((?:/|~/)[^']+)'|"((?:/|~/)[^"]+)"|(?:^|(?<=\s))((?:/|~/)(?:[^\s\\]|\\.)+)""")


def image_paths(text: str) -> list[str]:
    """Absolute (or ~) paths with an image's extension in `text`, as pasted or dropped into the
    terminal, without duplicates; nothing is opened to find them."""
    found = []
    for match in _PASTED.finditer(text):
        raw = next(group for group in match.groups() if group)
        path = re.sub(r"\\(.)", r"\1", raw) if match.group(3) else raw
        if path.lower().endswith(EXTENSIONS) and path not in found:
            found.append(path)
    return found


def pasted_paths(text: str) -> list[str]:
    """The image_paths of the user's text that are image files; @mentions are not among them
    (agent.tools.mentions reads those)."""
    return [path for path in image_paths(text) if is_image_file(Path(path).expanduser())]


def images_in(messages: Sequence[ModelMessage]) -> list[str]:
    """The names of the images `messages` carry (their identifiers: the paths as shown), in order."""
    from pydantic_ai.messages import BinaryContent, ModelRequest

    found: list[str] = []
    for message in messages:
        if not isinstance(message, ModelRequest):
            continue
        for part in message.parts:
            content = getattr(part, "content", None)
            for item in content if isinstance(content, list) else []:
                if isinstance(item, BinaryContent) and item.is_image and item.identifier not in found:
                    found.append(item.identifier)
    return found


def compaction_note(history: Sequence[ModelMessage], tail: Sequence[ModelMessage], lang: str) -> str:
    """The summary's line about the images a compaction drops ("" for none)."""
    from agent.text.i18n import t

    kept = set(images_in(tail))
    dropped = [name for name in images_in(history) if name not in kept]
    return t("image_compacted", lang, paths=", ".join(dropped)) if dropped else ""
