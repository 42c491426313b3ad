"""HTML to Markdown for fetch_url, in a child process with a time limit.

markdownify (over BeautifulSoup) is pure Python: a few megabytes of inline markup take tens of
seconds and hold the GIL all along, so in the event loop or in a thread it would freeze the REPL and
make Ctrl-C wait for it. A worker process can always be killed: when the fetch's time is up, or at
once when Ctrl-C cancels the tool. It gets only the HTML on stdin and gives back the Markdown on
stdout (-I: nothing from the environment or the user's site folder; the installed packages only).
"""

from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path

from agent.tools.process_slots import holds_slot

ROOT = Path(__file__).resolve().parents[2]  # the checkout: agent/tools/ is two folders down


def to_markdown(html: str) -> str:
    from markdownify import markdownify

    text = markdownify(html, heading_style="ATX", bullets="-")
    return re.sub(r"\n{3,}", "\n\n", text).strip()


class ConversionFailed(Exception):
    """The worker ended without an answer (markdownify raised, e.g. on markup nested too deep)."""


@holds_slot
async def convert(html: str, timeout: float) -> str | None:
    """`html` as Markdown, or None when it took longer than `timeout` s; the worker is killed then,
    and when the call is cancelled. Waits for a free process slot first (agent.tools.process_slots)."""
    code = f"import sys; sys.path.insert(0, {str(ROOT)!r}); from agent.tools.html_worker import main; main()"
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-I",
        "-c",
        code,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        env={},
    )
    try:
        out, _ = await asyncio.wait_for(proc.communicate(html.encode("utf-8", "replace")), timeout)
    except TimeoutError:
        return None
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    if proc.returncode != 0:
        raise ConversionFailed(f"the HTML converter failed (exit code {proc.returncode})")
    return out.decode("utf-8", "replace")


def main() -> None:
    html = sys.stdin.buffer.read().decode("utf-8", "replace")
    sys.stdout.buffer.write(to_markdown(html).encode("utf-8", "replace"))


if __name__ == "__main__":
    main()
