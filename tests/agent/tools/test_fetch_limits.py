"""fetch_url's bounds against a real HTTP server on 127.0.0.1: the HTML conversion runs in a worker
the event loop does not wait on and Ctrl-C kills, the whole fetch has one deadline (a server that
trickles bytes cannot hold a run), and an IPv6 address is checked by the IPv4 address it carries.
How long each takes is bench/fetch_bounds.py's to measure; these tests follow the events."""

from __future__ import annotations

import asyncio
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from agent.tools import fetch_url as fetch
from tests.agent.tools.test_fetch_url import LOOPBACK, make_ctx
from tests.test_main import run_main

UNIT = '<p>Some <b>bold <i>and</i> italic</b> text, <a href="/x">a link</a> and <code>code</code>.</p>'
BIG = ("<html><body>" + UNIT * (3_000_000 // len(UNIT)) + "</body></html>").encode()


class SlowSite:
    """/big: 3 MB of inline markup at once; /trickle: a text page one byte at a time, without end."""

    def __init__(self) -> None:
        self.stop_event = threading.Event()
        site = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                self.send_response(200)
                if self.path == "/big":
                    self.send_header("Content-Type", "text/html")
                    self.send_header("Content-Length", str(len(BIG)))
                    self.end_headers()
                    self.wfile.write(BIG)
                    return
                self.send_header("Content-Type", "text/plain")
                self.end_headers()
                try:
                    while not site.stop_event.wait(0.05):
                        self.wfile.write(b"x")
                        self.wfile.flush()
                except OSError:
                    pass  # the client went away

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()

    def close(self) -> None:
        self.stop_event.set()
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def slow_site():
    site = SlowSite()
    yield site
    site.close()


def html_workers(parent: int | None = None) -> list[int]:
    """Our children (or `parent`'s) that are HTML workers, from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            if ppid == (parent or os.getpid()) and b"html_worker" in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except (OSError, IndexError, ValueError):
            continue
    return found


async def test_the_conversion_runs_beside_the_loop_and_cancel_kills_it(workspace, slow_site):
    ctx = make_ctx(workspace, fetch_allow_networks=LOOPBACK)
    task = asyncio.create_task(fetch.fetch_url(ctx, f"{slow_site.url}/big"))
    turns_while_converting = 0
    while not task.done():
        await asyncio.sleep(0.01)
        if html_workers():
            turns_while_converting += 1
            if turns_while_converting == 20:  # the loop kept turning while the worker converted
                break
    assert turns_while_converting == 20, f"the loop did not turn during a conversion: {task.result()[:200]}"
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert html_workers() == []


async def test_a_page_larger_than_the_conversion_cap_is_cut_and_says_so(workspace, slow_site, monkeypatch):
    monkeypatch.setattr(fetch, "MAX_HTML", 20_000)
    ctx = make_ctx(workspace, fetch_allow_networks=LOOPBACK)
    answer = await fetch.fetch_url(ctx, f"{slow_site.url}/big")
    assert f"[the page's HTML is {len(BIG):,} characters: its first 20,000 were converted]" in answer
    assert "**bold *and* italic**" in answer


async def test_a_trickling_server_is_stopped_by_the_whole_fetchs_deadline(workspace, slow_site, monkeypatch):
    monkeypatch.setenv("CODING_AGENT_FETCH_TIMEOUT", "1")
    ctx = make_ctx(workspace, fetch_allow_networks=LOOPBACK)
    # The outer bound only turns a hang into a failure; the deadline under test is the 1 s above.
    answer = await asyncio.wait_for(fetch.fetch_url(ctx, f"{slow_site.url}/trickle"), 60)
    assert answer.startswith("Error: the fetch took longer than 1 s"), answer


def test_print_mode_ends_against_a_trickling_server(workspace, home, server, slow_site):
    done = run_main(
        [
            "--base-url",
            server.base_url,
            "--yes",
            "--fetch-allow-network",
            "127.0.0.0/8",
            "-p",
            f"fetch {slow_site.url}/trickle",
        ],
        workspace,
        home,
        env={"CODING_AGENT_FETCH_TIMEOUT": "2"},
        timeout=90,
    )
    assert done.returncode == 0, done.stderr
    fetched = [m for m in server.requests[-1]["body"]["messages"] if m["role"] == "tool"]
    assert fetched and "the fetch took longer than 2 s" in fetched[0]["content"]


@pytest.mark.parametrize(
    ("address", "carried"),
    [
        ("::127.0.0.1", "127.0.0.1"),
        ("::ffff:10.0.0.1", None),
        ("64:ff9b::a9fe:a9fe", "169.254.169.254"),
        ("2002:7f00:1::1", "127.0.0.1"),
        ("2002:c0a8:101::", "192.168.1.1"),
        ("2001:0:4136:e378:8000:63bf:80ff:fffe", None),
    ],
)
def test_an_ipv6_address_is_checked_by_the_ipv4_address_it_carries(address, carried):
    why = fetch.address_refused(address)
    assert why is not None, address
    if carried:
        assert f"({carried}, carried in " in why


def test_public_addresses_carried_in_ipv6_pass_and_an_allowed_network_is_allowed():
    assert "local-use NAT64" in fetch.address_refused("64:ff9b:1::808:808")
    assert fetch.address_refused("64:ff9b::808:808") is None and fetch.address_refused("2002:808:808::1") is None
    assert fetch.address_refused("::127.0.0.1", LOOPBACK) is None  # the user allowed the network it carries


async def test_a_url_with_an_embedded_loopback_address_is_refused_before_connecting(workspace, slow_site):
    ctx = make_ctx(workspace)
    port = slow_site.url.rsplit(":", 1)[1]
    for host in ("[::127.0.0.1]", "[64:ff9b::7f00:1]", "[2002:7f00:1::]"):
        answer = await fetch.fetch_url(ctx, f"http://{host}:{port}/big")
        assert "a loopback address (127.0.0.1, carried in" in answer, answer
