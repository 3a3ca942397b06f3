"""The door of the table's page: what a state-changing request must pass, the operator's
session, and the headers every answer carries.

The page is served on the venue's network, where any visitor's browser may be made to
send it requests by any web site. So a request that changes something must be JSON
(``Content-Type: application/json``): a form or ``text/plain`` is what a foreign page can
send without asking, JSON is not (the browser asks first, and the page never says yes).
Its ``Origin``, when given, must be the page's own; a browser always sends one with a
POST, so a request without one is a program's (curl, a test), which could write any
Origin it liked: refusing it would stop no one. The ``Host`` it names must be an address,
``localhost`` or this machine's name, so a site whose name is pointed at the table (DNS
rebinding) is not the page's own origin either. The body is at most 16 KiB of JSON
nested at most 32 deep, with numbers of at most 30 digits (safe_json.py).

The operator's session is a cookie signed with a key made when the page starts
(itsdangerous), holding the time it was made: it expires after ``seconds``, a restart or
a log-out ends every session, and it is HttpOnly and SameSite=Strict, so no script and
no other site's page can use it; over HTTPS (a page open to the network) it is Secure
too, so a browser never sends it in clear. The Origin a request must carry is the page's
own with the scheme it was served by (``https://NAME:PORT`` on the network).
"""

from __future__ import annotations

import ipaddress
import secrets
import socket
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from itsdangerous import BadSignature, TimestampSigner
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from table_controller.errors import TableControllerError
from table_controller.safe_json import JSONLimitError, loads_limited

MAX_INPUT_BYTES = 16_384
SESSION_SECONDS = 900.0  # an operator's session: 15 minutes
COOKIE = "table_operator"
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
HEADERS = (
    (b"content-security-policy", CSP.encode()),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
)
PAGE_FIX = "use the buttons on the table's own page"
ACTION_FIX = 'send one of the page\'s actions, such as {"event": "passed", "seat": "N"}'


@dataclass(frozen=True)
class Sender:
    """Who sent a request: the client's address, and whether it holds an operator
    session (the operator's PIN was given on this table)."""

    address: str
    operator: bool = False


class Denied(TableControllerError):
    """A request refused at the door: the HTTP status, the problem, what to do."""

    def __init__(self, status: int, problem: str, fix: str) -> None:
        super().__init__(problem)
        self.status, self.problem, self.fix = status, problem, fix


def adding_headers(send: Send, headers: Sequence[tuple[bytes, bytes]]) -> Send:
    """``send`` with ``headers`` added to the answer's start (those it does not set
    itself): the one way the table's page and the director's add their security headers."""

    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            have = {name.lower() for name, _ in message.get("headers", [])}
            extra = [(n, v) for n, v in headers if n not in have]
            message = {**message, "headers": [*message.get("headers", []), *extra]}
        await send(message)

    return sending


def secure_headers(app: ASGIApp) -> ASGIApp:
    """``app`` with the security headers on every answer (the page, its files, the
    stream, the errors): scripts and styles only from the page's own files, never in a
    frame, no guessing of content types, no Referer sent on."""

    async def with_headers(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        await app(scope, receive, adding_headers(send, HEADERS))

    return with_headers


class _ClockSigner(TimestampSigner):
    """itsdangerous's timestamped signer on the page's wall clock (a test's, in tests)."""

    def __init__(self, key: bytes, clock: Callable[[], float]) -> None:
        super().__init__(key, salt="table-operator")
        self._clock = clock

    def get_timestamp(self) -> int:
        return int(self._clock())


class OperatorSessions:
    """The operator's signed, expiring session cookies."""

    def __init__(
        self, seconds: float = SESSION_SECONDS, clock: Callable[[], float] = time.time
    ) -> None:
        self.seconds = seconds
        self._signer = _ClockSigner(secrets.token_bytes(32), clock)
        self._generation = 0  # raised by a log-out: every older cookie stops counting

    def issue(self) -> str:
        return self._signer.sign(f"operator.{self._generation}").decode()

    def valid(self, cookie: str | None) -> bool:
        if not cookie or len(cookie) > 200:
            return False
        try:
            value = self._signer.unsign(cookie, max_age=int(self.seconds))
        except BadSignature:  # forged, from before a restart, or expired
            return False
        return value == f"operator.{self._generation}".encode()

    def end_all(self) -> None:
        self._generation += 1


class HostNames:
    """The names the page answers input under: any IP address, ``localhost``, this
    machine's name (and NAME.local, its mDNS name), and the configured host."""

    def __init__(self, *extra: str) -> None:
        name = socket.gethostname().lower()
        self.names = {"localhost", name, f"{name}.local", *(e.lower() for e in extra if e)}

    def add(self, name: str) -> None:
        self.names.add(name.lower())

    def __contains__(self, host: object) -> bool:
        if not isinstance(host, str) or not host:
            return False
        if host.startswith("["):
            name = host[1 : host.find("]")] if "]" in host else ""
        else:
            name = host.rsplit(":", 1)[0] if host.count(":") == 1 else host
        name = name.lower().rstrip(".")
        try:
            ipaddress.ip_address(name)
        except ValueError:
            return name in self.names
        return True


async def guard_post(
    request: Request, hosts: HostNames, sessions: OperatorSessions | None
) -> tuple[Any, Sender]:
    """The checked JSON of a state-changing request and who sent it; raises ``Denied``."""
    client = request.client
    sender = Sender(
        client.host if client is not None else "unknown",
        operator=sessions is not None and sessions.valid(request.cookies.get(COOKIE)),
    )
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        raise Denied(
            415,
            f"the input was sent as {_short(kind) or 'no type'}, not application/json",
            PAGE_FIX,
        )
    host = request.headers.get("host", "")
    if host not in hosts:
        raise Denied(
            403,
            f"the page was asked for as {_short(host) or 'no host'}, not by this table's "
            "address or name",
            "open the page at the address the table prints when it starts",
        )
    origin = request.headers.get("origin")
    if origin is not None and origin != f"{request.url.scheme}://{host}":
        raise Denied(403, f"the input came from another site's page ({_short(origin)})", PAGE_FIX)
    body = await _body(request)
    try:
        return loads_limited(body), sender
    except JSONLimitError as exc:
        raise Denied(400, f"the input is not JSON the table can read ({exc})", ACTION_FIX) from None


async def _body(request: Request) -> bytes:
    """The body, read no further than the limit."""
    too_big = Denied(413, "the input is too large", "send one action from the page")
    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > MAX_INPUT_BYTES:
        raise too_big
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_INPUT_BYTES:
            raise too_big
    return bytes(body)


def _short(text: str) -> str:
    """A header as shown in a message: printable, at most 60 characters."""
    shown = "".join(c if c.isprintable() else "?" for c in text[:60])
    return shown + ("..." if len(text) > 60 else "")


__all__ = [
    "ACTION_FIX",
    "COOKIE",
    "MAX_INPUT_BYTES",
    "Denied",
    "HostNames",
    "OperatorSessions",
    "Sender",
    "guard_post",
    "secure_headers",
]
