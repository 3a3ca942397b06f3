"""The dashboard's routes: its page (``/``), a table's detail (``/api/tables/NAME``) and
its evidence images, each game's hand review (``/review/NAME/GAME``), the alert queue's
changes and panels, the ruling form and the rulings sent, and the audit log.

Every route but the page needs a director's login (``session.Login``); the page holds a
login form and no data of its own. A table's detail is read on demand from the store's
projection, drawn with the table page's own ``table_view``, so the director sees what
the players see. The overview itself (``/events``, ``/api/overview``) is not here: it is
one snapshot of every feature (the tournament's results and event, the broker's link),
coalesced for every open dashboard, which the composition (web.py) makes and streams.

Why the whole store and not its parts: these routes read six of them (tables, events,
projections, rulings, alerts, accounts), and the ruling form and ``DashboardView`` take
the store too. A change (an alert's state, a ruling) is told to ``changed``, so the
overview is made again.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
from collections.abc import Callable
from importlib import resources
from typing import Protocol, cast

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import BaseRoute, Route

from table_controller.cards import Card
from table_controller.director.dashboard.review import stored_review, table_name
from table_controller.director.dashboard.ruling import RulingError, ruling_form, ruling_text
from table_controller.director.dashboard.verdicts import StoredVerdicts
from table_controller.director.dashboard.view import DashboardView
from table_controller.director.door import SafeJSON
from table_controller.director.json_value import JSONObject, JSONValue
from table_controller.director.session import Login
from table_controller.director.store import ALERT_STATES, DirectorStore, StoreError
from table_controller.pictures import media_type, not_modified, picture_headers
from table_controller.present import table_view
from table_controller.review import ReviewError, review_page
from table_controller.rules.errors import RulesError
from table_controller.web.guard import Refused, words_page

MAX_NUMBER = 2**31 - 1  # a game, event or alert number in a path or query
HISTORY = 400  # the most recent events shown in a table's history


class RulingDesk(Protocol):
    """What the dashboard needs of the director's service: sending a ruling (signed,
    stored, audited, published; ``RulingError`` in words when it cannot be)."""

    def send_ruling(
        self,
        *,
        director: str,
        table: str,
        kind: str,
        reason: str,
        team: str | None = None,
        points: int | None = None,
    ) -> JSONObject: ...


class DashboardWeb:
    """The dashboard's routes over ``store``, its words from ``view``; rulings go out
    through ``rulings`` (None: the dashboard only reads, and says so when a ruling is
    asked for). ``changed(what, table)``: something was stored."""

    def __init__(
        self,
        store: DirectorStore,
        view: DashboardView,
        *,
        title: str,
        rulings: RulingDesk | None,
        changed: Callable[[str, str], None],
        verdicts: StoredVerdicts | None = None,
    ) -> None:
        self.store = store
        self.verdicts = verdicts
        self.view = view
        self.rulings = rulings
        self._title = title
        self._changed = changed
        static = resources.files("table_controller.director") / "static"
        self._page = (static / "dashboard.html").read_text(encoding="utf-8")
        self._login: Login | None = None

    def routes(self, login: Login) -> list[BaseRoute]:
        self._login = login
        return [
            Route("/", self._index),
            Route("/api/tables/{table}", login(self._table)),
            Route("/api/alerts/{alert}", login(self._alert), methods=["POST"]),
            Route("/api/alerts/{alert}/defaults", login(self._defaults)),
            Route("/api/tables/{table}/ruling", login(self._table_ruling)),
            Route("/api/alerts/{alert}/detail", login(self._alert_detail)),
            Route("/api/rulings", login(self._ruling), methods=["POST"]),
            Route("/api/audit", login(self._audit)),
            Route("/evidence/{table}/{game}/{seq}.png", login(self._evidence)),
            Route("/review/{table}/{game}", login(self._review)),
        ]

    # --- reading --------------------------------------------------------------------

    async def _index(self, request: Request) -> Response:
        """The page: a login form, and the dashboard's frame its script fills in once
        logged in (it holds no data of its own)."""
        page = self._page.replace("{{title}}", html.escape(self._title))
        return HTMLResponse(page, headers={"Cache-Control": "no-cache"})

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

    def _review(self, request: Request) -> Response:
        """A game's hand review, every game's (one in progress shows its ended hands
        only: the review itself keeps the hand in play out)."""
        p = request.path_params
        game = _number(p["game"])
        title = table_name(self.store, p["table"])
        if title is None:
            return words_page(
                404, f"No table {p['table'][:100]!r} has reported", "Check the table's name."
            )
        try:
            review = None if game is None else stored_review(self.store, p["table"], game, title)
        except ReviewError as exc:
            return words_page(409, "This game cannot be replayed", str(exc))
        if review is None:
            return words_page(
                404,
                f"{title} has sent no game {p['game'][:20]}",
                "Open a game's review from the dashboard's list of games.",
            )
        judged = None
        if self.verdicts is not None and game is not None:
            judged = self.verdicts.for_page(p["table"], game, len(review.hands))
        document = review_page(review, judged, links={"Back to the dashboard": "/"})
        headers = {"Content-Security-Policy": document.csp, "Cache-Control": "no-store"}
        return HTMLResponse(document.html, headers=headers)

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

    # --- changes --------------------------------------------------------------------

    async def _form(self, request: Request) -> tuple[str, JSONObject]:
        assert self._login is not None  # the routes were made with it
        return await self._login.form(request)

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
        self._changed("alert", "")
        return SafeJSON({"ok": True})

    async def _ruling(self, request: Request) -> Response:
        who, body = await self._form(request)
        if self.rulings is None:
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
                self.rulings.send_ruling,
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
        self._changed("ruling", "")
        return SafeJSON({"ok": True, "ruling": payload})


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


__all__ = ["DashboardWeb", "RulingDesk"]
