"""The director's dashboard: every table at a glance, a table's live view and history,
the alert queue, rulings and standings; served by uvicorn in the director's event loop.

The overview (tables, open alerts, standings) is one snapshot pushed to every open
dashboard over Server-Sent Events, newest winning (a slow browser skips to the latest),
rebuilt at most every ``coalesce`` seconds however fast the tables play. A table's
detail is read on demand (``/api/tables/NAME``) from the store's projection, drawn with
the table page's own ``table_view``, so the director sees what the players see.

Reading needs no login (the director's screen in the director's room; put it behind the
event's network). Every change (alerts, rulings) needs a director's login: a session
cookie (HttpOnly, SameSite=Strict) from ``/api/login``, checked on each request.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import json
import logging
import socket
from collections.abc import AsyncIterator, Callable, Generator
from importlib import resources
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from table_controller.cards import Card
from table_controller.director import event_forms
from table_controller.director.events_admin import AdminError, EventsAdmin
from table_controller.director.public import PublicView
from table_controller.director.service import DirectorService, RulingError, ruling_defaults
from table_controller.director.store import (
    ALERT_STATES,
    DirectorStore,
    StoreError,
    StoreUnavailable,
)
from table_controller.table.view import table_view

COOKIE = "tc_director"
HEARTBEAT = 15.0
MAX_BODY = 16_384
HISTORY = 400  # the most recent events shown in a table's history
STORE_RETRY = 2.0  # seconds between tries at the overview while the database is down
Standings = Callable[[DirectorStore], list[dict[str, Any]]]

log = logging.getLogger(__name__)


class DashboardError(OSError):
    """The dashboard could not be served: which address, and what to do."""


def table_standings(store: DirectorStore) -> list[dict[str, Any]]:
    """Standings until the event's format is chosen: each table's games as stored,
    scores and winner. The format's own standings (``director.formats``: progressive
    rounds, 12-hand rounds, brackets) plug in as ``DirectorPage(standings=...)``."""
    rows = []
    for t in store.tables():
        for game in store.games(t["table"]):
            proj = store.projection(t["table"], game)
            ns, ew = proj.game.team_scores()
            winner = proj.game.match_winner
            rows.append(
                {
                    "table": t["table"],
                    "game": game,
                    "NS": ns,
                    "EW": ew,
                    "players": t["players"],
                    "winner": None if winner is None else winner.name,
                    "hands": proj.game.hands_counted,
                }
            )
    return rows


class _Mailbox:
    def __init__(self) -> None:
        self.pending: str | None = None
        self.closed = False
        self.ready = asyncio.Event()

    def offer(self, text: str) -> None:
        self.pending = text
        self.ready.set()


class _Server(uvicorn.Server):
    """uvicorn without its signal handlers: the director's command owns Ctrl-C."""

    @contextlib.contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        yield


class DirectorPage:
    """The dashboard over ``store``; rulings go out through ``service`` (None: the
    dashboard only reads, and says so when a ruling is asked for)."""

    def __init__(
        self,
        store: DirectorStore,
        service: DirectorService | None = None,
        *,
        title: str = "Tournament director",
        standings: Standings = table_standings,
        coalesce: float = 0.05,
        heartbeat: float = HEARTBEAT,
        admin: EventsAdmin | None = None,
        public_delay: float | None = None,
    ) -> None:
        self.store = store
        self.service = service
        self.admin = admin if admin is not None else EventsAdmin(store)
        self.public = PublicView(store, self.admin, delay=public_delay)
        self._title = title
        self._standings = standings
        self._coalesce = coalesce
        self._heartbeat = heartbeat
        self._mailboxes: set[_Mailbox] = set()
        self._latest: str | None = None
        self._version = 0
        self._dirty: set[str] = set()
        self._scheduled = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: _Server | None = None
        self._task: asyncio.Task[None] | None = None
        self.url: str | None = None
        static = resources.files("table_controller.director") / "static"
        self._page = (static / "dashboard.html").read_text(encoding="utf-8")
        self._public_page = (static / "public.html").read_text(encoding="utf-8")
        self.app = Starlette(
            routes=[
                Route("/", self._index),
                Route("/events", self._events),
                Route("/api/overview", self._overview_route),
                Route("/api/me", self._me),
                Route("/api/login", self._login, methods=["POST"]),
                Route("/api/logout", self._logout, methods=["POST"]),
                Route("/api/tables/{table}", self._table),
                Route("/api/alerts/{alert:int}", self._alert, methods=["POST"]),
                Route("/api/alerts/{alert:int}/defaults", self._defaults),
                Route("/api/rulings", self._ruling, methods=["POST"]),
                Route("/api/audit", self._audit),
                Route("/api/event", self._event),
                Route("/api/event/{action}", self._event_change, methods=["POST"]),
                Route("/public", self._public_index),
                Route("/api/public", self._public),
                Route("/evidence/{table}/{game:int}/{seq:int}.png", self._evidence),
                Mount("/static", app=StaticFiles(directory=str(static)), name="static"),
            ],
            exception_handlers={StoreUnavailable: _store_down},
        )
        if service is not None:
            service.listen(self.admin.on_stored)  # results first, so the overview has them
            service.listen(self.changed)

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
        if not self._scheduled and self._loop is not None:
            self._scheduled = True
            self._loop.call_later(self._coalesce, self._flush)

    def _flush(self) -> None:
        self._scheduled = False
        changed, self._dirty = sorted(self._dirty), set()
        try:
            snap = self.overview(changed)
        except StoreUnavailable as exc:
            # Said on the page, and tried again until the database is back (nothing
            # else may come to ask: the writer waits for the same database).
            self._dirty.update(changed)
            snap = {"version": self._version, "store_problem": str(exc)}
            if self._loop is not None and not self._scheduled:
                self._scheduled = True
                self._loop.call_later(STORE_RETRY, self._flush)
        except Exception:
            log.exception("the dashboard's overview could not be built")
            return
        self._version += 1
        snap["version"] = self._version
        text = json.dumps(snap, separators=(",", ":"))
        self._latest = text
        for m in self._mailboxes:
            m.offer(text)

    def overview(self, changed: list[str] | None = None) -> dict[str, Any]:
        counts = self.store.event_counts()
        alerts = self.store.alerts()
        open_by_table: dict[str, int] = {}
        for a in alerts:
            if a["state"] == "open":
                open_by_table[a["table"]] = open_by_table.get(a["table"], 0) + 1
        tables = [
            {**t, "events": counts.get(t["table"], 0), "alerts": open_by_table.get(t["table"], 0)}
            for t in self.store.tables()
        ]
        try:
            standings = self._standings(self.store)
        except Exception as exc:  # the format's code must never take the dashboard down
            log.exception("the standings could not be computed")
            standings = [{"problem": f"the standings could not be computed ({exc})"}]
        return {
            "version": self._version,
            "title": self._title,
            "tables": tables,
            "alerts": alerts,
            "standings": standings,
            "changed": changed or [],
            "store_problem": None,
            "event": self.admin.summary(),
            "broker": None
            if self.service is None
            else {"connected": self.service.connected.is_set(), "problem": self.service.problem},
        }

    # --- serving ------------------------------------------------------------------------

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> str:
        try:
            family = socket.AF_INET6 if ":" in host else socket.AF_INET
            sock = socket.create_server((host, port), family=family)
        except OSError as exc:
            raise DashboardError(
                exc.errno,
                f"the dashboard cannot listen on {host}:{port} ({exc.strerror or exc}): another "
                "program may use that port; give another with --web-port, or stop that program",
            ) from exc
        bound = sock.getsockname()[1]
        config = uvicorn.Config(
            self.app,
            lifespan="off",
            ws="none",
            log_level="warning",
            access_log=False,
            timeout_graceful_shutdown=3,
        )
        self._server = _Server(config)
        self._loop = asyncio.get_running_loop()
        await asyncio.to_thread(self.admin.catch_up)  # results stored while we were down
        self._task = asyncio.create_task(self._serve(self._server, sock), name="dashboard")
        while not self._server.started:
            if self._task.done():
                self._task.result()
                raise DashboardError(f"the dashboard stopped at once on {host}:{port}")
            await asyncio.sleep(0.01)
        self._flush()
        shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
        self.url = f"http://{shown}:{bound}/"
        return self.url

    @staticmethod
    async def _serve(server: uvicorn.Server, sock: socket.socket) -> None:
        try:
            await server.serve(sockets=[sock])
        finally:
            sock.close()

    async def stop(self) -> None:
        for m in list(self._mailboxes):
            m.closed = True
            m.ready.set()
        server, task = self._server, self._task
        self._server = self._task = None
        self._loop = None
        if server is None or task is None:
            return
        server.should_exit = True
        try:
            await asyncio.wait_for(asyncio.shield(task), timeout=5)
        except TimeoutError:
            server.force_exit = True
            await task

    # --- reading ------------------------------------------------------------------------

    async def _index(self, request: Request) -> Response:
        page = self._page.replace("{{title}}", html.escape(self._title))
        return HTMLResponse(page, headers={"Cache-Control": "no-cache"})

    async def _events(self, request: Request) -> Response:
        mailbox = _Mailbox()
        if self._latest is not None:
            mailbox.offer(self._latest)
        self._mailboxes.add(mailbox)
        return StreamingResponse(
            self._stream(mailbox),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )

    async def _stream(self, mailbox: _Mailbox) -> AsyncIterator[str]:
        try:
            yield "retry: 1000\n\n"
            while not mailbox.closed:
                try:
                    await asyncio.wait_for(mailbox.ready.wait(), timeout=self._heartbeat)
                except TimeoutError:
                    yield ": heartbeat\n\n"
                    continue
                mailbox.ready.clear()
                text, mailbox.pending = mailbox.pending, None
                if text is not None and not mailbox.closed:
                    yield f"data: {text}\n\n"
        finally:
            self._mailboxes.discard(mailbox)

    async def _overview_route(self, request: Request) -> Response:
        return JSONResponse(self.overview())

    async def _table(self, request: Request) -> Response:
        table = request.path_params["table"]
        games = self.store.games(table)
        known = {t["table"] for t in self.store.tables()}
        if table not in known:
            return _problem(404, f"no table {table!r} has reported", "check the table's name")
        game = int(request.query_params.get("game") or (games[-1] if games else 0))
        events = self.store.events(table, game) if games else []
        players = self.store.players(table)
        view = None
        proj = None
        if games:
            proj = self.store.projection(table, game)
            urls: dict[Card, str] = {}
            for ev in events:
                card = ev["input"].get("card")
                if ev["evidence"] and ev["input"].get("event") == "card_played" and card:
                    urls[Card.parse(card)] = f"/evidence/{table}/{game}/{ev['seq']}.png"
            view = table_view(
                proj.game,
                table=table,
                players=players,
                recent=proj.recent,
                evidence_urls=urls,
                rules_name=self.store.rules_of(table)[0],
            )
        return JSONResponse(
            {
                "table": table,
                "games": games,
                "game": game,
                "view": view,
                "applied": None if proj is None else proj.applied,
                "missing": None if proj is None else proj.missing,
                "problem": None if proj is None else proj.problem,
                "history": events[-HISTORY:],
                "rulings": self.store.rulings(table),
                "status": self.store.status_history(table)[-20:],
            }
        )

    async def _evidence(self, request: Request) -> Response:
        p = request.path_params
        png = self.store.evidence(p["table"], p["game"], p["seq"])
        if png is None:
            return _problem(
                404,
                f"no evidence image for event {p['seq']} of game {p['game']}",
                "the table may not have sent it yet",
            )
        return Response(png, media_type="image/png", headers={"Cache-Control": "max-age=86400"})

    async def _defaults(self, request: Request) -> Response:
        aid = request.path_params["alert"]
        alert = next((a for a in self.store.alerts(states=ALERT_STATES) if a["id"] == aid), None)
        if alert is None:
            return _problem(404, f"there is no alert {aid}", "reload the dashboard")
        return JSONResponse(ruling_defaults(alert, self.store))

    # --- logging in ---------------------------------------------------------------------

    def _director(self, request: Request) -> str | None:
        return self.store.session(request.cookies.get(COOKIE))

    async def _me(self, request: Request) -> Response:
        return JSONResponse({"director": self._director(request)})

    async def _login(self, request: Request) -> Response:
        body = await _json(request)
        if isinstance(body, Response):
            return body
        name, password = str(body.get("name", "")), str(body.get("password", ""))
        token = self.store.login(name, password)
        if token is None:
            return _problem(
                401,
                "that name and password do not match a director's login",
                "check them; a login is made with `table-controller director add-login NAME`",
            )
        resp = JSONResponse({"ok": True, "director": name})
        resp.set_cookie(
            COOKIE, token, httponly=True, samesite="strict", secure=request.url.scheme == "https"
        )
        return resp

    async def _logout(self, request: Request) -> Response:
        token = request.cookies.get(COOKIE)
        if token:
            self.store.logout(token)
        resp = JSONResponse({"ok": True})
        resp.delete_cookie(COOKIE)
        return resp

    # --- changes (login required) -------------------------------------------------------

    async def _form(self, request: Request) -> tuple[str, dict[str, Any]] | Response:
        """A logged-in director's form: (who, the JSON body), or the refusal to send."""
        who = self._needs_login(request)
        if isinstance(who, Response):
            return who
        body = await _json(request)
        if isinstance(body, Response):
            return body
        return who, body

    def _needs_login(self, request: Request) -> str | Response:
        who = self._director(request)
        if who is None:
            return _problem(
                401,
                "you are not logged in (or the session ended)",
                "log in with your director's name and password",
            )
        return who

    async def _alert(self, request: Request) -> Response:
        form = await self._form(request)
        if isinstance(form, Response):
            return form
        who, body = form
        try:
            self.store.set_alert(
                request.path_params["alert"],
                str(body.get("state")),
                who,
                body.get("reason") or None,
            )
        except StoreError as exc:
            return _problem(409, str(exc), "reload the dashboard and try again")
        self.changed("alert", "")
        return JSONResponse({"ok": True})

    async def _ruling(self, request: Request) -> Response:
        form = await self._form(request)
        if isinstance(form, Response):
            return form
        who, body = form
        if self.service is None:
            return _problem(
                503,
                "this dashboard is not connected to the tables",
                "run `table-controller director` with the broker's address",
            )
        points = body.get("points")
        try:
            points = int(points) if points not in (None, "") else None
        except (TypeError, ValueError):
            return _problem(400, f"{points!r} is not a number of points", "write e.g. -2 or 1")
        try:
            payload = await asyncio.to_thread(
                self.service.send_ruling,
                director=who,
                table=str(body.get("table", "")),
                kind=str(body.get("kind", "")),
                reason=str(body.get("reason") or ""),
                team=body.get("team") or None,
                points=points,
            )
        except RulingError as exc:
            return _problem(400, str(exc), "fill in the ruling's form and send it again")
        alert = body.get("alert")
        if isinstance(alert, int) and body.get("close_alert", True):
            with contextlib.suppress(StoreError):
                self.store.set_alert(alert, "closed", who, f"ruling {payload['ruling_id']}")
        self.changed("ruling", "")
        return JSONResponse({"ok": True, "ruling": payload})

    async def _audit(self, request: Request) -> Response:
        who = self._needs_login(request)
        if isinstance(who, Response):
            return who
        return JSONResponse(self.store.audit())


    # --- the event's format and the public view ----------------------------------------------

    async def _event(self, request: Request) -> Response:
        return JSONResponse(self.admin.summary())

    async def _event_change(self, request: Request) -> Response:
        form = await self._form(request)
        if isinstance(form, Response):
            return form
        who, body = form
        action = request.path_params["action"]
        if action not in event_forms.ACTIONS:
            return _problem(404, f"there is no event action {action!r}",
                            "use the dashboard's event forms")
        try:
            done = await event_forms.apply(self.admin, who, action, body)
        except AdminError as exc:
            return _problem(400, str(exc), "correct the form and send it again")
        except StoreError as exc:
            return _problem(503, str(exc), "nothing was changed; try again")
        self.changed("event", "")
        return JSONResponse({"ok": True, "done": done, "event": self.admin.summary()})

    async def _public_index(self, request: Request) -> Response:
        page = self._public_page.replace("{{title}}", html.escape(self._title))
        return HTMLResponse(page, headers={"Cache-Control": "no-cache"})

    async def _public(self, request: Request) -> Response:
        asked = request.query_params.get("delay")
        try:
            delay = float(asked) if asked else None
        except ValueError:
            return _problem(400, f"delay={asked!r} is not a number of seconds", "e.g. ?delay=60")
        snap = await asyncio.to_thread(self.public.snapshot, delay)
        snap["title"] = self._title
        return JSONResponse(snap, headers={"Cache-Control": "no-store"})


async def _json(request: Request) -> dict[str, Any] | Response:
    body = await request.body()
    if len(body) > MAX_BODY:
        return _problem(413, "the request is too large", "send one form at a time")
    try:
        obj = json.loads(body or b"{}")
    except (json.JSONDecodeError, UnicodeDecodeError):
        return _problem(400, "the request is not JSON", "use the dashboard's forms")
    if not isinstance(obj, dict):
        return _problem(400, "the request is not a JSON object", "use the dashboard's forms")
    return obj


async def _store_down(request: Request, exc: Exception) -> Response:
    """Any request while the database is down (a PostgreSQL server restarting, a disk):
    503 with the store's words, not a bare 500."""
    return _problem(503, str(exc), "wait for the database to be back; the page tries again")


def _problem(status: int, problem: str, fix: str) -> JSONResponse:
    return JSONResponse({"ok": False, "problem": problem, "fix": fix}, status_code=status)


__all__ = ["DashboardError", "DirectorPage", "Standings", "table_standings"]
