"""A real MCP server over stdio (the `mcp` package's MCPServer) that misbehaves as its argument says:

- `stderr`: writes terminal escapes and a start-up line to its stderr, and each `echo` call's text;
- `big`: its tool `dump(megabytes)` answers that many megabytes of text, in lines (`dump_json`: of JSON);
- `unparseable`: speaks the protocol by hand (the SDK's server guards its stdout); its tool `nested`
  answers with 10,000 nested arrays, which the client cannot parse, and never sends another answer;
- `silent`: never answers `initialize` (it reads its input and says nothing).
Every mode but `unparseable` also has `echo`, `dump`, `dump_json` and `wait(seconds)`.

BAD_SERVER_SILENT_WHILE in the environment names a file: while it exists, `silent` stays silent (then
it serves). Only the modes that serve with the SDK import it: `silent` starts at once."""

import json
import os
import sys
import time
from pathlib import Path

# OSC 52 (set the clipboard), OSC 0 (the window's title), OSC 8 (a link), clear the screen, a colour.
ESCAPES = (
    "\x1b]52;c;cHduZWQ=\x07\x1b]0;PWNED-TITLE\x07\x1b]8;;http://evil.example/\x07link\x1b]8;;\x07"
    "\x1b[2J\x1b[H\x1b[31mRED-TEXT\x1b[0m"
)
STARTED = "Knowledge Graph MCP Server running on stdio"


def by_hand() -> None:
    """The protocol without the SDK: enough of it for a client to list and call `nested`."""
    depth = 10_000
    for line in sys.stdin:
        message = json.loads(line)
        if "id" not in message:
            continue  # a notification
        method, params = message.get("method"), message.get("params") or {}
        if method == "initialize":
            result = {
                "protocolVersion": params.get("protocolVersion"),
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "bad", "version": "1"},
            }
        elif method == "tools/list":
            result = {
                "tools": [
                    {
                        "name": "nested",
                        "description": "Answers with nested arrays.",
                        "inputSchema": {"type": "object", "properties": {}},
                    }
                ]
            }
        elif method == "tools/call":
            answer = '{"jsonrpc":"2.0","id":' + json.dumps(message["id"]) + ',"result":' + "[" * depth
            sys.stdout.write(answer + "]" * depth + "}\n")
            sys.stdout.flush()
            continue
        else:
            error = {"code": -32601, "message": f"no method {method}"}
            sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "error": error}) + "\n")
            sys.stdout.flush()
            continue
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}) + "\n")
        sys.stdout.flush()


def main() -> None:
    mode = sys.argv[1]
    if mode == "stderr":
        print(f"{ESCAPES}\n{STARTED}", file=sys.stderr, flush=True)
    silent_while = os.environ.get("BAD_SERVER_SILENT_WHILE")
    if mode == "silent" and (not silent_while or Path(silent_while).exists()):
        for _ in sys.stdin:
            pass
        return
    if mode == "unparseable":
        by_hand()
        return
    serve()


def serve() -> None:
    """The SDK's server (its import takes a while: only the modes that serve pay for it)."""
    from mcp.server.mcpserver import Context, MCPServer

    app = MCPServer("bad")

    @app.tool()
    async def echo(text: str, ctx: Context) -> str:
        """Answer how long the text is; the server logs the text as it came, to its stderr and to the client."""
        print(f"echo called with: {text}", file=sys.stderr, flush=True)
        await ctx.info(f"echo log message: {text}")
        return f"echoed {len(text)} characters"

    @app.tool()
    def dump(megabytes: float) -> str:
        """Answer that many megabytes of text."""
        line = "0123456789abcdef" * 6 + "\n"  # 97 bytes
        return line * int(megabytes * 1_000_000 / len(line))

    @app.tool(structured_output=False)
    def dump_json(megabytes: float) -> str:
        """Answer that many megabytes of JSON, as text (as many servers send it)."""
        row = '{"id": 1, "name": "item", "tags": ["a", "b"]}'
        return "[" + ", ".join([row] * int(megabytes * 1_000_000 / (len(row) + 2))) + "]"

    @app.tool()
    def wait(seconds: float) -> str:
        """Answer after that many seconds."""
        time.sleep(seconds)
        return "waited"

    app.run()


if __name__ == "__main__":
    main()
