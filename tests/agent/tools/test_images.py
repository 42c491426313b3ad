"""Images (issue 25, part 4): @image and pasted paths, read_file on an image, the request body as an
OpenAI-compatible server expects it (an image_url part with a data URL) through the strict emulator,
a clear line for a model without images, the gauge's estimate, and no image restored after compaction."""

from __future__ import annotations

import base64
import struct
import zlib

import openai
import pytest

import compact
import main
import session
from agent.events import Notice
from agent.tokens import count as tokens
from agent.tools import images
from tests.builders import long_answer, responder, script_forever


def png(width: int, height: int) -> bytes:
    """A real PNG (grey pixels), built by hand: no imaging library needed."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\0" + b"\x80" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def image_parts(body):
    return [
        (n, part)
        for n, m in enumerate(body["messages"])
        if isinstance(m.get("content"), list)
        for part in m["content"]
        if part.get("type") == "image_url"
    ]


async def test_a_mentioned_image_goes_as_an_image_url_part(make_state, server, workspace):
    data = png(100, 80)
    (workspace / "shot.png").write_bytes(data)
    state = make_state()
    await main.on_submit(state, "what is wrong in @shot.png?")
    body = server.requests[-1]["body"]
    [(at, part)] = image_parts(body)
    assert part["image_url"]["url"] == "data:image/png;base64," + base64.b64encode(data).decode()
    assert body["messages"][at]["role"] == "user"
    # The result names it; the image follows in a user message (pydantic-ai: tool results take text only).
    [tool] = [m for m in body["messages"][:at] if m["role"] == "tool"]
    assert "Image shot.png (image/png, 100x80" in tool["content"] and "See file shot.png." in tool["content"]
    assert "what is wrong in @shot.png?" in [m["content"] for m in body["messages"] if m["role"] == "user"]
    # The session file keeps the image: a resume sends it again.
    loaded = session.load(state.session_id, workspace).messages
    assert images.images_in(loaded) == ["shot.png"]


async def test_read_file_on_an_image_returns_it_the_same_way(make_state, server, workspace):
    data = png(10, 10)
    (workspace / "logo.png").write_bytes(data)
    state = make_state()
    await main.on_submit(state, "read logo.png")
    [(_, part)] = image_parts(server.requests[-1]["body"])
    assert base64.b64decode(part["image_url"]["url"].split(",", 1)[1]) == data


async def test_a_pasted_image_path_is_attached_even_outside_the_workspace(make_state, server, tmp_path):
    outside = tmp_path / "Screen Shot 1.png"
    outside.write_bytes(png(20, 20))
    state = make_state()
    await main.on_submit(state, f"'{outside}' why is the button grey?")
    assert len(image_parts(server.requests[-1]["body"])) == 1
    assert images.pasted_paths(f"see {str(outside).replace(' ', chr(92) + ' ')} please") == [str(outside)]
    assert images.pasted_paths("see /no/such/file.png and notes.png") == []


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_a_model_without_images_gets_a_clear_line_not_a_400(make_state, server, workspace, lang):
    (workspace / "shot.png").write_bytes(png(10, 10))
    state = make_state(model="deepseek-v4-pro", lang=lang)
    await main.on_submit(state, "look at @shot.png")
    assert image_parts(server.requests[-1]["body"]) == []
    warned = [n.text for n in state.emit.of(Notice) if n.level == "warn"]
    assert any(
        "deepseek-v4-pro" in w and ("不接受图片" if lang == "zh" else "does not take images") in w for w in warned
    )
    await main.on_submit(state, "read shot.png")
    tool = [m for m in server.requests[-1]["body"]["messages"] if m["role"] == "tool"][-1]
    assert tool["content"].startswith("Error: shot.png is an image") or "不接受图片" in tool["content"]
    assert all(r.get("billed") for r in server.requests)  # nothing was refused


def test_the_emulator_refuses_images_like_the_real_apis(server):
    client = openai.OpenAI(base_url=server.base_url, api_key="k", max_retries=0)
    url = "data:image/png;base64," + base64.b64encode(png(4, 4)).decode()
    content = [{"type": "text", "text": "what is this?"}, {"type": "image_url", "image_url": {"url": url}}]
    with pytest.raises(openai.BadRequestError, match="unknown variant `image_url`"):
        client.chat.completions.create(model="deepseek-v4-pro", messages=[{"role": "user", "content": content}])
    broken = [{"type": "image_url", "image_url": {"url": "data:image/png;base64,@@@"}}]
    with pytest.raises(openai.BadRequestError, match="invalid image"):
        client.chat.completions.create(model="deepseek-v4-flash", messages=[{"role": "user", "content": broken}])
    answer = client.chat.completions.create(model="deepseek-v4-flash", messages=[{"role": "user", "content": content}])
    assert answer.usage.prompt_tokens > 1_000  # the server counts the image too


def test_the_gauge_counts_an_image_by_its_estimate():
    from pydantic_ai.messages import BinaryContent, ModelRequest, UserPromptPart

    def tokens_of(data: bytes) -> int:
        with_image = ModelRequest(parts=[UserPromptPart(["look", BinaryContent(data, media_type="image/png")])])
        return tokens.count_message(with_image) - tokens.count_message(ModelRequest(parts=[UserPromptPart(["look"])]))

    # Worked by hand: 100x100 px / 750 = 13.3 -> 14; 3000x2000 is scaled to 1.15 MP -> 1,534; a header
    # that cannot be read counts at the ceiling.
    assert tokens_of(png(100, 100)) == 14
    assert tokens_of(png(3000, 2000)) == 1_534
    assert tokens_of(b"\x89PNG\r\n\x1a\n-broken-") == 1_600


async def test_an_image_is_not_restored_after_a_compaction_and_the_summary_names_it(make_state, server, workspace):
    (workspace / "shot.png").write_bytes(png(50, 50))
    state = make_state()
    script_forever(server, responder([long_answer(1), long_answer(2)]))
    await main.on_submit(state, "what is in @shot.png?")
    await main.on_submit(state, "and then?")
    await compact.run_compact(state)
    await main.on_submit(state, "go on")
    body = server.requests[-1]["body"]
    assert image_parts(body) == []
    summary = "\n".join(json_text(m.get("content")) for m in body["messages"][1:] if m["role"] == "user")
    assert "not kept by this compaction" in summary and "shot.png" in summary


def json_text(content) -> str:
    return content if isinstance(content, str) else " ".join(p.get("text", "") for p in content)


def test_the_docs_name_the_models_that_take_images_as_the_code_does():
    """README and docs/capabilities.md copy agent.config.IMAGE_MODELS for the reader: this fails when
    either says another model takes images, or leaves one out."""
    import re
    from pathlib import Path

    from agent.config import DEEPSEEK_MODELS, IMAGE_MODELS, LEGACY_MODELS

    docs = Path(main.__file__).resolve().parent
    readme_row = next(line for line in (docs / "README.md").read_text().splitlines() if line.startswith("| `--images"))
    takes, not_takes = re.search(r"default as known for the model: (.*?) does, (.*?) does not", readme_row).groups()
    assert set(re.findall(r"`([\w.-]+)`", takes)) == IMAGE_MODELS - set(LEGACY_MODELS)
    assert set(re.findall(r"`([\w.-]+)`", not_takes)) == set(DEEPSEEK_MODELS) - IMAGE_MODELS
    bullet = (docs / "docs" / "capabilities.md").read_text().split("- **Which models.**", 1)[1].split("\n- ", 1)[0]
    takes = bullet.split(" (`IMAGE_MODELS`", 1)[0]
    not_takes = re.search(r"; ([^;]*?) does not\)", bullet).group(1)
    assert set(re.findall(r"`([\w.-]+)`", takes)) == IMAGE_MODELS  # the legacy names too
    assert set(re.findall(r"`([\w.-]+)`", not_takes)) == set(DEEPSEEK_MODELS) - IMAGE_MODELS
