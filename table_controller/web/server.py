"""The live table page's server: the page, its event stream, the touchscreen's input.

Served by uvicorn inside the table's own asyncio event loop (no thread, no second loop),
so the table, its devices and the page share one clock and one order of events. The
table calls ``publish(snapshot)`` after every change; every open page receives it over
Server-Sent Events. Each page has a mailbox of one snapshot, the newest winning, so a
slow or dead page (a tablet asleep, a kiosk on bad Wi-Fi) never holds up the table:
it simply skips to the latest picture when it catches up.
"""

from __future__ import annotations

import asyncio
import html
import json
import logging
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from importlib import resources
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from table_controller.errors import TableControllerError
from table_controller.favicon import icon_routes
from table_controller.pictures import media_type, not_modified, picture_headers
from table_controller.present import TableSnapshot
from table_controller.web.guard import (
    ACTION_FIX,
    COOKIE,
    HostNames,
    OperatorSessions,
    Refused,
    Sender,
    guard_post,
    secure_headers,
    words_page,
)
from table_controller.web.guard import problem as _refused
from table_controller.web.roles import NO_OPERATOR_FIX, page_refusal
from table_controller.web.stream import (
    Broadcast,
    EmbeddedServer,
    listen,
    start_server,
    stop_server,
)

Refusal = tuple[str, str]  # (problem, what to do)
InputHandler = Callable[[dict[str, Any], Sender], Awaitable[Refusal | None]]
LoginHandler = Callable[[str, Sender], Awaitable[Refusal | None]]
RefusalNoter = Callable[[Sender, str], None]
EvidenceReader = Callable[[int, int], bytes | None]


@dataclass(frozen=True)
class ReviewShown:
    """A game's hand review as the page serves it: the self-contained document, the
    Content-Security-Policy it is served under (its own: its style and script are
    inline), and the name to save it under."""

    html: str
    csp: str
    file_name: str


ReviewReader = Callable[[int], ReviewShown | None]  # a game's number -> None: no such game
QrMaker = Callable[[str], str]  # an address -> its QR code as SVG

HEARTBEAT = 15.0  # seconds between keep-alive comments on a quiet stream
TLS_CIPHERS = "ECDHE+AESGCM:ECDHE+CHACHA20"  # for TLS 1.2 clients; TLS 1.3 has its own
RETRY_MS = 1000  # how soon a browser reconnects after the stream drops

log = logging.getLogger(__name__)


class PageError(TableControllerError, OSError):
    """The page could not be served (the port is taken, the address is wrong): says
    which address and what to do."""


class TablePage:
    """The table page: ``app`` is the Starlette application, ``publish`` pushes a
    snapshot (present's ``table_view``, shaped ``TableSnapshot``) to every open page.

    ``on_input(payload, sender)`` receives a touch's payload (one of the snapshot's
    action events, plus the ``"seat"`` that touched it) once the door (guard.py) and the
    roles (web/roles.py) let it in, and returns None when the table took it, or
    (problem, what to do) when it refused it. ``on_login(pin, sender)`` checks the
    operator's PIN (None: the table has no operator PIN, and the director's events are
    refused with what to do); ``on_refused(sender, problem)`` hears of every request
    refused at the door, for the table's log. ``extra_inputs`` are the event names the
    table takes besides the rules' (the kiosk's touches). ``evidence(game, seq)`` returns
    the evidence image (PNG) logged with an event, or None. ``review(game)`` returns the
    game's hand review (None: the log has no such game; a ``TableControllerError`` in
    words when it cannot be made) and ``qr(address)`` its QR code, for a phone to take
    it home.
    """

    def __init__(
        self,
        *,
        on_input: InputHandler | None = None,
        evidence: EvidenceReader | None = None,
        title: str = "Euchre table",
        heartbeat: float = HEARTBEAT,
        on_login: LoginHandler | None = None,
        on_refused: RefusalNoter | None = None,
        extra_inputs: frozenset[str] = frozenset(),
        sessions: OperatorSessions | None = None,
        review: ReviewReader | None = None,
        qr: QrMaker | None = None,
    ) -> None:
        self._on_input = on_input
        self._review = review
        self._qr = qr
        self._evidence = evidence
        self._title = title
        self._on_login = on_login
        self._on_refused = on_refused
        self._extra = extra_inputs
        self.sessions = sessions if sessions is not None else OperatorSessions()
        self.hosts = HostNames()
        self._pages = Broadcast(heartbeat, RETRY_MS)
        self._latest_snapshot: TableSnapshot | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: int | None = None
        self._server: EmbeddedServer | None = None
        self._task: asyncio.Task[None] | None = None
        self.url: str | None = None
        self.bound: tuple[str, int] | None = None  # the address listened on, once started
        static = resources.files("table_controller.web") / "static"
        self._page = (static / "page.html").read_text(encoding="utf-8")
        self.app = Starlette(
            routes=[
                Route("/", self._index, methods=["GET"]),
                Route("/events", self._events, methods=["GET"]),
                Route("/api/input", self._input, methods=["POST"]),
                Route("/api/operator", self._operator, methods=["GET"]),
                Route("/api/operator/login", self._login, methods=["POST"]),
                Route("/api/operator/logout", self._logout, methods=["POST"]),
                Route("/evidence/{game:int}/{seq:int}.png", self._evidence_png, methods=["GET"]),
                Route("/review/{game:int}", self._review_page, methods=["GET"]),
                Route("/review/{game:int}/file", self._review_file, methods=["GET"]),
                Route("/review/{game:int}/qr.svg", self._review_qr, methods=["GET"]),
                Route("/health", self._health, methods=["GET"]),
                *icon_routes(),
                Mount("/static", app=StaticFiles(directory=str(static)), name="static"),
            ]
        )

    # --- the table's side -------------------------------------------------------------

    def publish(self, snapshot: TableSnapshot) -> None:
        """Send ``snapshot`` to every open page; the same snapshot again sends nothing.
        Call it from the event loop's thread (from another thread it is handed over)."""
        loop = self._loop
        if loop is not None and threading.get_ident() != self._loop_thread:
            loop.call_soon_threadsafe(self._publish, snapshot)
            return
        self._publish(snapshot)

    def _publish(self, snapshot: TableSnapshot) -> None:
        text = json.dumps(snapshot, ensure_ascii=False, separators=(",", ":"))
        if self._pages.publish(text):
            self._latest_snapshot = snapshot

    @property
    def pages(self) -> int:
        """How many pages are connected now."""
        return self._pages.pages

    async def start(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        tls_cert: str | None = None,
        tls_key: str | None = None,
    ) -> str:
        """Serve in the running event loop; returns the page's URL (port 0: a free one).
        With ``tls_cert`` and ``tls_key`` (PEM files, checked by the caller: the table's
        page/tls.py) the page is HTTPS only: a plain request on its port is not answered,
        so nothing of the page ever crosses the network in clear by mistake."""
        if self._task is not None:
            raise RuntimeError("the table page is already being served at " + str(self.url))
        try:
            sock = listen(host, port)
        except OSError as exc:
            raise PageError(
                exc.errno,
                f"the table page cannot listen on {host}:{port} ({exc.strerror or exc}): "
                "another program may be using that port, or the address is not this "
                "machine's; set another port (or host) under [web] in the table's config, "
                "or stop the other program",
            ) from exc
        self.bound = sock.getsockname()[:2]
        self.hosts.add(host)
        config = uvicorn.Config(
            secure_headers(self.app),
            lifespan="off",
            ws="none",
            log_level="warning",
            access_log=False,
            timeout_graceful_shutdown=3,
            **tls_options(tls_cert, tls_key),
        )
        self._loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()

        def failed(why: str) -> PageError:
            return PageError(f"the table page stopped on {host}:{port}: {why}")

        self._server, self._task = await start_server(config, sock, "table-page", failed)
        shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
        shown = f"[{shown}]" if ":" in shown else shown
        scheme = "https" if tls_cert else "http"
        self.url = f"{scheme}://{shown}:{self.bound[1]}/"
        return self.url

    async def stop(self) -> None:
        """Close every page's stream and stop serving (the pages then reconnect)."""
        self._pages.close_all()
        server, task = self._server, self._task
        self._server = self._task = None
        self.url = None
        if server is not None and task is not None:
            await stop_server(server, task)

    # --- routes -------------------------------------------------------------------

    async def _index(self, request: Request) -> Response:
        page = self._page.replace("{{title}}", html.escape(self._title))
        return HTMLResponse(page, headers={"Cache-Control": "no-cache"})

    async def _events(self, request: Request) -> Response:
        return self._pages.response()

    async def _input(self, request: Request) -> Response:
        try:
            payload, sender = await guard_post(request, self.hosts, self.sessions)
        except Refused as denied:
            return self._denied(request, Sender(_address(request)), denied)
        if not isinstance(payload, dict) or not isinstance(payload.get("event"), str):
            return self._denied(
                request,
                sender,
                Refused(
                    400, 'the input is not an action: it needs an "event" naming it', ACTION_FIX
                ),
            )
        kind = payload["event"]
        why = (
            None
            if kind in self._extra
            else page_refusal(
                kind, operator=sender.operator, operator_pin=self._on_login is not None
            )
        )
        if why is not None:
            return self._denied(request, sender, Refused(403, *why))
        if self._on_input is None:
            return _refused(
                503,
                "this page only shows the table; it takes no input",
                "use the seat buttons, or ask the director",
            )
        try:
            refusal = await self._on_input(payload, sender)
        except Exception as exc:
            log.exception("the table failed on the page's input %r", payload)
            return _refused(
                500,
                f"the table could not take that ({exc})",
                "try again; if it keeps failing, call the director",
            )
        if refusal is not None:  # the table has noted it (table/app.py)
            problem, fix = refusal
            log.info("the table refused %r from %s: %s", kind, sender.address, problem)
            return _refused(409, problem, fix)
        return JSONResponse({"ok": True})

    # --- the operator -------------------------------------------------------------

    async def _operator(self, request: Request) -> Response:
        """Whether the table has an operator PIN, and whether this browser is logged in."""
        operator = self.sessions.valid(request.cookies.get(COOKIE))
        return JSONResponse(
            {"pin": self._on_login is not None, "operator": operator},
            headers={"Cache-Control": "no-store"},
        )

    async def _login(self, request: Request) -> Response:
        """The operator's PIN, checked by the table (its rate limit, its log): a session
        cookie when right."""
        try:
            payload, sender = await guard_post(request, self.hosts, self.sessions)
            pin = payload.get("pin") if isinstance(payload, dict) else None
            if self._on_login is None:
                raise Refused(403, "this table has no operator PIN", NO_OPERATOR_FIX)
            if not isinstance(pin, str):
                raise Refused(400, 'a log-in is {"pin": "1234"}', "type the operator's PIN")
        except Refused as denied:
            return self._denied(request, Sender(_address(request)), denied)
        refusal = await self._on_login(pin, sender)
        if refusal is not None:  # the table has logged the wrong PIN
            log.warning("refused an operator log-in from %s: %s", sender.address, refusal[0])
            return _refused(403, *refusal)
        response = JSONResponse({"ok": True, "operator": True, "seconds": self.sessions.seconds})
        response.set_cookie(
            COOKIE,
            self.sessions.issue(),
            max_age=int(self.sessions.seconds),
            path="/",
            httponly=True,
            samesite="strict",
            secure=request.url.scheme == "https",  # never sent back over plain HTTP
        )
        return response

    async def _logout(self, request: Request) -> Response:
        """The operator's log-out ends every operator session of this table (a copied
        cookie too); anyone else's only clears their own cookie."""
        try:
            _, sender = await guard_post(request, self.hosts, self.sessions)
        except Refused as denied:
            return self._denied(request, Sender(_address(request)), denied)
        if sender.operator:
            self.sessions.end_all()
        response = JSONResponse({"ok": True, "operator": False})
        response.delete_cookie(
            COOKIE,
            path="/",
            httponly=True,
            samesite="strict",
            secure=request.url.scheme == "https",
        )
        return response

    def _denied(self, request: Request, sender: Sender, denied: Refused) -> Response:
        """A refusal at the door: logged here and in the table's log, then answered."""
        log.warning(
            "refused %s %s from %s (%d): %s",
            request.method,
            request.url.path,
            sender.address,
            denied.status,
            denied.problem,
        )
        if self._on_refused is not None:
            try:
                self._on_refused(sender, denied.problem)
            except Exception:  # the answer must still go out
                log.exception("could not note a refused request")
        return _refused(denied.status, denied.problem, denied.fix)

    async def _evidence_png(self, request: Request) -> Response:
        game, seq = request.path_params["game"], request.path_params["seq"]
        image = None
        if self._evidence is not None and max(game, seq) < 2**63:  # SQLite's integers
            try:
                image = self._evidence(game, seq)
            except Exception as exc:  # the log cannot be read: the table shows the fault
                log.warning(
                    "could not read the evidence of event %d of game %d: %s", seq, game, exc
                )
                return _refused(503, "the table's log cannot be read now", "try again later")
        if image is None:
            return JSONResponse(
                {"ok": False, "problem": f"no evidence image for event {seq} of game {game}"},
                status_code=404,
            )
        headers = picture_headers(image)
        if not_modified(image, request.headers.get("if-none-match")):
            return Response(status_code=304, headers=headers)
        return Response(image, media_type=media_type(image), headers=headers)

    # --- the hand review ----------------------------------------------------------------

    async def _reviewed(self, request: Request) -> ReviewShown | Response:
        """The game's review, or the answer that says why there is none, in words."""
        game = request.path_params["game"]
        if self._review is None or game >= 2**63:
            return words_page(
                404,
                "No review here",
                "This table keeps no games to replay.",
            )
        try:
            shown = await asyncio.to_thread(self._review, game)
        except TableControllerError as exc:
            return words_page(409, "This game cannot be replayed", str(exc))
        except Exception as exc:  # the log cannot be read: the table shows the fault
            log.warning("could not make the review of game %d: %s", game, exc)
            return words_page(503, "The table's log cannot be read now", "Try again in a moment.")
        if shown is None:
            return words_page(
                404,
                f"There is no game {game} at this table",
                "Open the review from the table's page when a game ends, or scan its QR code.",
            )
        return shown

    async def _review_page(self, request: Request) -> Response:
        shown = await self._reviewed(request)
        if isinstance(shown, Response):
            return shown
        headers = {"Content-Security-Policy": shown.csp, "Cache-Control": "no-store"}
        return HTMLResponse(shown.html, headers=headers)

    async def _review_file(self, request: Request) -> Response:
        """The same document, to be saved: a phone keeps it and opens it offline."""
        shown = await self._reviewed(request)
        if isinstance(shown, Response):
            return shown
        headers = {
            "Content-Security-Policy": shown.csp,
            "Cache-Control": "no-store",
            "Content-Disposition": f'attachment; filename="{shown.file_name}"',
        }
        return HTMLResponse(shown.html, headers=headers)

    async def _review_qr(self, request: Request) -> Response:
        """The review's address as this browser reached the page (a phone on the same
        network reaches it the same way), as a QR code."""
        game = request.path_params["game"]
        if self._qr is None or game >= 2**63:
            return JSONResponse({"ok": False, "problem": "no QR code here"}, status_code=404)
        host = request.headers.get("host", "")
        # An address or a name of this table's as the browser gave it, never a foreign one.
        base = f"{request.url.scheme}://{host}/" if host in self.hosts else self.url or "/"
        address = f"{base}review/{game}"
        svg = self._qr(address[:400])
        return Response(svg, media_type="image/svg+xml", headers={"Cache-Control": "no-store"})

    async def _health(self, request: Request) -> Response:
        snap = self._latest_snapshot
        faults = snap.get("faults", []) if snap is not None else []
        return JSONResponse(
            {
                "ok": not faults,
                "faults": faults,
                "version": snap.get("version") if snap is not None else None,
                "pages": self._pages.pages,
                "serving": self._server is not None,
            }
        )


def tls_options(tls_cert: str | None, tls_key: str | None) -> dict[str, Any]:
    """uvicorn's settings for HTTPS with ``tls_cert`` and ``tls_key`` (none without):
    TLS 1.2 at least (Python's floor) with forward-secret AEAD ciphers only, where
    uvicorn's own default list would also let a TLS 1.2 client choose old CBC ones. No
    HSTS header is sent: a table's own certificate is one a phone is asked to accept,
    and HSTS would take that choice away."""
    if not tls_cert:
        return {}
    return {"ssl_certfile": tls_cert, "ssl_keyfile": tls_key, "ssl_ciphers": TLS_CIPHERS}


def _address(request: Request) -> str:
    return request.client.host if request.client is not None else "unknown"


__all__ = [
    "TLS_CIPHERS",
    "PageError",
    "QrMaker",
    "Refusal",
    "ReviewReader",
    "ReviewShown",
    "Sender",
    "TablePage",
    "tls_options",
]
