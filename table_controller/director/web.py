"""The director's web server: it builds each feature's routes, puts them behind one login
and the one guard of every web listener, and serves them with uvicorn in the director's
event loop. It also makes the dashboard's overview, which every feature feeds (and the pace of
play, ``pace/``, judged from the store and the event's round's time).

The composition. Each feature serves its own routes from its own folder, built with
what it needs and asked for them with the one ``session.Login`` (the cookie, the brake
on guessing, the wrapper a route that needs a director passes):

- ``session.Login``: ``/api/me``, ``/api/login``, ``/api/logout``;
- ``dashboard.DashboardWeb``: the page (``/``), a table's detail and evidence, alerts,
  the ruling form and rulings, the audit log;
- ``tournament.TournamentWeb``: the event (``/api/event``, ``/api/event/{action}``)
  and its results confirmed final (``/api/results/final``);
- ``hall.HallWeb``: the public view (``/public``, ``/api/public``: delayed, no held
  card, no login);
- ``fleet.FleetWeb`` and, in fleet mode, the fleet's joining routes.

Every route but the login itself, the page that holds the login form, its static files,
the public view and a table's joining needs a director's login. The guard (web/guard.py,
in the director's words: door.py) adds the security headers to every answer and refuses
changes from other sites; a request is refused by raising the guard's ``Refused`` where
the problem is found, and one handler turns it into the answer. With ``public_port`` the
public view has a listener of its own and the director's routes are not on it (nor the
public view on the director's); every listener is built, guarded and bound alike
(listeners.py).

The overview (tables, open alerts, results, the event, the broker's link) is one
snapshot pushed to every open dashboard over Server-Sent Events (``/events``), newest
winning (a slow browser skips to the latest), rebuilt at most every ``coalesce`` seconds
however fast the tables play; ``/api/overview`` gives it whole. It stays here and not in
dashboard/: it is made of every feature's parts (the tournament's results and event, the
service's link to the broker), and every feature and the service tell it of their
changes (``changed``), so it is the composition's own.

No route reads the store or hashes on the event loop (a table's whole-game replay, a
database waiting on its lock or a server): a route that needs nothing else is a plain
``def``, which Starlette runs in a worker thread, and one that reads a body hands that
work to a worker thread, so one slow request never holds every dashboard's stream.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections.abc import Callable, Mapping, Sequence
from importlib import resources
from typing import TypedDict

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from table_controller.director.dashboard import (
    AlertCard,
    DashboardView,
    DashboardWeb,
    OverviewStream,
    StoredVerdicts,
    TableCard,
    TableLine,
    json_text,
)
from table_controller.director.door import SafeJSON
from table_controller.director.fleet import CameraCommands, Fleet, FleetWeb
from table_controller.director.fleet import routes as fleet_routes
from table_controller.director.hall import HallWeb, PublicView
from table_controller.director.listeners import Listeners, check_tls, guarded_app
from table_controller.director.logins import LoginThrottle
from table_controller.director.pace import PaceSource, PaceView, RoundClock
from table_controller.director.service import DirectorService
from table_controller.director.session import Login
from table_controller.director.store import AlertRow, DirectorStore, StoreUnavailable
from table_controller.director.tournament import ResultsSource, TournamentAdmin, TournamentWeb
from table_controller.favicon import icon_routes
from table_controller.review import GameJob, GameJudged
from table_controller.web.stream import Broadcast

HEARTBEAT = 15.0
DEFAULT_TITLE = "Tournament director"  # the dashboard's title with no event name set
STORE_RETRY = 2.0  # seconds between tries at the overview while the database is down

log = logging.getLogger(__name__)


RESULTS_EVERY = 1.0  # seconds: the streamed snapshot's results computed at most this often
# seconds: at most one snapshot this often. At 256 tables a snapshot that reads only the
# tables a change named costs the event loop about 1.5 ms, so 40 a second are cheap, and a
# card waits for at most 25 ms of the spell (docs/benchmarks.md, "Turns of the interpreter")
COALESCE = 0.025
# seconds: every table's row read again at least this often (another process's writes,
# which tell this one nothing, are shown within it)
WHOLE_EVERY = 2.0
# seconds: the pace of play judged again at least this often while a round's clock runs
# (its projections follow the time with no table playing), and at most this often as
# tables play (it reads every table's hand times)
PACE_EVERY = 5.0


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
    pace: PaceView


class DirectorPage:
    """The director's web server over ``store``: every feature's routes, the overview,
    the listeners. Rulings go out through ``service`` (None: the dashboard only reads,
    and says so when a ruling is asked for)."""

    def __init__(
        self,
        store: DirectorStore,
        service: DirectorService | None = None,
        *,
        title: str = DEFAULT_TITLE,
        coalesce: float = COALESCE,
        results_every: float = RESULTS_EVERY,
        heartbeat: float = HEARTBEAT,
        admin: TournamentAdmin | None = None,
        public_delay: float | None = None,
        throttle: LoginThrottle | None = None,
        fleet: Fleet | None = None,
        extra_routes: Sequence[BaseRoute] = (),
        camera_commands: CameraCommands | None = None,
        pace_every: float = PACE_EVERY,
        judge: Callable[[GameJob], GameJudged] | None = None,
    ) -> None:
        self.store = store
        self.fleet = fleet
        self.service = service
        if admin is None:  # a new event is named as the service's event, by default
            admin = TournamentAdmin(store, default_name="" if title == DEFAULT_TITLE else title)
        self.admin = admin
        self.results = ResultsSource(store, title)
        self.public = PublicView(store, self.admin, delay=public_delay, results=self.results)
        self.view = DashboardView(store)
        # Each game's verdicts, worked out as the tables' hands end, kept in the store.
        self.verdicts = StoredVerdicts(store, judge)
        self._moved: set[str] = set()  # tables that sent events since the last flush
        # The pace of play: each table's hands against the round's time (director/pace/).
        self.pace = PaceSource(
            store, round_clock=self.admin.round_clock, round_tables=self.admin.round_tables
        )
        self._pace_every = pace_every
        # when judged (``_monotonic``), the round's clock and the tables it was judged
        # for, and the view as JSON text
        self._pace_kept: tuple[float, object, str] | None = None
        self._pace_due = False  # a snapshot is to come when the pace is due again
        self.login = Login(store.accounts, throttle=throttle, public_port=lambda: self._public_port)
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
        self._listeners = Listeners()
        self.url: str | None = None
        self.public_url: str | None = None
        self._public_port: int | None = None  # its own port, when it has one
        if camera_commands is None and fleet is not None and fleet.publish is not None:
            camera_commands = CameraCommands(store, fleet.private_pem, fleet.prefix, fleet.publish)
        elif camera_commands is None and service is not None:
            camera_commands = CameraCommands(
                store, service.private_key, service.prefix, service.publish
            )
        # The features, each given what it needs, each asked for its routes.
        login = self.login
        self.dashboard = DashboardWeb(
            store,
            self.view,
            title=title,
            rulings=service,
            changed=self.changed,
            verdicts=self.verdicts,
        )
        self.tournament = TournamentWeb(
            self.admin, self.results, signing_key=self._signing_key, changed=self.changed
        )
        self.hall = HallWeb(self.public, title=title, verdicts=self.verdicts)
        self.fleet_view = FleetWeb(
            store,
            director=login.who,
            commands=camera_commands,
            title=title,
            fleet_mode=fleet is not None,
            on_change=lambda: self.changed("fleet", ""),
        )
        director: list[BaseRoute] = [
            *login.routes(),
            Route("/events", login(self._events)),
            Route("/api/overview", login(self._overview_route)),
            *self.dashboard.routes(login),
            *self.tournament.routes(login),
            *self.fleet_view.routes(login),
        ]
        if fleet is not None:  # fleet mode: tables ask to join, directors approve them
            director += fleet_routes(fleet, login, login.who)
        director += extra_routes  # served without a login (the fleet's releases)
        public = self.hall.routes(login)
        static = resources.files("table_controller.director") / "static"
        files: list[BaseRoute] = [
            Mount("/static", app=StaticFiles(directory=str(static)), name="static"),
            *icon_routes(),
        ]
        # Served on one port (``app``), or the director's and the public view's apart.
        self.app = guarded_app([*director, *public, *files])
        self.director_app = guarded_app([*director, *files])
        self.public_app = guarded_app([*public, *files])
        if service is not None:
            service.listen(self.admin.on_stored)  # results first, so the overview has them
            service.listen(self.changed)

    @property
    def throttle(self) -> LoginThrottle:
        """The brake on guessing logins (the login's; tests give one a clock)."""
        return self.login.throttle

    @throttle.setter
    def throttle(self, throttle: LoginThrottle) -> None:
        self.login.throttle = throttle

    def _signing_key(self) -> bytes | None:
        """The director's key (PEM) the final results are signed with: the service's,
        else the fleet's; None without one."""
        key = None if self.service is None else self.service.private_key
        if key is None and self.fleet is not None:
            key = self.fleet.private_pem
        return key

    # --- changes, from any thread ---------------------------------------------------------

    def changed(self, what: str = "", table: str = "") -> None:
        """Something was stored: the overview is rebuilt soon (coalesced)."""
        loop = self._loop
        if loop is None:
            return
        loop.call_soon_threadsafe(self._schedule, table, what == "event")

    def _schedule(self, table: str, event: bool = False) -> None:
        if event and table:
            self._moved.add(table)  # its verdicts looked at with the next flush
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
        moved, self._moved = sorted(self._moved), set()
        for table in moved:  # a hand that ended: its verdicts worked out, off the loop
            self.verdicts.table_moved(table)
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
            "pace": self._pace_text(lines),
            "store_problem": "null",
        }
        return lines, parts

    def _titles(self, lines: list[TableLine]) -> dict[str, str]:
        return {line.table: line.row["title"] for line in lines}

    def _pace_text(self, lines: list[TableLine]) -> str:
        """The pace of play as JSON text: judged again when the round's time or the
        tables in view changed, else at most every ``pace_every`` seconds, and while a
        round's clock runs at least that often (a snapshot is scheduled for it)."""
        clock = self.admin.round_clock()
        titles = self._titles(lines)
        key = (clock, titles)
        now = self._monotonic()
        kept = self._pace_kept
        if kept is None or kept[1] != key or now - kept[0] >= self._pace_every:
            kept = self._pace_kept = (now, key, json_text(self._pace_view(titles)))
        self._pace_again_later(clock)
        return kept[2]

    def _pace_view(self, titles: Mapping[str, str]) -> PaceView:
        """The pace of play, or what kept it from being judged: never the overview's
        fall (the database down is the overview's to say, as for every part)."""
        try:
            return self.pace.view(titles)
        except StoreUnavailable:
            raise
        except Exception as exc:
            log.exception("the pace of play could not be judged")
            return PaceView(
                state="not_set",
                round_text="",
                problem=f"The pace of play could not be judged ({exc}); the rest of the "
                "dashboard is up to date",
                minutes_left=None,
                ends=None,
                tables=[],
                flagged=[],
                how="",
            )

    def _pace_again_later(self, clock: RoundClock | None) -> None:
        if clock is None or clock.started is None or self._loop is None or self._pace_due:
            return
        self._pace_due = True
        self._loop.call_later(self._pace_every, self._pace_again)

    def _pace_again(self) -> None:
        self._pace_due = False
        self._schedule("")

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
            "pace": self._pace_view(self._titles(lines)),
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
        check_tls(tls_cert, tls_key)
        self._loop = asyncio.get_running_loop()
        self.verdicts.attach(self._loop)
        self.login.start()
        await asyncio.to_thread(self.admin.catch_up)  # results stored while we were down
        apps = [(self.app if public_port is None else self.director_app, port, "--web-port")]
        if public_port is not None:
            apps.append((self.public_app, public_port, "--public-port"))
        scheme = "https" if tls_cert else "http"
        shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
        urls = []
        try:
            for app, at, flag in apps:
                bound = await self._listeners.serve(app, host, at, flag, tls_cert, tls_key)
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

    async def serve_redirect(self, host: str, port: int, https_port: int) -> int:
        """Plain HTTP on ``host:port`` that only redirects to the HTTPS dashboard on
        ``https_port`` (director/https_redirect.py), with the headers of every listener;
        stopped with the dashboard. Returns the port bound; DashboardError (an OSError)
        in words when it cannot listen."""
        return await self._listeners.serve_redirect(host, port, https_port)

    async def stop(self) -> None:
        self._pages.close_all()
        self._loop = None
        await self._listeners.stop()
        await self.verdicts.close()  # a game cut short is worked out when next opened

    # --- the overview's routes (login required) ---------------------------------------

    async def _events(self, request: Request) -> Response:
        """The overview as it changes, until the session ends (checked at each heartbeat:
        a director logged out, or whose password changed, stops receiving)."""

        async def still_open() -> bool:
            with contextlib.suppress(StoreUnavailable):  # said in the overview
                return await run_in_threadpool(self.login.who, request) is not None
            return True

        return self._pages.response(still_open)

    def _overview_route(self, request: Request) -> Response:
        return SafeJSON(self.overview())


__all__ = ["DirectorPage"]
