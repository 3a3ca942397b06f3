"""The one door of every web listener: the table's page, the join page and the
director's dashboard. The headers every answer carries, what a request that changes
something must pass, the one ``Refused`` a route raises, and the table operator's
session.

The pages are served on a venue's network, where any visitor's browser may be made to
send them requests by any web site. So a request that changes something must be JSON
(``Content-Type: application/json``): a form or ``text/plain`` is what a foreign page can
send without asking, JSON is not (the browser asks first, and the page never says yes).
Its ``Origin``, when given, must be the listener's own, exactly as a browser writes it
(``null`` is not): a browser always sends one with a POST, so a request without one is
a program's (curl, a test, a table asking the director to join), which could write any
Origin it liked: refusing it would stop no one. Where the listener names the hosts it
answers (the table's page: any IP address, ``localhost`` or this machine's name), the
``Host`` must be one of them, so a site whose name is pointed at the table (DNS
rebinding) is not the page's own origin either. The body is at most 16 KiB, its length
a plain number, of JSON within the listener's limits of nesting and digits
(safe_json.py). Each listener says its refusals in its own words (a ``Door``): a
player reads the table's, a director the dashboard's; the checks are the same.

The table's page checks each change in its route (``guard_post``), so every refusal is
noted in the table's log with who sent it; the director's listeners in one middleware
(``Guard``) before any route, and its routes read their JSON with ``read_json``.

The operator's session is a cookie signed with a key made when the page starts
(itsdangerous), holding the time it was made: it expires after ``seconds``, a restart or
a log-out ends every session, and it is HttpOnly and SameSite=Strict, so no script and
no other site's page can use it; over HTTPS (a page open to the network) it is Secure
too, so a browser never sends it in clear. The Origin a request must carry is the page's
own with the scheme it was served by (``https://NAME:PORT`` on the network).
"""

from __future__ import annotations

import html
import ipaddress
import secrets
import socket
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from itsdangerous import BadSignature, TimestampSigner
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from table_controller.errors import TableControllerError
from table_controller.safe_json import MAX_DEPTH, MAX_INT_DIGITS, JSONLimitError, loads_limited

MAX_BODY = 16_384  # bytes of a request's body, on every listener
SESSION_SECONDS = 900.0  # an operator's session: 15 minutes
COOKIE = "table_operator"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# The Content-Security-Policy's directives but the first, the same on every listener:
# scripts, styles, images and connections from the listener's own files only, no
# plug-ins, no <base>, no form sent by the browser itself (every form is sent by the
# page's script, as JSON), never in a frame.
CSP_DIRECTIVES = (
    "script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
# Every other header, on every answer of every listener (refusals too): never in a
# frame, no guessing of content types, no Referer sent on, no window or resource of the
# listener shared with another site's.
HEADERS = (
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
)
PAGE_FIX = "use the buttons on the table's own page"
ACTION_FIX = 'send one of the page\'s actions, such as {"event": "passed", "seat": "N"}'


def content_security_policy(default_src: str = "'none'") -> str:
    """The policy of a listener whose pages load anything else from ``default_src``
    (the table's nothing; the dashboard's its own origin)."""
    return f"default-src {default_src}; {CSP_DIRECTIVES}"


@dataclass(frozen=True)
class Door:
    """How one listener says its refusals, and the limits of the JSON it reads: the
    checks are the same on every listener, the words are its readers' (``{kind}``,
    ``{origin}`` and ``{error}`` are filled in), and ``default_src`` is what its pages
    may load from besides what ``CSP_DIRECTIVES`` names."""

    not_json: str
    not_json_fix: str
    no_kind: str
    foreign: str
    foreign_fix: str
    wrong_host: str
    wrong_host_fix: str
    too_large: str
    too_large_fix: str
    unreadable: str
    unreadable_fix: str
    max_depth: int = MAX_DEPTH
    max_int_digits: int = MAX_INT_DIGITS
    default_src: str = "'none'"

    @property
    def headers(self) -> tuple[tuple[bytes, bytes], ...]:
        """Every header this listener's answers carry."""
        csp = content_security_policy(self.default_src).encode()
        return ((b"content-security-policy", csp), *HEADERS)


TABLE_DOOR = Door(
    not_json="the input was sent as {kind}, not application/json",
    not_json_fix=PAGE_FIX,
    no_kind="no type",
    foreign="the input came from another site's page ({origin})",
    foreign_fix=PAGE_FIX,
    wrong_host="the page was asked for as {host}, not by this table's address or name",
    wrong_host_fix="open the page at the address the table prints when it starts",
    too_large="the input is too large",
    too_large_fix="send one action from the page",
    unreadable="the input is not JSON the table can read ({error})",
    unreadable_fix=ACTION_FIX,
)


@dataclass(frozen=True)
class Sender:
    """Who sent a request: the client's address, and whether it holds an operator
    session (the operator's PIN was given on this table)."""

    address: str
    operator: bool = False


class Refused(TableControllerError):
    """A request refused, at the door or by its route: the answer's HTTP status, the
    problem and what to do."""

    def __init__(self, status: int, problem: str, fix: str) -> None:
        super().__init__(problem)
        self.status, self.problem, self.fix = status, problem, fix


def problem(status: int, what: str, fix: str) -> JSONResponse:
    """The answer to a refused request, the same on every listener."""
    return JSONResponse({"ok": False, "problem": what, "fix": fix}, status_code=status)


async def refused(request: Request, exc: Exception) -> Response:
    """A Starlette app's handler for ``Refused``: the answer the refusal names."""
    if not isinstance(exc, Refused):  # pragma: no cover - registered for Refused only
        raise exc
    return problem(exc.status, exc.problem, exc.fix)


def words_page(status: int, title: str, text: str, back: str = "/") -> HTMLResponse:
    """A short page that says what went wrong and what to do, for a person who opened
    an address in a browser (where a JSON answer would be unreadable)."""
    body = (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)}</title></head><body>"
        f"<h1>{html.escape(title)}</h1><p>{html.escape(text)}</p>"
        f'<p><a href="{html.escape(back)}">Back</a></p></body></html>'
    )
    return HTMLResponse(body, status_code=status, headers={"Cache-Control": "no-store"})


def adding_headers(send: Send, headers: Sequence[tuple[bytes, bytes]]) -> Send:
    """``send`` with ``headers`` added to the answer's start (those it does not set
    itself)."""

    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            have = {name.lower() for name, _ in message.get("headers", [])}
            extra = [(n, v) for n, v in headers if n not in have]
            message = {**message, "headers": [*message.get("headers", []), *extra]}
        await send(message)

    return sending


def secure_headers(app: ASGIApp, door: Door = TABLE_DOOR) -> ASGIApp:
    """``app`` with the door's headers on every answer (the page, its files, the
    stream, the errors): the table's page, whose routes check each change themselves
    (``guard_post``), the join page and the director's plain-HTTP redirect, which take
    none."""
    headers = door.headers

    async def with_headers(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        await app(scope, receive, adding_headers(send, headers))

    return with_headers


class Guard:
    """ASGI middleware: the door's headers on every answer, and every change (any
    method but GET, HEAD and OPTIONS) checked (``change_refusal``) before its route."""

    def __init__(self, app: ASGIApp, door: Door, hosts: HostNames | None = None) -> None:
        self.app, self.door, self.hosts = app, door, hosts
        self._headers = door.headers

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        send_with_headers = adding_headers(send, self._headers)
        if scope["method"] not in SAFE_METHODS:
            headers = {
                k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]
            }
            why = change_refusal(headers, scope.get("scheme", "http"), self.door, self.hosts)
            if why is not None:
                answer = problem(why.status, why.problem, why.fix)
                await answer(scope, receive, send_with_headers)
                return
        await self.app(scope, receive, send_with_headers)


def change_refusal(
    headers: Mapping[str, str], scheme: str, door: Door, hosts: HostNames | None
) -> Refused | None:
    """Why a change with these (lower-cased) headers is refused, or None: not JSON (415),
    a host not the listener's (403, where it names its hosts), another origin (403), a
    length that is not a number or over ``MAX_BODY`` (413)."""
    kind = headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        return Refused(
            415, door.not_json.format(kind=_short(kind) or door.no_kind), door.not_json_fix
        )
    host = headers.get("host", "")
    if hosts is not None and host not in hosts:
        return Refused(
            403, door.wrong_host.format(host=_short(host) or "no host"), door.wrong_host_fix
        )
    origin = headers.get("origin")
    if origin is not None and origin != f"{scheme}://{host}":
        return Refused(403, door.foreign.format(origin=_short(origin)), door.foreign_fix)
    length = headers.get("content-length", "0")
    if not length.isdigit() or len(length) > 9 or int(length) > MAX_BODY:
        return Refused(413, door.too_large, door.too_large_fix)
    return None


async def read_body(request: Request, door: Door) -> Any:
    """The request's JSON, read no further than ``MAX_BODY`` (413) and within the
    door's limits (400); an empty body is not JSON."""
    body = await _body(request, door)
    try:
        return loads_limited(body, max_depth=door.max_depth, max_int_digits=door.max_int_digits)
    except JSONLimitError as exc:
        raise Refused(400, door.unreadable.format(error=exc), door.unreadable_fix) from None


async def read_json(request: Request, door: Door) -> dict[str, Any]:
    """The request's JSON object, an empty body an empty one; ``Refused`` (4xx) says
    what is wrong with it."""
    body = await _body(request, door)
    try:
        obj = loads_limited(
            body or b"{}", max_depth=door.max_depth, max_int_digits=door.max_int_digits
        )
    except JSONLimitError as exc:
        raise Refused(400, door.unreadable.format(error=exc), door.unreadable_fix) from None
    if not isinstance(obj, dict):
        raise Refused(400, "the request is not a JSON object", door.unreadable_fix)
    return obj


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
    request: Request,
    hosts: HostNames,
    sessions: OperatorSessions | None,
    door: Door = TABLE_DOOR,
) -> tuple[Any, Sender]:
    """The table page's door, in its route: the checked JSON of a state-changing
    request and who sent it; raises ``Refused``."""
    client = request.client
    sender = Sender(
        client.host if client is not None else "unknown",
        operator=sessions is not None and sessions.valid(request.cookies.get(COOKIE)),
    )
    headers = {k.lower(): v for k, v in request.headers.items()}
    why = change_refusal(headers, request.url.scheme, door, hosts)
    if why is not None:
        raise why
    return await read_body(request, door), sender


async def _body(request: Request, door: Door) -> bytes:
    """The body, read no further than the limit."""
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise Refused(413, door.too_large, door.too_large_fix)
    return bytes(body)


def _short(text: str) -> str:
    """A header as shown in a message: printable, at most 60 characters."""
    shown = "".join(c if c.isprintable() else "?" for c in text[:60])
    return shown + ("..." if len(text) > 60 else "")


__all__ = [
    "ACTION_FIX",
    "COOKIE",
    "CSP_DIRECTIVES",
    "HEADERS",
    "MAX_BODY",
    "SAFE_METHODS",
    "TABLE_DOOR",
    "Door",
    "Guard",
    "HostNames",
    "OperatorSessions",
    "Refused",
    "Sender",
    "adding_headers",
    "change_refusal",
    "content_security_policy",
    "guard_post",
    "problem",
    "read_body",
    "read_json",
    "refused",
    "secure_headers",
    "words_page",
]
