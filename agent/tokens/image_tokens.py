"""What an image is estimated to cost in tokens (agent/tools/images.py says why this rule): read from
its header only, so that counting a history never decodes its images."""

from __future__ import annotations

import base64
import math
import struct
from typing import Any

MAX_TOKENS = 1_600
LONG_EDGE, MAX_PIXELS = 1568, 1_150_000
PIXELS_PER_TOKEN = 750


def dimensions(data: bytes) -> tuple[int, int] | None:
    """Width and height from the header (PNG, GIF, JPEG), or None."""
    try:
        if data.startswith(b"\x89PNG"):
            return struct.unpack(">II", data[16:24])
        if data.startswith(b"GIF"):
            return struct.unpack("<HH", data[6:10])
        if data.startswith(b"\xff\xd8"):
            return _jpeg_dimensions(data)
    except struct.error:
        return None
    return None


def _jpeg_dimensions(data: bytes) -> tuple[int, int] | None:
    pos = 2
    while pos + 9 < len(data):
        if data[pos] != 0xFF:
            return None
        marker = data[pos + 1]
        length = struct.unpack(">H", data[pos + 2 : pos + 4])[0]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):  # a start-of-frame
            height, width = struct.unpack(">HH", data[pos + 5 : pos + 9])
            return width, height
        pos += 2 + length
    return None


def estimate_tokens(data: bytes) -> int:
    size = dimensions(data)
    if not size or min(size) <= 0:
        return MAX_TOKENS
    width, height = size
    scale = min(1.0, LONG_EDGE / max(width, height), math.sqrt(MAX_PIXELS / (width * height)))
    return max(1, min(MAX_TOKENS, math.ceil(width * scale * height * scale / PIXELS_PER_TOKEN)))


def data_url_tokens(url: str) -> int:
    """The estimate for an image sent as a data URL; only its header is decoded. A remote URL's
    image is not seen before it is sent: counted at the ceiling."""
    if not url.startswith("data:") or "," not in url:
        return MAX_TOKENS
    head = url.split(",", 1)[1][:87_384]  # 64 KiB of image: every header we read is in it
    try:
        return estimate_tokens(base64.b64decode(head[: len(head) // 4 * 4]))
    except ValueError:
        return MAX_TOKENS


def content_tokens(item: Any) -> int | None:
    """The estimate for one item of a message's content if it is an image (pydantic-ai's
    BinaryContent or ImageUrl), else None."""
    from pydantic_ai.messages import BinaryContent, ImageUrl

    if isinstance(item, BinaryContent) and item.is_image:
        return estimate_tokens(item.data)
    if isinstance(item, ImageUrl):
        return data_url_tokens(item.url)
    return None
