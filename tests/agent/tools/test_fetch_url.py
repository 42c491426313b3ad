"""fetch_url (issue 25, part 3) against a real HTTP server on 127.0.0.1: Markdown, the cap and
offset, the domain question, and what it must not reach (loopback and private addresses unless
allowed, every resolved address, every redirect, the address checked is the one connected to)."""

from __future__ import annotations

import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from pydantic_ai import RunContext
from pydantic_ai.models.test import TestModel
from pydantic_ai.usage import RunUsage

import main
from agent.config import Config
from agent.events import ApprovalRequest
from agent.state.app import AppState
from agent.state.transcript import Transcript
from agent.tools import fetch_url as fetch
from tests.fake_ui import FakeUI
from tests.test_main import run_main

LOOPBACK = ("127.0.0.0/8",)
PAGE = (
    "<html><head><title>T</title><script>stealCookies()</script><style>p{}</style></head><body>"
    '<h1>Install</h1><p>Run <code>pip install thing</code>. See <a href="/docs">the docs</a>.</p></body></html>'
)
LONG = "".join(f"{n:05d} " for n in range(10_000))  # 60,000 characters


class Site:
    def __init__(self) -> None:
        self.requests: list[dict[str, str]] = []
        site = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                site.requests.append({"path": self.path, "host": self.headers.get("Host", "")})
                routes = {
                    "/page": (200, "text/html; charset=utf-8", PAGE.encode()),
                    "/long": (200, "text/plain", LONG.encode()),
                    "/image": (200, "image/png", b"\x89PNG\r\n\x1a\n"),
                    "/missing": (404, "text/plain", b"no such page"),
                }
                redirects = {
                    "/to-page": "/page",
                    "/loop": "/loop",
                    "/to-metadata": "http://169.254.169.254/latest/meta-data/",
                    "/to-ten": "http://10.0.0.1/",
                    "/to-v6": f"http://[::1]:{site.port}/page",
                    "/to-internal": f"http://internal.example:{site.port}/page",
                }
                if self.path in redirects:
                    self.send_response(302)
                    self.send_header("Location", redirects[self.path])
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                status, kind, body = routes.get(self.path, (404, "text/plain", b"?"))
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def site():
    s = Site()
    yield s
    s.stop()


def make_ctx(workspace, answer: str | None = "y", **config: object) -> RunContext[AppState]:
    async def approve(subject: str) -> str:
        return answer or "n"

    state = AppState(
        config=Config(workspace=workspace, **config),
        transcript=Transcript("s1", workspace),
        emit=FakeUI(approve=approve if answer else None),
    )
    return RunContext(deps=state, model=TestModel(), usage=RunUsage())


async def test_a_page_comes_as_markdown_through_the_agent(make_state, server, site):
    state = make_state(fetch_allow_networks=LOOPBACK)
    await main.on_submit(state, f"fetch {site.url}/page")
    [result] = [m for m in server.requests[-1]["body"]["messages"] if m["role"] == "tool"]
    text = result["content"]
    assert "# Install" in text and "`pip install thing`" in text and "[the docs](/docs)" in text
    assert "stealCookies" not in text and f"URL: {site.url}/page" in text
    assert "fetch_url" in {t["function"]["name"] for t in server.requests[0]["body"]["tools"]}


async def test_the_first_fetch_of_a_domain_is_asked_and_always_remembers_it(workspace, site):
    ctx = make_ctx(workspace, "always", fetch_allow_networks=LOOPBACK)
    assert "# Install" in await fetch.fetch_url(ctx, f"{site.url}/page")
    assert "# Install" in await fetch.fetch_url(ctx, f"{site.url}/to-page")
    [asked] = ctx.deps.emit.of(ApprovalRequest)
    assert (asked.kind, asked.subject, asked.why) == ("fetch", f"{site.url}/page", "127.0.0.1")
    declined = make_ctx(workspace, "n", fetch_allow_networks=LOOPBACK)
    answer = await fetch.fetch_url(declined, f"{site.url}/page")
    assert answer == "Error: the user declined fetching from 127.0.0.1" and len(site.requests) == 3


async def test_loopback_is_refused_unless_its_network_is_allowed(workspace, site):
    ctx = make_ctx(workspace)
    answer = await fetch.fetch_url(ctx, f"{site.url}/page")
    assert answer.startswith("Error: 127.0.0.1 resolves to 127.0.0.1, a loopback address")
    # localhost is 127.0.0.1 or ::1, whichever /etc/hosts lists first (Debian's installer lists both).
    named = await fetch.fetch_url(ctx, f"http://localhost:{site.port}/page")
    assert re.match(r"Error: localhost resolves to (127\.0\.0\.1|::1), a loopback address", named), named
    assert site.requests == []  # refused before any connection
    for address, why in [
        ("10.1.2.3", "private"),
        ("169.254.169.254", "link-local"),
        ("::ffff:127.0.0.1", "loopback"),
        ("::1", "loopback"),
        ("0.0.0.0", "a"),
        ("100.64.0.1", "public"),
        ("fe80::1", "link"),
    ]:
        assert why in fetch.address_refused(address), address
    assert fetch.address_refused("93.184.216.34") is None
    assert fetch.address_refused("10.1.2.3", ("10.0.0.0/8",)) is None


async def test_every_redirect_is_checked_again(workspace, site):
    ctx = make_ctx(workspace, fetch_allow_networks=LOOPBACK)
    assert f"URL: {site.url}/page" in await fetch.fetch_url(ctx, f"{site.url}/to-page")
    metadata = await fetch.fetch_url(ctx, f"{site.url}/to-metadata")
    assert "169.254.169.254 resolves to 169.254.169.254, a link-local address" in metadata
    assert "10.0.0.1, a private network address" in await fetch.fetch_url(ctx, f"{site.url}/to-ten")
    assert "::1, a loopback address" in await fetch.fetch_url(ctx, f"{site.url}/to-v6")  # 127/8 is not ::1
    assert "more than 5 redirects" in await fetch.fetch_url(ctx, f"{site.url}/loop")
    paths = [r["path"] for r in site.requests]
    assert "/latest/meta-data/" not in paths and paths.count("/page") == 1


async def test_every_address_is_checked_and_the_connection_goes_to_the_checked_one(workspace, site, monkeypatch):
    names = {"docs.example": ["127.0.0.1"], "internal.example": ["127.0.0.1", "10.0.0.5"], "127.0.0.1": ["127.0.0.1"]}
    lookups: list[str] = []

    async def resolve(host: str, port: int) -> list[str]:
        lookups.append(host)
        return names[host]

    monkeypatch.setattr(fetch, "resolve", resolve)
    ctx = make_ctx(workspace, fetch_allow_networks=LOOPBACK)
    answer = await fetch.fetch_url(ctx, f"http://docs.example:{site.port}/page")
    assert "# Install" in answer
    # No second lookup could have found docs.example: the request went to the address checked.
    assert site.requests[-1] == {"path": "/page", "host": f"docs.example:{site.port}"}
    assert lookups == ["docs.example"]  # once
    refused = await fetch.fetch_url(ctx, f"{site.url}/to-internal")
    assert "internal.example resolves to 10.0.0.5, a private network address" in refused
    assert [r["path"] for r in site.requests].count("/page") == 1


async def test_long_text_is_capped_by_the_window_and_read_on_with_offset(workspace, site):
    ctx = make_ctx(workspace, fetch_allow_networks=LOOPBACK, context_window=32_768)
    cap = fetch.text_cap(32_768)
    assert cap == int(32_768 * fetch.WINDOW_SHARE * fetch.CHARS_PER_TOKEN) < len(LONG)
    first = await fetch.fetch_url(ctx, f"{site.url}/long")
    assert f"[characters 0-{cap} of {len(LONG)}; continue with offset={cap}]" in first
    assert first.endswith(LONG[:cap])
    more = await fetch.fetch_url(ctx, f"{site.url}/long", offset=cap, length=12)
    assert more.endswith("\n\n" + LONG[cap : cap + 12])
    last = await fetch.fetch_url(ctx, f"{site.url}/long", offset=len(LONG) - 6)
    assert f"[characters {len(LONG) - 6}-{len(LONG)} of {len(LONG)}]" in last
    assert "past the end" in await fetch.fetch_url(ctx, f"{site.url}/long", offset=len(LONG) + 1)


async def test_what_is_not_a_text_page_is_refused_plainly(workspace, site):
    ctx = make_ctx(workspace, fetch_allow_networks=LOOPBACK)
    assert "image/png, not text" in await fetch.fetch_url(ctx, f"{site.url}/image")
    assert (await fetch.fetch_url(ctx, f"{site.url}/missing")).startswith("Error: HTTP 404\n")
    assert "only http and https" in await fetch.fetch_url(ctx, "file:///etc/passwd")
    assert "cannot resolve" in await fetch.fetch_url(ctx, "http://no-such-host.invalid/")


def test_the_cheap_tier_clears_old_fetch_results():
    from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart, UserPromptPart

    from agent.compaction.rebuild import cheap_tier

    history = [ModelRequest(parts=[UserPromptPart("look it up")])]
    for n in range(3):
        history += [
            ModelResponse(parts=[ToolCallPart("fetch_url", {"url": f"http://x/{n}"}, tool_call_id=f"c{n}")]),
            ModelRequest(parts=[ToolReturnPart("fetch_url", LONG[:20_000], tool_call_id=f"c{n}")]),
        ]
    history.append(ModelResponse(parts=[TextPart("done")]))
    cleared, saved = cheap_tier(history, 8_000)
    assert saved > 0 and cleared[2].parts[0].content != LONG[:20_000]


def test_print_mode_declines_a_new_domain_and_exits_3(workspace, home, server, site):
    result = run_main(
        ["--base-url", server.base_url, "-p", f"fetch {site.url}/page", "--fetch-allow-network", "127.0.0.1"],
        workspace,
        home,
    )
    assert result.returncode == 3 and "Declined to fetch" in result.stderr and site.requests == []
    bad = run_main(["--base-url", server.base_url, "-p", "hi", "--fetch-allow-network", "nope"], workspace, home)
    assert bad.returncode == 2 and "'nope' is not an address or network" in bad.stderr
