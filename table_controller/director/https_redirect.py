"""Plain HTTP that only sends a browser to the HTTPS dashboard.

Why: a director or a volunteer types ``laptop:8080`` or follows an old ``http://`` link;
the dashboard itself answers only TLS, so nothing of a login, a session or a table's
game ever crosses the venue's network in clear. This listener answers every request with
a redirect to the same path over HTTPS, and reads nothing from the request but its host
name and path. A ``Host`` that is not a plain name or address is refused, so the
redirect cannot be turned into a link to somewhere else.
"""

from __future__ import annotations

import re

from starlette.types import ASGIApp, Receive, Scope, Send

_HOST = re.compile(r"^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]{1,253})(:\d{1,5})?$")


def https_location(host_header: str, path: str, query: str, https_port: int) -> str | None:
    """The HTTPS address of a plain request, or None when its host is not a name."""
    found = _HOST.match(host_header.strip())
    if found is None or any(ord(c) < 0x21 or ord(c) > 0x7E for c in path + query):
        return None  # a name that is none, or a path that would break the header
    tail = path if path.startswith("/") else "/"
    return f"https://{found.group(1)}:{https_port}{tail}" + (f"?{query}" if query else "")


def redirect_app(https_port: int) -> ASGIApp:
    """The ASGI app of the plain HTTP port: 301 (308 for a form sent) to HTTPS."""

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        headers = dict(scope.get("headers") or [])
        host = headers.get(b"host", b"").decode("latin-1")
        query = scope.get("query_string", b"").decode("latin-1")
        raw = scope.get("raw_path") or str(scope.get("path", "/")).encode()
        where = https_location(host, raw.decode("latin-1"), query, https_port)
        if where is None:
            body = b"This address is not the dashboard's: type https:// and its address.\n"
            status, extra = 400, []
        else:
            body = f"The dashboard is HTTPS: {where}\n".encode()
            status = 301 if scope.get("method") in ("GET", "HEAD") else 308
            extra = [(b"location", where.encode())]
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"text/plain; charset=utf-8"),
                    (b"content-length", str(len(body)).encode()),
                    (b"cache-control", b"no-store"),
                    *extra,
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})

    return app


__all__ = ["https_location", "redirect_app"]
