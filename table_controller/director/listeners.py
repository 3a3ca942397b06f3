"""The director's web listeners: each app built and guarded alike, bound to its port (TLS
when given), and stopped together.

Why apart from the composition (web.py): which routes go on which listener is the
composition's choice (every route on one port, or the hall's public view on a port of
its own); how a listener is built, bound, said in words when it cannot be, and stopped
is the same for each, and for the plain-HTTP redirect beside an HTTPS dashboard.
Every app answers a ``Refused`` with its status and words, and every request while the
database is down with 503 and the store's words, behind the guard of every web listener
(web/guard.py, in the director's words: door.py).
"""

from __future__ import annotations

import asyncio
import ssl

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute
from starlette.types import ASGIApp

from table_controller.director.door import DIRECTOR_DOOR, guarded
from table_controller.director.store import StoreUnavailable
from table_controller.errors import TableControllerError
from table_controller.web.guard import Refused, refused, secure_headers
from table_controller.web.guard import problem as _problem
from table_controller.web.stream import EmbeddedServer, listen, start_server, stop_server


class DashboardError(TableControllerError, OSError):
    """The dashboard could not be served: which address, and what to do."""


def guarded_app(routes: list[BaseRoute]) -> ASGIApp:
    """``routes`` as one app, its refusals and a database that is down answered in
    words, behind the guard."""
    app = Starlette(
        routes=routes, exception_handlers={StoreUnavailable: _store_down, Refused: refused}
    )
    return guarded(app)


def check_tls(tls_cert: str | None, tls_key: str | None) -> None:
    """Both or neither, and a certificate and key that load together; else
    DashboardError in words, before anything listens."""
    if (tls_cert is None) != (tls_key is None):
        raise DashboardError(
            "TLS needs both a certificate and its key: give --tls-cert and --tls-key"
        )
    if tls_cert is not None and tls_key is not None:
        try:
            ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(tls_cert, tls_key)
        except (OSError, ssl.SSLError) as exc:
            raise DashboardError(
                f"the dashboard's TLS certificate {tls_cert} or key {tls_key} cannot be "
                f"used ({exc}): check both paths, and that the key is the certificate's"
            ) from None


class Listeners:
    """The listeners serving now, in the running event loop; ``stop`` ends them all."""

    def __init__(self) -> None:
        self._servers: list[tuple[EmbeddedServer, asyncio.Task[None]]] = []

    async def serve(
        self,
        app: ASGIApp,
        host: str,
        port: int,
        flag: str,
        tls_cert: str | None,
        tls_key: str | None,
    ) -> int:
        """``app`` on ``host:port``; returns the port bound. DashboardError (an
        OSError) in words when it cannot listen, naming ``flag``, the option that
        gives another port."""
        try:
            sock = listen(host, port)
        except OSError as exc:
            raise DashboardError(
                exc.errno,
                f"the dashboard cannot listen on {host}:{port} ({exc.strerror or exc}): another "
                f"program may use that port; give another with {flag}, or stop that program",
            ) from exc
        config = uvicorn.Config(
            app,
            lifespan="off",
            ws="none",
            log_level="warning",
            access_log=False,
            timeout_graceful_shutdown=3,
            ssl_certfile=tls_cert,
            ssl_keyfile=tls_key,
            h11_max_incomplete_event_size=16_384,
        )
        bound = int(sock.getsockname()[1])

        def failed(why: str) -> DashboardError:
            return DashboardError(f"the dashboard stopped on {host}:{port}: {why}")

        self._servers.append(await start_server(config, sock, "dashboard", failed))
        return bound

    async def serve_redirect(self, host: str, port: int, https_port: int) -> int:
        """Plain HTTP on ``host:port`` that only redirects to the HTTPS dashboard on
        ``https_port`` (director/https_redirect.py), with the headers of every listener.
        Returns the port bound."""
        from table_controller.director.https_redirect import redirect_app

        app = secure_headers(redirect_app(https_port), DIRECTOR_DOOR)
        return await self.serve(app, host, port, "--http-port", None, None)

    async def stop(self) -> None:
        servers, self._servers = self._servers, []
        for server, _ in servers:
            server.should_exit = True
        for server, task in servers:
            await stop_server(server, task)


async def _store_down(request: Request, exc: Exception) -> Response:
    """Every request while the database is down (a PostgreSQL server restarting, a disk):
    503 with the store's words, not a bare 500."""
    return _problem(503, str(exc), "wait for the database to be back; the page tries again")


__all__ = ["DashboardError", "Listeners", "check_tls", "guarded_app"]
