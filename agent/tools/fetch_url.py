"""The `fetch_url` tool: GET a web page for the model, as Markdown, within a share of the window.

What it may reach: the model's URL comes from whoever wrote the pages and files it read, so a fetch
must not become a way into the user's network. Every hop (the URL, then each redirect) has its host
resolved here and every address it resolves to checked (no loopback, private, link-local or other
non-public address unless the user allowed its network); the connection then goes to the checked address
itself, with the name only in the Host header and TLS SNI, so a DNS answer that changes between the
check and the connection (DNS rebinding) cannot move it. Proxies from the environment are not used:
a proxy would resolve the name again, out of our sight.

The first fetch from a domain is asked like a command (an ApprovalRequest); "always" remembers the
domain for the session. `domain_approved` is the one check, for settings rules to extend.

HTML becomes Markdown with markdownify (MIT, pinned in pyproject.toml): small (BeautifulSoup and
six), maintained, it keeps links, headings, code blocks and tables, and drops scripts and styles.
html2text is GPL-3.0, which this project's users could not ship alongside; trafilatura extracts
the main text better but brings lxml and a dozen packages, too much for one tool. The conversion runs
in a worker process (agent.tools.html_worker) on at most MAX_HTML characters.

Time: the whole fetch (every hop's name lookup, connection and body, and the conversion) has one
deadline, so a server that trickles a byte at a time cannot hold a `-p` run for ever; the time the
user takes to answer the domain question does not count. Ctrl-C cancels the reads and kills the worker.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import os
import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

from pydantic_ai import RunContext

from agent.events import ApprovalRequest, ask
from agent.state.app import AppState  # at run time: pydantic-ai reads the tool's type hints
from agent.tools.preapproval import preapproved

# The page's text may take this share of the context window (in tokens, at about 3.5 characters a
# token for English prose and Markdown): 5% is 6.5k tokens at 131k, and the model reads on with offset.
WINDOW_SHARE = 0.05
CHARS_PER_TOKEN = 3.5
MIN_CAP, MAX_CAP = 2_000, 100_000  # characters; MAX_CAP is read_file's own cap
MAX_BYTES = 5_000_000  # read of a body at most: a page is not a download
MAX_HTML = 500_000  # characters of HTML converted at most: markdownify's time grows with each one
MAX_REDIRECTS = 5
TIMEOUT = 30.0  # seconds one read may wait
DEADLINE = 60.0  # seconds the whole fetch may take (CODING_AGENT_FETCH_TIMEOUT)
USER_AGENT = "coding-agent-compact (fetch_url)"
TEXT_TYPES = ("text/", "application/json", "application/xml", "application/xhtml+xml", "application/javascript")


class FetchError(Exception):
    """A fetch refused or failed: told to the model as "Error: <message>"."""


@dataclass
class Page:
    url: str
    status: int
    content_type: str
    text: str
    html: bool = False  # `text` is HTML still to be converted


class Budget:
    """The time left of the fetch's one deadline, spent only inside `spend()` (not while the user
    answers the domain question)."""

    def __init__(self, seconds: float) -> None:
        self.total = self.left = seconds

    @contextlib.asynccontextmanager
    async def spend(self) -> AsyncIterator[None]:
        loop = asyncio.get_running_loop()
        start = loop.time()
        try:
            async with asyncio.timeout(max(self.left, 0.0)):
                yield
        except TimeoutError:
            raise self.over() from None
        finally:
            self.left -= loop.time() - start

    def over(self) -> FetchError:
        return FetchError(
            f"the fetch took longer than {self.total:g} s (lookups, connections, the page and its "
            "conversion together): stopped"
        )


def deadline() -> float:
    try:
        return float(os.environ.get("CODING_AGENT_FETCH_TIMEOUT", DEADLINE))
    except ValueError:
        return DEADLINE


def text_cap(window: int) -> int:
    return max(MIN_CAP, min(MAX_CAP, int(window * WINDOW_SHARE * CHARS_PER_TOKEN)))


def parse_networks(text: str | None) -> tuple[str, ...]:
    """`--fetch-allow-network 127.0.0.0/8,10.1.0.0/16`: the networks fetch_url may reach although they
    are not public. Raises ValueError for one that is not a network."""
    out = []
    for item in (text or "").replace(",", " ").split():
        try:
            out.append(str(ipaddress.ip_network(item, strict=False)))
        except ValueError as exc:
            raise ValueError(f"{item!r} is not an address or network (e.g. 127.0.0.0/8)") from exc
    return tuple(out)


# IPv6 forms that carry an IPv4 address, which a NAT64 gateway, a 6to4 relay or the host itself may
# deliver to: NAT64's well-known prefix (RFC 6052) and the deprecated IPv4-compatible form (::a.b.c.d);
# ::ffff:a.b.c.d, 6to4 (2002::/16) and Teredo (2001::/32) ipaddress knows itself. NAT64's local-use
# prefix (RFC 8215) places the IPv4 address as each network chooses: it is refused whole.
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")
_V4_COMPATIBLE = ipaddress.ip_network("::/96")


def embedded_ipv4(ip: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses `ip` carries, by every form that carries one."""
    found = [a for a in (ip.ipv4_mapped, ip.sixtofour, *(ip.teredo or ())) if a is not None]
    if ip in _NAT64 or (ip in _V4_COMPATIBLE and int(ip) > 1):
        found.append(ipaddress.IPv4Address(int(ip) & 0xFFFF_FFFF))
    return found


def _refused(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str | None:
    if ip.is_loopback:
        return "a loopback address"
    if ip.is_link_local:
        return "a link-local address (cloud metadata services live there)"
    if ip.is_private:
        return "a private network address"
    return None if ip.is_global else "not a public address"


def address_refused(address: str, allowed: tuple[str, ...] = ()) -> str | None:
    """Why `address` may not be fetched from, or None. An IPv6 address that carries an IPv4 one
    (::ffff:127.0.0.1, ::127.0.0.1, NAT64, 6to4, Teredo) is refused for the IPv4 address too; a
    network the user allowed is allowed whatever it is."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if any(ip in ipaddress.ip_network(network) for network in allowed):
        return None
    if not isinstance(ip, ipaddress.IPv6Address):
        return _refused(ip)
    if ip.ipv4_mapped is not None:  # the IPv4 address it is, whatever the rest says
        return address_refused(str(ip.ipv4_mapped), allowed)
    if ip in _NAT64_LOCAL:
        return "a local-use NAT64 address (the IPv4 address it reaches cannot be told)"
    for carried in embedded_ipv4(ip):
        if any(carried in ipaddress.ip_network(network) for network in allowed):
            continue
        if why := _refused(carried):
            return f"{why} ({carried}, carried in {ip})"
    return _refused(ip)


async def resolve(host: str, port: int) -> list[str]:
    """Every address `host` has, by the system's resolver; an IP address is itself."""
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise FetchError(f"cannot resolve {host}: {exc.strerror or exc}") from exc
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


async def checked_address(host: str, port: int, allowed: tuple[str, ...]) -> str:
    """The address to connect to: `host` resolved once, and every address it has checked."""
    addresses = await resolve(host, port)
    if not addresses:
        raise FetchError(f"cannot resolve {host}")
    for address in addresses:
        if reason := address_refused(address, allowed):
            raise FetchError(
                f"{host} resolves to {address}, {reason}: not fetched (the user can allow a "
                "network with --fetch-allow-network)"
            )
    return addresses[0]


async def domain_approved(state: AppState, host: str, url: str) -> bool:
    """Whether `url` on `host` may be fetched: a permission rule on the domain (`WebFetch(domain:x)`:
    a deny refuses, an ask asks), else --allowed-tools fetch_url, --yes, a domain allowed for the
    session, or the user says so now."""
    from agent.tools.permissions import decide

    kind, rule = decide(state.permissions, "fetch_url", state.workspace, subject=host)
    if kind == "deny" and rule is not None:
        raise FetchError(f"the permission rule {rule.text!r} (deny) refuses fetching from {host}")
    if (
        kind == "allow"
        or kind != "ask"
        and (preapproved(state.config, "fetch_url") or host in state.always_allowed_domains)
    ):
        return True
    answer = await ask(state.emit, ApprovalRequest("fetch", url, why=host))
    if answer == "always":
        state.always_allowed_domains.add(host)
    return answer in ("y", "always")


def _hop(url: str) -> tuple[str, str, int]:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise FetchError(f"only http and https URLs are fetched, not {parts.scheme or 'a bare path'!r}")
    if not parts.hostname:
        raise FetchError(f"{url!r} has no host")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError as exc:
        raise FetchError(f"bad port in {url!r}") from exc
    return parts.scheme, parts.hostname.lower(), port


async def get(state: AppState, url: str, budget: Budget) -> Page:
    """GET `url`, every hop's domain approved and its address checked; redirects followed by hand."""
    import httpx2

    allowed = state.config.fetch_allow_networks
    async with httpx2.AsyncClient(trust_env=False, timeout=TIMEOUT, follow_redirects=False) as client:
        for _ in range(MAX_REDIRECTS + 1):
            scheme, host, port = _hop(url)
            if not await domain_approved(state, host, url):
                raise FetchError(f"the user declined fetching from {host}")
            async with budget.spend():
                address = await checked_address(host, port, allowed)
                target = httpx2.URL(url).copy_with(host=address)
                headers = {
                    "Host": urlsplit(url).netloc.rsplit("@", 1)[-1],
                    "User-Agent": USER_AGENT,
                    "Accept": "text/html, text/markdown, text/*;q=0.9, */*;q=0.5",
                }
                async with client.stream(
                    "GET", target, headers=headers, extensions={"sni_hostname": host} if scheme == "https" else {}
                ) as response:
                    location = response.headers.get("location")
                    if not (response.status_code in (301, 302, 303, 307, 308) and location):
                        return await _page(url, response)
            url = urljoin(url, location)
    raise FetchError(f"more than {MAX_REDIRECTS} redirects")


async def _page(url: str, response) -> Page:
    content_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type and not content_type.startswith(TEXT_TYPES):
        raise FetchError(f"{url} is {content_type}, not text: not fetched")
    body = bytearray()
    async for chunk in response.aiter_bytes():
        body += chunk
        if len(body) > MAX_BYTES:
            break
    text = bytes(body[:MAX_BYTES]).decode(response.encoding or "utf-8", errors="replace")
    html = content_type in ("text/html", "application/xhtml+xml") or (
        not content_type and "<html" in text[:1000].lower()
    )
    return Page(url, response.status_code, content_type or "unknown", text, html)


async def as_markdown(page: Page, budget: Budget) -> str:
    """The page's text, HTML converted to Markdown off the event loop within the time left."""
    from agent.tools.html_worker import ConversionFailed, convert

    if not page.html:
        return page.text
    html, note = page.text, ""
    if len(html) > MAX_HTML:
        html, note = (
            html[:MAX_HTML],
            f"[the page's HTML is {len(page.text):,} characters: its first {MAX_HTML:,} were converted]\n\n",
        )
    async with budget.spend():
        try:
            text = await convert(html, max(budget.left, 0.0))
        except ConversionFailed as exc:
            raise FetchError(str(exc)) from exc
    if text is None:
        raise budget.over()
    return note + text


def window_of(page_text: str, offset: int, length: int) -> tuple[str, str]:
    """The part of the text asked for, and the line saying where it is and how to read on."""
    total = len(page_text)
    if offset > total:
        raise FetchError(f"offset={offset} is past the end of the page ({total} characters)")
    part = page_text[offset : offset + length]
    end = offset + len(part)
    where = f"[characters {offset}-{end} of {total}"
    where += f"; continue with offset={end}]" if end < total else "]"
    return part, where


async def fetch_url(ctx: RunContext[AppState], url: str, offset: int = 0, length: int | None = None) -> str:
    """Fetch a web page (HTTP GET) and return its text; HTML comes as Markdown. Long pages come
    in parts: the answer says which `offset` reads on. The user may be asked to allow the domain.
    Addresses on the local network are refused.

    Args:
        url: The http or https URL.
        offset: Character of the page's text to start at (0 = the start).
        length: Characters to return (at most the default, which depends on the context window).
    """
    cap = text_cap(ctx.deps.config.context_window)
    try:
        if offset < 0 or (length is not None and length < 1):
            raise FetchError("offset must be 0 or more and length 1 or more")
        budget = Budget(deadline())
        page = await get(ctx.deps, url, budget)
        part, where = window_of(await as_markdown(page, budget), offset, min(length or cap, cap))
    except FetchError as exc:
        return f"Error: {exc}"
    except Exception as exc:  # noqa: BLE001 - a network failure of any kind is the model's to hear about
        return f"Error: fetching {url} failed: {type(exc).__name__}: {exc}"
    status = "" if page.status < 400 else f"Error: HTTP {page.status}\n"
    return f"{status}URL: {page.url}\nContent-Type: {page.content_type}\n{where}\n\n{part}"
