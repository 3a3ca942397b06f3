"""What every request to the director's web server passes through before its route:
the security headers on every answer, and for every request that changes something the
checks that keep another site's page from making a director's browser send it.

A change is a POST of JSON. A browser sends ``Origin`` with every POST; one from another
origin (or ``null``) is refused (403), and a POST that is not ``application/json`` is
refused (415): a plain HTML form or a ``text/plain`` fetch, the two cross-site requests
a browser sends without asking the server first, can never reach a route. With the
session cookie ``SameSite=Strict`` (not sent at all on a request another site starts)
these make a per-session CSRF token unnecessary (docs/director.md, "Security").
A client that is not a browser (a script with a session cookie) sends no ``Origin``,
and is let through: it cannot be made to act by someone else's page.

``read_json`` reads a body with limits (size, nesting depth, digits of a number, no
NaN), so no request can make the server spend without bound or answer 500.

A route refuses a request by raising ``Refused`` where it finds what is wrong (in a
helper as well as in the route itself); the app's one handler (``refused``) turns it
into the answer: the status, what went wrong and what to do.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from table_controller.director.store import finite
from table_controller.errors import TableControllerError
from table_controller.safe_json import JSONLimitError, loads_limited
from table_controller.web.guard import adding_headers

MAX_BODY = 16_384
MAX_DEPTH = 16
MAX_INT_DIGITS = 18
FORMS = "use the dashboard's forms"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
HEADERS = (
    (
        b"content-security-policy",
        b"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self';"
        b" connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self';"
        b" frame-ancestors 'none'",
    ),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
)


class Guard:
    """ASGI middleware: the headers on every answer, Origin and JSON on every change."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        send_with_headers = adding_headers(send, HEADERS)
        refusal = None if scope["method"] in SAFE_METHODS else _refuse_change(scope)
        if refusal is not None:
            await refusal(scope, receive, send_with_headers)
            return
        await self.app(scope, receive, send_with_headers)


def _refuse_change(scope: Scope) -> Response | None:
    headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
    origin = headers.get("origin")
    if origin is not None:
        own = f"{scope.get('scheme', 'http')}://{headers.get('host', '')}"
        if origin.rstrip("/").lower() != own.lower():
            return problem(
                403,
                f"a change sent from another site ({origin[:100]}) is refused",
                "use the director's dashboard itself",
            )
    kind = headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        return problem(
            415,
            f"a change must be sent as application/json, not {kind[:60] or 'nothing'}",
            "use the dashboard's forms",
        )
    length = headers.get("content-length", "0")
    if not length.isdigit() or len(length) > 9 or int(length) > MAX_BODY:
        return problem(413, "the request is too large", "send one form at a time")
    return None


class Refused(TableControllerError):
    """A request refused: its answer's status, what went wrong and what to do."""

    def __init__(self, status: int, what: str, fix: str) -> None:
        super().__init__(what)
        self.status = status
        self.what = what
        self.fix = fix


async def refused(request: Request, exc: Exception) -> Response:
    """The app's handler for ``Refused``: the answer the refusal names."""
    if not isinstance(exc, Refused):  # pragma: no cover - registered for Refused only
        raise exc
    return problem(exc.status, exc.what, exc.fix)


async def read_json(request: Request) -> dict[str, Any]:
    """The request's JSON object; ``Refused`` (4xx) says what is wrong with it."""
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise Refused(413, "the request is too large", "send one form at a time")
    try:
        obj = loads_limited(body or b"{}", max_depth=MAX_DEPTH, max_int_digits=MAX_INT_DIGITS)
    except JSONLimitError as exc:
        raise Refused(400, f"the request is not JSON within the limits: {exc}", FORMS) from None
    if not isinstance(obj, dict):
        raise Refused(400, "the request is not a JSON object", FORMS)
    return obj


class SafeJSON(JSONResponse):
    """A JSON answer that never fails on a NaN a table sent: it goes out as null."""

    def render(self, content: Any) -> bytes:
        try:
            return super().render(content)
        except ValueError:
            return super().render(finite(content))


def problem(status: int, what: str, fix: str) -> JSONResponse:
    return JSONResponse({"ok": False, "problem": what, "fix": fix}, status_code=status)


__all__ = ["MAX_BODY", "Guard", "Refused", "SafeJSON", "problem", "read_json", "refused"]
