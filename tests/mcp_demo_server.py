"""A small real MCP server for the tests (the `mcp` package's MCPServer, FastMCP as was), over stdio.

argv: [seconds to wait before serving] [a file to create once serving]."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from mcp.server.mcpserver import MCPServer

app = MCPServer("demo")


@app.tool()
def add(a: int, b: int) -> str:
    """Add two whole numbers."""
    return f"the sum is {a + b}"


@app.tool()
def env_has(name: str) -> str:
    """Whether the server's environment has a variable of this name."""
    return "yes" if name in os.environ else "no"


@app.tool()
def crash() -> str:
    """End the server process at once."""
    os._exit(3)


if __name__ == "__main__":
    if len(sys.argv) > 1:
        time.sleep(float(sys.argv[1]))
    if len(sys.argv) > 2:
        Path(sys.argv[2]).write_text("serving")
    app.run()
