"""The director's dashboard: every table at a glance, a table's live view and history,
the alert queue, rulings and standings; served by uvicorn in the director's event loop.

The overview (tables, open alerts, standings) is one snapshot pushed to every open
dashboard over Server-Sent Events, newest winning (a slow browser skips to the latest),
rebuilt at most every ``coalesce`` seconds however fast the tables play. A table's
detail is read on demand (``/api/tables/NAME``) from the store's projection, drawn with
the table page's own ``table_view``, so the director sees what the players see.

Everything but the login itself, the page that holds the login form, its static files
and the public view (``/public``, ``/api/public``: delayed, no held card) needs a
director's login: a session cookie (HttpOnly, SameSite=Strict, Secure over TLS) from
``/api/login``, checked on each request. Logins are slowed after failures, per name and
address, with a short global slow-down (``logins.LoginThrottle``); their hash runs in a
worker thread, and every failure is in the audit log. The guard (web/guard.py, in the
director's words: door.py) adds the security headers to every answer and refuses
changes from other sites. With ``public_port`` the
public view has a port of its own and the director's routes are not on it (nor the
public view on the director's).

No route reads the store or hashes on the event loop (a table's whole-game replay, a
database waiting on its lock or a server): a route that needs nothing else is a plain
``def``, which Starlette runs in a worker thread, and one that reads a body hands that
work to a worker thread, so one slow request never holds every dashboard's stream. A
request is refused by raising the guard's ``Refused`` where the problem is found; one
handler turns it into the answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import html
import inspect
import logging
import math
import ssl
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from importlib import resources
from typing import TypedDict, cast

import uvicorn
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp

from table_controller.cards import Card
from table_controller.director.dashboard import (
    AlertCard,
    DashboardView,
    OverviewStream,
    TableCard,
    TableLine,
    json_text,
    ruling_form,
    ruling_text,
)
from table_controller.director.door import DIRECTOR_DOOR, SafeJSON, guarded, read_json
from table_controller.director.fleet import CameraCommands, Fleet, FleetWeb
from table_controller.director.fleet import routes as fleet_routes
from table_controller.director.hall import PublicView, PublicViewError, parse_delay
from table_controller.director.json_value import JSONObject, JSONValue
from table_controller.director.logins import LoginThrottle
from table_controller.director.service import DirectorService, RulingError
from table_controller.director.store import (
    ALERT_STATES,
    AlertRow,
    DirectorStore,
    StoreError,
    StoreUnavailable,
)
from table_controller.director.tournament import (
    FORM_ACTIONS,
    AdminError,
    EventsAdmin,
    ResultsSource,
    apply_form,
)
from table_controller.errors import TableControllerError
from table_controller.favicon import icon_routes
from table_controller.pictures import media_type, not_modified, picture_headers
from table_controller.present import table_view
from table_controller.rules.errors import RulesError
from table_controller.web.guard import Refused, refused, secure_headers
from table_controller.web.guard import problem as _problem
from table_controller.web.stream import (
    Broadcast,
    EmbeddedServer,
    listen,
    start_server,
    stop_server,
)

COOKIE = "tc_director"
HEARTBEAT = 15.0
DEFAULT_TITLE = "Tournament director"  # the dashboard's title with no event name set
THROTTLED = {  # which brake held a login back (logins.LoginThrottle), in words
    "pair": "for this name from this address",
    "address": "from this address",
    "name": "for this name from many addresses just now",
    "everywhere": "on this dashboard just now, from many addresses",
}
HASHING = 2  # logins hashed at once (Argon2id's memory each): more wait their turn
MAX_NUMBER = 2**31 - 1  # a game, event or alert number in a path or query
HISTORY = 400  # the most recent events shown in a table's history
STORE_RETRY = 2.0  # seconds between tries at the overview while the database is down
Handler = Callable[[Request], Awaitable[Response]]
Endpoint = Callable[[Request], Response]  # a plain def: Starlette runs it in a worker thread

log = logging.getLogger(__name__)


RESULTS_EVERY = 1.0  # seconds: the streamed snapshot's results computed at most this often
# seconds: at most one snapshot this often. At 256 tables a snapshot that reads only the
# tables a change named costs the event loop about 1.5 ms, so 40 a second are cheap, and a
# card waits for at most 25 ms of the spell (docs/benchmarks.md, "Turns of the interpreter")
COALESCE = 0.025
# seconds: every table's row read again at least this often (another process's writes,
# which tell this one nothing, are shown within it)
WHOLE_EVERY = 2.0


class BrokerState(TypedDict):
    """The director's link to the broker, as the dashboard shows it."""

    connected: bool
    problem: str | None


class Overview(TypedDict):
    """The dashboard's snapshot whole (``/api/overview``): the same parts the stream
    sends one by one (``dashboard.stream``)."""

    version: int
    title: str
    tables: list[TableCard]
    alerts: list[AlertCard]
    results: Mapping[str, object]
    standings: object
    changed: list[str]
    store_problem: str | None
    event: Mapping[str, object]
    broker: BrokerState | None


class DashboardError(TableControllerError, OSError):
    """The dashboard could not be served: which address, and what to do."""


class DirectorPage:
    """The dashboard over ``store``; rulings go out through ``service`` (None: the
    dashboard only reads, and says so when a ruling is asked for)."""

    def __init__(
        self,
        store: DirectorStore,
        service: DirectorService | None = None,
        *,
        title: str = DEFAULT_TITLE,
        coalesce: float = COALESCE,
        results_every: float = RESULTS_EVERY,
        heartbeat: float = HEARTBEAT,
        admin: EventsAdmin | None = None,
        public_delay: float | None = None,
        throttle: LoginThrottle | None = None,
        fleet: Fleet | None = None,
        extra_routes: Sequence[BaseRoute] = (),
        camera_commands: CameraCommands | None = None,
    ) -> None:
        self.store = store
        self.fleet = fleet
        self.service = service
        if admin is None:  # a new event is named as the service's event, by default
            admin = EventsAdmin(store, default_name="" if title == DEFAULT_TITLE else title)
        self.admin = admin
        self.results = ResultsSource(store, title)
        self.public = PublicView(store, self.admin, delay=public_delay, results=self.results)
        self.view = DashboardView(store)
        self.throttle = throttle if throttle is not None else LoginThrottle()
        self._hashing: asyncio.Semaphore | None = None  # made in the serving loop
        self._title = title
        self._coalesce = coalesce
        self._last_flush = -math.inf  # when the last snapshot was made (``_monotonic``)
        self._results_every = results_every
        # (when, the results, as JSON text)
        self._results_cached: tuple[float, Mapping[str, object], str] | None = None
        self._results_due = False  # a snapshot is to come when they may be computed again
        self._results_computing = False  # a worker thread computes them now
        self._monotonic = time.monotonic
        self._pages = Broadcast(heartbeat, 1000)
        self._stream = OverviewStream()
        self._dirty: set[str] = set()
        self._whole_due = True  # a change named no table: read every table's row
        # the alerts as last read, with their tables' lines; in words; as JSON text
        self._alerts_kept: tuple[tuple[list[AlertRow], list[str]], list[AlertCard], str] | None = (
            None
        )
        self._last_whole = -math.inf
        self._scheduled = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._servers: list[tuple[EmbeddedServer, asyncio.Task[None]]] = []
        self.url: str | None = None
        self.public_url: str | None = None
        self._public_port: int | None = None  # its own port, when it has one
        static = resources.files("table_controller.director") / "static"
        self._page = (static / "dashboard.html").read_text(encoding="utf-8")
        self._public_page = (static / "public.html").read_text(encoding="utf-8")
        files: list[BaseRoute] = [
            Mount("/static", app=StaticFiles(directory=str(static)), name="static"),
            *icon_routes(),
        ]
        login = self._login_required
        if camera_commands is None and fleet is not None and fleet.publish is not None:
            camera_commands = CameraCommands(store, fleet.private_pem, fleet.prefix, fleet.publish)
        elif camera_commands is None and service is not None:
            camera_commands = CameraCommands(
                store, service.private_key, service.prefix, service.publish
            )
        self.fleet_view = FleetWeb(
            store,
            director=self._director,
            commands=camera_commands,
            title=title,
            fleet_mode=fleet is not None,
            on_change=lambda: self.changed("fleet", ""),
        )
        director: list[BaseRoute] = [
            Route("/", self._index),
            Route("/api/me", self._me),
            Route("/api/login", self._login, methods=["POST"]),
            Route("/api/logout", self._logout, methods=["POST"]),
            Route("/events", login(self._events)),
            Route("/api/overview", login(self._overview_route)),
            Route("/api/tables/{table}", login(self._table)),
            Route("/api/alerts/{alert}", login(self._alert), methods=["POST"]),
            Route("/api/alerts/{alert}/defaults", login(self._defaults)),
            Route("/api/tables/{table}/ruling", login(self._table_ruling)),
            Route("/api/alerts/{alert}/detail", login(self._alert_detail)),
            Route("/api/rulings", login(self._ruling), methods=["POST"]),
            Route("/api/audit", login(self._audit)),
            Route("/api/results/final", login(self._results_final), methods=["POST"]),
            Route("/api/event", login(self._event)),
            Route("/api/event/{action}", login(self._event_change), methods=["POST"]),
            Route("/evidence/{table}/{game}/{seq}.png", login(self._evidence)),
            *self.fleet_view.routes(login),
        ]
        if fleet is not None:  # fleet mode: tables ask to join, directors approve them
            director += fleet_routes(fleet, login, self._director)
        director += extra_routes  # served without a login (the fleet's releases)
        public: list[BaseRoute] = [
            Route("/public", self._public_index),
            Route("/api/public", self._public),
        ]
        # Served on one port (``app``), or the director's and the public view's apart.
        self.app = self._app([*director, *public, *files])
        self.director_app = self._app([*director, *files])
        self.public_app = self._app([*public, *files])
        if service is not None:
            service.listen(self.admin.on_stored)  # results first, so the overview has them
            service.listen(self.changed)

    @staticmethod
    def _app(routes: list[BaseRoute]) -> ASGIApp:
        app = Starlette(
            routes=routes, exception_handlers={StoreUnavailable: _store_down, Refused: refused}
        )
        return guarded(app)

    # --- changes, from any thread ---------------------------------------------------------

    def changed(self, what: str = "", table: str = "") -> None:
        """Something was stored: the overview is rebuilt soon (coalesced)."""
        loop = self._loop
        if loop is None:
            return
        loop.call_soon_threadsafe(self._schedule, table)

    def _schedule(self, table: str) -> None:
        if table:
            self._dirty.add(table)
        else:
            self._whole_due = True
        if not self._scheduled and self._loop is not None:
            # At most one snapshot every ``coalesce`` seconds, the first change after a
            # quiet spell sent at once: a card waits for the rest of the spell, not for
            # a whole one from its own arrival.
            self._scheduled = True
            wait = self._last_flush + self._coalesce - self._monotonic()
            self._loop.call_later(max(0.0, wait), self._flush)

    def _flush(self) -> None:
        self._scheduled = False
        self._last_flush = now = self._monotonic()
        changed, self._dirty = sorted(self._dirty), set()
        whole = self._whole_due or now - self._last_whole >= WHOLE_EVERY
        self._whole_due = False
        try:
            snapshot = self._snapshot(self._stream_results(), None if whole else changed)
            sent = self._stream.next(*snapshot, changed)
            if whole:
                self._last_whole = now
        except StoreUnavailable as exc:
            # Said on the page, and tried again until the database is back (nothing
            # else may come to ask: the writer waits for the same database).
            self._dirty.update(changed)
            self._whole_due = self._whole_due or whole
            sent = self._stream.problem(str(exc), changed)
            if self._loop is not None and not self._scheduled:
                self._scheduled = True
                self._loop.call_later(STORE_RETRY, self._flush)
        except Exception:
            log.exception("the dashboard's overview could not be built")
            self._whole_due = True
            return
        if sent is not None:
            made, change = sent
            self._pages.publish(made, change)

    def _snapshot(
        self, results: tuple[Mapping[str, object], str] | None, tables: list[str] | None = None
    ) -> tuple[list[TableLine], dict[str, str]]:
        """The tables' lines and the other parts of a snapshot, as JSON text
        (``results``: those to show, None: computed now; ``tables``: only these
        tables' rows read again, None: every table's)."""
        lines, alerts, event = self._read_store(tables)
        alerts_text = self._alerts_text(alerts)
        if results is None:
            results = self._computed_results()
            self._results_cached = (self._monotonic(), *results)
        broker = (
            None
            if self.service is None
            else {"connected": self.service.connected.is_set(), "problem": self.service.problem}
        )
        parts = {
            "title": json_text(self._title),
            "alerts": alerts_text,
            "results": results[1],
            "event": json_text(event),
            "broker": json_text(broker),
            "store_problem": "null",
        }
        return lines, parts

    def _read_store(
        self, tables: list[str] | None = None
    ) -> tuple[list[TableLine], list[AlertCard], Mapping[str, object]]:
        """The tables' lines and the alerts, read in one hold of the store's lock (the
        writer's batch waited for once, not at every read, and the replays do not move
        while the lines are made), and the event. ``tables``: only these tables' rows
        read again (the others' lines kept, ``DashboardView.lines``); None: all."""
        with self.store.core.lock:
            counts = self.store.events.event_counts()
            alerts = self.store.alerts.alerts()
            open_by_table: dict[str, int] = {}
            for a in alerts:
                if a["state"] == "open":
                    open_by_table[a["table"]] = open_by_table.get(a["table"], 0) + 1
            raws = self.store.tables.raw_tables(tables)
            lines = self.view.lines(raws, counts, open_by_table, partial=tables is not None)
        # Not under the store's lock: the admin's own lock is taken before the store's.
        event = self.admin.summary()
        return lines, self._shown_alerts(alerts, lines), event

    def _shown_alerts(self, alerts: list[AlertRow], lines: list[TableLine]) -> list[AlertCard]:
        """The alerts in words, made again only when they or their tables' lines
        changed. Why: at an event's end every table is offline, an alert each, and
        putting 256 alerts in words at every snapshot cost more than all the rest."""
        named = {a["table"] for a in alerts}
        key = (alerts, [line.text for line in lines if line.table in named])
        kept = self._alerts_kept
        if kept is not None and kept[0] == key:
            return kept[1]
        shown = self.view.alerts(alerts, [line.row for line in lines])
        self._alerts_kept = (key, shown, json_text(shown))
        return shown

    def _alerts_text(self, shown: list[AlertCard]) -> str:
        """``shown`` as JSON text, encoded once while they stay the same."""
        kept = self._alerts_kept
        return kept[2] if kept is not None and kept[1] is shown else json_text(shown)

    def _stream_results(self) -> tuple[Mapping[str, object], str] | None:
        """The results for a streamed snapshot: the last ones computed, computed again
        at most every ``results_every`` seconds in a worker thread, a snapshot following
        once they are (None: compute them now, the first time). Why: at 256 tables the
        results (standings, every game's score, replayed as games grow) cost more than
        the tables' cards and more than the 25 ms a snapshot is coalesced over; computed
        for every snapshot, on the loop, they put each card laid behind them. A card
        shows at once now, a standing within a second or so."""
        cached = self._results_cached
        loop = self._loop
        if cached is None:
            return None
        wait = cached[0] + self._results_every - self._monotonic()
        if wait <= 0:
            if loop is None:
                return None
            if not self._results_computing:
                self._results_computing = True
                loop.run_in_executor(None, self._results_off_loop)
        elif loop is not None and not self._results_due:
            self._results_due = True
            loop.call_later(wait, self._results_again)
        return cached[1], cached[2]

    def _results_again(self) -> None:
        self._results_due = False
        self._schedule("")

    def _results_off_loop(self) -> None:
        """A worker thread: the results computed and kept, then a snapshot with them."""
        try:
            self._results_cached = (self._monotonic(), *self._computed_results())
        finally:
            self._results_computing = False
        loop = self._loop
        if loop is not None:
            loop.call_soon_threadsafe(self._schedule, "")

    def _computed_results(self) -> tuple[Mapping[str, object], str]:
        """The results, and as JSON text (encoded where they are computed)."""
        results: Mapping[str, object]
        try:
            results = dict(self.results.view())
        except Exception as exc:  # the format's code must never take the dashboard down
            log.exception("the results could not be computed")
            results = {"problem": f"the results could not be computed ({exc})"}
        return results, json_text(results)

    def overview(self) -> Overview:
        """The dashboard's snapshot whole, with the results computed now (``/api/overview``;
        the stream sends it part by part, ``dashboard.stream``)."""
        lines, alerts, event = self._read_store()
        results = self._computed_results()[0]
        return {
            "version": self._stream.version,
            "title": self._title,
            "tables": [line.row for line in lines],
            "alerts": alerts,
            "results": results,
            "standings": results.get("games", []),
            "changed": [],
            "store_problem": None,
            "event": event,
            "broker": None
            if self.service is None
            else {"connected": self.service.connected.is_set(), "problem": self.service.problem},
        }

    # --- serving ------------------------------------------------------------------------

    async def start(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        public_port: int | None = None,
        tls_cert: str | None = None,
        tls_key: str | None = None,
    ) -> str:
        """Serve the dashboard on ``host:port`` (and, with ``public_port``, the public view
        on a port of its own, and not on the dashboard's); over TLS with ``tls_cert``
        and ``tls_key`` (PEM files). Returns the dashboard's URL."""
        if (tls_cert is None) != (tls_key is None):
            raise DashboardError(
                "TLS needs both a certificate and its key: give --tls-cert and --tls-key"
            )
        if tls_cert is not None and tls_key is not None:
            try:
                ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(
                    tls_cert, tls_key
                )
            except (OSError, ssl.SSLError) as exc:
                raise DashboardError(
                    f"the dashboard's TLS certificate {tls_cert} or key {tls_key} cannot be "
                    f"used ({exc}): check both paths, and that the key is the certificate's"
                ) from None
        self._loop = asyncio.get_running_loop()
        self._hashing = asyncio.Semaphore(HASHING)
        await asyncio.to_thread(self.admin.catch_up)  # results stored while we were down
        apps = [(self.app if public_port is None else self.director_app, port, "--web-port")]
        if public_port is not None:
            apps.append((self.public_app, public_port, "--public-port"))
        scheme = "https" if tls_cert else "http"
        shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
        urls = []
        try:
            for app, at, flag in apps:
                bound = await self._serve_on(app, host, at, flag, tls_cert, tls_key)
                urls.append(f"{scheme}://{shown}:{bound}/")
        except BaseException:
            await self.stop()
            raise
        self._flush()
        self.url = urls[0]
        self.public_url = (urls[1] if len(urls) > 1 else urls[0]) + "public"
        if len(urls) > 1:
            self._public_port = int(urls[1].rsplit(":", 1)[1].rstrip("/"))
        return self.url

    async def _serve_on(
        self,
        app: ASGIApp,
        host: str,
        port: int,
        flag: str,
        tls_cert: str | None,
        tls_key: str | None,
    ) -> int:
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
        ``https_port`` (director/https_redirect.py), with the headers of every listener;
        stopped with the dashboard. Returns the port bound; DashboardError (an OSError)
        in words when it cannot listen."""
        from table_controller.director.https_redirect import redirect_app

        app = secure_headers(redirect_app(https_port), DIRECTOR_DOOR)
        return await self._serve_on(app, host, port, "--http-port", None, None)

    async def stop(self) -> None:
        self._pages.close_all()
        servers, self._servers = self._servers, []
        self._loop = None
        for server, _ in servers:
            server.should_exit = True
        for server, task in servers:
            await stop_server(server, task)

    # --- logging in ---------------------------------------------------------------------

    def _director(self, request: Request) -> str | None:
        return self.store.accounts.session(request.cookies.get(COOKIE))

    def _logged_in(self, request: Request) -> str:
        """The director whose session the request carries; else refused (401, no data).
        Reads the store: in a worker thread."""
        who = self._director(request)
        if who is None:
            raise Refused(
                401,
                "you are not logged in (or the session ended)",
                "log in with your director's name and password",
            )
        return who

    def _login_required(self, handler: Handler | Endpoint) -> Handler | Endpoint:
        """``handler`` for a logged-in director only: anyone else gets 401 and no data.
        The session is checked off the event loop: in the thread a plain ``def``
        handler runs in, or in a worker thread before an ``async`` one."""
        if inspect.iscoroutinefunction(handler):
            serve = cast(Handler, handler)

            @functools.wraps(serve)
            async def checked(request: Request) -> Response:
                await run_in_threadpool(self._logged_in, request)
                return await serve(request)

            return checked
        endpoint = cast(Endpoint, handler)

        @functools.wraps(endpoint)
        def checked_in_thread(request: Request) -> Response:
            self._logged_in(request)
            return endpoint(request)

        return checked_in_thread

    def _me(self, request: Request) -> Response:
        return SafeJSON({"director": self._director(request), "public_port": self._public_port})

    async def _login(self, request: Request) -> Response:
        body = await read_json(request)
        name, password = body.get("name", ""), body.get("password", "")
        if not isinstance(name, str) or not isinstance(password, str):
            raise Refused(400, "the name and password are text", "use the login form")
        if not 0 < len(name) <= 100 or len(password) > 1024:
            raise Refused(
                400, "a name is 1 to 100 characters, a password at most 1024", "check them"
            )
        address = request.client.host if request.client else ""
        wait, which = self.throttle.wait(name, address)
        if wait > 0:
            raise Refused(
                429,
                f"too many failed logins {THROTTLED[which]}: wait {math.ceil(wait)} s",
                f"wait {math.ceil(wait)} s and try again; a director already logged in"
                " is not affected",
            )
        self.throttle.begin(name, address)
        assert self._hashing is not None
        async with self._hashing:  # the hash in a worker thread: the loop keeps serving
            token = await asyncio.to_thread(
                self.store.accounts.login, name, password, address=address
            )
        if token is None:
            raise Refused(
                401,
                "that name and password do not match a director's login",
                "check them; a login is made with `table-controller director add-login NAME`",
            )
        self.throttle.succeeded(name, address)
        resp = SafeJSON({"ok": True, "director": name})
        resp.set_cookie(
            COOKIE, token, httponly=True, samesite="strict", secure=request.url.scheme == "https"
        )
        return resp

    def _logout(self, request: Request) -> Response:
        token = request.cookies.get(COOKIE)
        if token:
            self.store.accounts.logout(token)
        resp = SafeJSON({"ok": True})
        resp.delete_cookie(
            COOKIE, httponly=True, samesite="strict", secure=request.url.scheme == "https"
        )
        return resp

    # --- reading (login required) ---------------------------------------------------------

    async def _index(self, request: Request) -> Response:
        """The page: a login form, and the dashboard's frame its script fills in once
        logged in (it holds no data of its own)."""
        page = self._page.replace("{{title}}", html.escape(self._title))
        return HTMLResponse(page, headers={"Cache-Control": "no-cache"})

    async def _events(self, request: Request) -> Response:
        """The overview as it changes, until the session ends (checked at each heartbeat:
        a director logged out, or whose password changed, stops receiving)."""
        token = request.cookies.get(COOKIE)

        async def still_open() -> bool:
            with contextlib.suppress(StoreUnavailable):  # said in the overview
                return await run_in_threadpool(self.store.accounts.session, token) is not None
            return True

        return self._pages.response(still_open)

    def _overview_route(self, request: Request) -> Response:
        return SafeJSON(self.overview())

    def _table(self, request: Request) -> Response:
        table = request.path_params["table"]
        known = {t["table"] for t in self.store.tables.tables()}
        if table not in known:
            raise Refused(404, f"no table {table[:100]!r} has reported", "check the table's name")
        games = self.store.events.games(table)
        asked = request.query_params.get("game") or ""
        game = _number(asked) if asked else (games[-1] if games else 0)
        if game is None:
            raise Refused(400, f"game={asked[:20]!r} is not a game number", "e.g. ?game=2")
        events = self.store.events.events(table, game) if games else []
        players = self.store.tables.players(table)
        view = None
        proj = None
        problem = None
        if games:
            try:
                proj = self.store.projections.projection(table, game)
            except RulesError as exc:  # the rules the table's status named cannot be used
                problem = f"the table's rules cannot be used: {exc}"
        if proj is not None:
            urls: dict[Card, str] = {}
            for ev in events:
                card = ev["input"].get("card")
                if ev["evidence"] and ev["input"].get("event") == "card_played" and card:
                    # a stored input was decoded (checked) before it was stored: a card's code
                    urls[Card.parse(cast(str, card))] = f"/evidence/{table}/{game}/{ev['seq']}.png"
            view = table_view(
                proj.game,
                table=table,
                players=players,
                recent=proj.recent,
                evidence_urls=urls,
                rules_name=self.store.projections.rules_of(table)[0],
            )
            problem = proj.problem
        detail = self.view.table_detail(table, game, events, HISTORY)
        return SafeJSON(
            {
                **detail,
                "table": table,
                "games": games,
                "game": game,
                "view": view,
                "applied": None if proj is None else proj.applied,
                "missing": None if proj is None else proj.missing,
                "problem": problem,
                "rulings": [
                    {**r, "text": ruling_text(r, {s.name: n for s, n in players.items()})}
                    for r in self.store.rulings.rulings(table)
                ],
                "status": self.store.tables.status_history(table)[-20:],
            }
        )

    def _evidence(self, request: Request) -> Response:
        p = request.path_params
        game, seq = _number(p["game"]), _number(p["seq"])
        png = (
            None
            if game is None or seq is None
            else self.store.events.evidence(p["table"], game, seq)
        )
        if png is None:
            raise Refused(
                404,
                f"no evidence image for event {p['seq'][:20]} of game {p['game'][:20]}",
                "the table may not have sent it yet",
            )
        headers = picture_headers(png)
        if not_modified(png, request.headers.get("if-none-match")):
            return Response(status_code=304, headers=headers)
        return Response(png, media_type=media_type(png), headers=headers)

    def _defaults(self, request: Request) -> Response:
        """The ruling form opened from an alert: filled with what the alert knows."""
        aid = _number(request.path_params["alert"])
        alert = next(
            (a for a in self.store.alerts.alerts(states=ALERT_STATES) if a["id"] == aid), None
        )
        if alert is None:
            raise Refused(404, "there is no such alert", "reload the dashboard")
        return SafeJSON(ruling_form(self.store, str(alert["table"]), alert))

    def _table_ruling(self, request: Request) -> Response:
        """The ruling form opened from a table's detail: its teams and choices in words."""
        table = request.path_params["table"]
        if table not in {t["table"] for t in self.store.tables.tables()}:
            raise Refused(404, f"no table {table[:100]!r} has reported", "check the table's name")
        return SafeJSON(ruling_form(self.store, table))

    def _alert_detail(self, request: Request) -> Response:
        """An alert's panel: its sentence, and a renege's evidence and rule, in words."""
        aid = _number(request.path_params["alert"])
        alert = next(
            (a for a in self.store.alerts.alerts(states=ALERT_STATES) if a["id"] == aid), None
        )
        if alert is None:
            raise Refused(404, "there is no such alert", "reload the dashboard")
        return SafeJSON(self.view.alert_detail(alert))

    def _audit(self, request: Request) -> Response:
        return SafeJSON(self.store.accounts.audit())

    def _event(self, request: Request) -> Response:
        return SafeJSON(self.admin.summary())

    # --- changes (login required) -------------------------------------------------------

    async def _form(self, request: Request) -> tuple[str, JSONObject]:
        """A logged-in director's form: (who, the JSON body); else refused."""
        who = await run_in_threadpool(self._director, request)
        if who is None:  # the session ended between the route's check and now
            raise Refused(401, "your session ended", "log in again")
        return who, await read_json(request)

    async def _alert(self, request: Request) -> Response:
        who, body = await self._form(request)
        aid = _number(request.path_params["alert"])
        if aid is None:
            raise Refused(404, "there is no such alert", "reload the dashboard")
        reason = body.get("reason")
        try:
            await run_in_threadpool(
                self.store.alerts.set_alert,
                aid,
                str(body.get("state")),
                who,
                str(reason)[:2000] if reason else None,
            )
        except StoreError as exc:
            raise Refused(409, str(exc), "reload the dashboard and try again") from None
        self.changed("alert", "")
        return SafeJSON({"ok": True})

    async def _ruling(self, request: Request) -> Response:
        who, body = await self._form(request)
        if self.service is None:
            raise Refused(
                409,
                "this dashboard is not connected to the tables",
                "run `table-controller director` with the broker's address",
            )
        given = body.get("points")
        try:
            points = _points(given)
        except (TypeError, ValueError, OverflowError):
            raise Refused(
                400, f"{str(given)[:20]!r} is not a number of points", "write e.g. -2 or 1"
            ) from None
        if points is not None and abs(points) > 1000:
            raise Refused(400, f"{points} points is out of range", "write e.g. -2 or 1")
        team = body.get("team") or None
        try:
            payload = await asyncio.to_thread(
                self.service.send_ruling,
                director=who,
                table=str(body.get("table", ""))[:200],
                kind=str(body.get("kind", ""))[:50],
                reason=str(body.get("reason") or "")[:2000],
                team=None if team is None else str(team)[:10],
                points=points,
            )
        except RulingError as exc:
            raise Refused(400, str(exc), "fill in the ruling's form and send it again") from None
        alert = body.get("alert")
        if type(alert) is int and body.get("close_alert", True):
            with contextlib.suppress(StoreError, OverflowError):
                await run_in_threadpool(
                    self.store.alerts.set_alert,
                    alert,
                    "closed",
                    who,
                    f"ruling {payload['ruling_id']}",
                )
        self.changed("ruling", "")
        return SafeJSON({"ok": True, "ruling": payload})

    async def _results_final(self, request: Request) -> Response:
        who, _ = await self._form(request)
        key = None if self.service is None else self.service.private_key
        if key is None and self.fleet is not None:
            key = self.fleet.private_pem
        try:
            done = await run_in_threadpool(self.results.confirm_final, self.admin, who, key)
        except AdminError as exc:
            raise Refused(400, str(exc), "check the results, then confirm again") from None
        except StoreError as exc:
            raise Refused(503, str(exc), "nothing was changed; try again") from None
        self.changed("event", "")
        return SafeJSON({"ok": True, "done": done})

    async def _event_change(self, request: Request) -> Response:
        who, body = await self._form(request)
        action = request.path_params["action"]
        if action not in FORM_ACTIONS:
            raise Refused(
                404, f"there is no event action {action[:40]!r}", "use the dashboard's event forms"
            )
        try:
            done = await apply_form(self.admin, who, action, body)
        except AdminError as exc:
            raise Refused(400, str(exc), "correct the form and send it again") from None
        except StoreError as exc:
            raise Refused(503, str(exc), "nothing was changed; try again") from None
        self.changed("event", "")
        summary = await run_in_threadpool(self.admin.summary)
        return SafeJSON({"ok": True, "done": done, "event": summary})

    # --- the public view (no login) ---------------------------------------------------

    async def _public_index(self, request: Request) -> Response:
        page = self._public_page.replace("{{title}}", html.escape(self._title))
        return HTMLResponse(page, headers={"Cache-Control": "no-cache"})

    async def _public(self, request: Request) -> Response:
        asked = request.query_params.get("delay")
        try:
            delay = parse_delay(asked) if asked else None
        except PublicViewError as exc:
            raise Refused(400, str(exc), "e.g. ?delay=60") from None
        snap = await asyncio.to_thread(self.public.snapshot, delay)
        snap["title"] = self._title
        return SafeJSON(snap, headers={"Cache-Control": "no-store"})


def _number(text: str) -> int | None:
    """A game, event or alert number from a path or query, or None if it is not one."""
    if not text.isascii() or not text.isdigit() or len(text) > 10:
        return None
    n = int(text)
    return n if n <= MAX_NUMBER else None


def _points(given: JSONValue) -> int | None:
    """A ruling's points as its form sent them (a number, or one written as text); None
    when none was given. TypeError, ValueError or OverflowError: not a number."""
    if given is None or given == "":
        return None
    if isinstance(given, list | dict):
        raise TypeError(f"a {type(given).__name__} is not a number")
    return int(given)


async def _store_down(request: Request, exc: Exception) -> Response:
    """Every request while the database is down (a PostgreSQL server restarting, a disk):
    503 with the store's words, not a bare 500."""
    return _problem(503, str(exc), "wait for the database to be back; the page tries again")


__all__ = ["COOKIE", "DashboardError", "DirectorPage"]
