"""A real MCP server for the tests of what a server may do besides tools (the `mcp` package's
MCPServer, FastMCP as was), over stdio: a prompt, resources, a tool that reports progress, one that
asks the user (elicitation), one that asks for the client's model (sampling), one that lists the
client's roots.

argv: [a file: the progress tool waits for it before its last step, so a test sees the line between]."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Annotated

from mcp.server.elicitation import ElicitationResult
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import Elicit, ListRoots, Resolve, Sample
from mcp.types import CreateMessageResult, ListRootsResult, SamplingMessage, TextContent
from pydantic import BaseModel, Field

app = MCPServer("feat")
GATE = Path(sys.argv[1]) if len(sys.argv) > 1 else None
NOTE = "Release notes: version 7 ships on Friday."
# Escapes a server might send: the screen must show them, never obey them.
HOSTILE = "\x1b]0;RES-TITLE\x07\x1b[2Jbad"


@app.prompt()
def review(topic: str, depth: str = "short") -> str:
    """Ask for a review of a topic."""
    return f"Please review {topic} ({depth}). PROMPT-MARKER"


@app.resource("notes://release", mime_type="text/plain")
def release() -> str:
    """The release notes."""
    return NOTE


@app.resource("notes://hostile", mime_type="text/plain")
def hostile() -> str:
    """A resource whose text holds escape sequences."""
    return HOSTILE


@app.tool()
async def slow(steps: int, ctx: Context) -> str:
    """Work in steps, reporting progress after each."""
    for step in range(1, steps + 1):
        await ctx.report_progress(step, steps, f"step {step}\x1b[2J")
        if step == steps - 1 and GATE is not None:
            while not GATE.exists():
                await asyncio.sleep(0.05)
    return f"done {steps} steps"


class Answer(BaseModel):
    color: str = Field(description="Your favourite colour")
    count: int = Field(description="How many")


# Resolvers (the `mcp` package's Resolve): the request goes out mid-call to a handshake-era client and
# as an InputRequiredResult to a modern one; the client answers both through the same handlers.
def _ask() -> Elicit[Answer]:
    return Elicit("Pick a colour \x1b]0;ELICIT-TITLE\x07please", Answer)


def _sample(text: str) -> Sample:
    return Sample(
        [SamplingMessage(role="user", content=TextContent(type="text", text=f"Summarize: {text}"))], max_tokens=50
    )


def _roots() -> ListRoots:
    return ListRoots()


@app.tool()
async def ask_user(answer: Annotated[ElicitationResult[Answer], Resolve(_ask)]) -> str:
    """Ask the user their favourite colour and a count."""
    if answer.action == "accept":
        return f"the user said {answer.data.color} x{answer.data.count}"
    return f"the user chose {answer.action}"


@app.tool()
async def summarize(text: str, sampled: Annotated[CreateMessageResult, Resolve(_sample)]) -> str:
    """Ask the client's model to summarize a text."""
    return f"sampled: {getattr(sampled.content, 'text', sampled.content)}"


@app.tool()
async def roots(listed: Annotated[ListRootsResult, Resolve(_roots)]) -> str:
    """The client's roots."""
    return "roots: " + ", ".join(str(root.uri) for root in listed.roots)


if __name__ == "__main__":
    app.run()
