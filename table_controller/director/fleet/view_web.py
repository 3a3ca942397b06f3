"""The fleet view's routes on the dashboard's server: the page (``/fleet``), its data
(``GET /api/fleet``), the two camera commands (``POST /api/fleet/{table}/camera-view``,
``.../recalibrate``) and the latest pictures (``GET /fleet/camera/{table}.jpg``).

Every route needs a director's login, like the dashboard's own; the commands are POSTs
of JSON, so the dashboard's guard (web/guard.py) refuses them from another site as it
refuses a ruling. The tables asking to join, and approving or removing a table, are
the joining part's routes (``/api/fleet/requests``, ``/approve``, ``/remove``): the
page calls them, this module does not.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from importlib import resources

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from table_controller.director.door import SafeJSON, read_json
from table_controller.director.fleet.camera import KINDS, CameraCommandError, CameraCommands
from table_controller.director.fleet.view import FleetView, approved_tables
from table_controller.director.session import Login
from table_controller.director.store import DirectorStore, StoreError
from table_controller.feed.limits import limits_words
from table_controller.pictures import media_type
from table_controller.rules.option_words import rules_words
from table_controller.web.guard import Refused


class FleetWeb:
    """The fleet view over ``store``; ``commands`` None: the page shows the tables but
    says why it cannot ask them for pictures. ``director(request)``: the logged-in
    director's name, or None. ``fleet_mode``: the tables are the approved ones (and
    tables may ask to join); else every table that reported."""

    def __init__(
        self,
        store: DirectorStore,
        *,
        director: Callable[[Request], str | None],
        commands: CameraCommands | None,
        title: str,
        fleet_mode: bool = False,
        on_change: Callable[[], None] | None = None,
    ) -> None:
        self.store = store
        self.fleet_mode = fleet_mode
        self.view = FleetView(store, fleet_mode=fleet_mode)
        self.commands = commands
        self._director = director
        self._title = title
        self._on_change = on_change
        static = resources.files("table_controller.director") / "static"
        self._page = (static / "fleet.html").read_text(encoding="utf-8")

    def routes(self, login: Login) -> list[BaseRoute]:
        return [
            Route("/fleet", self._index),
            Route("/api/fleet", login(self._fleet)),
            *(
                Route(f"/api/fleet/{{table}}/{kind}", login(self._ask), methods=["POST"])
                for kind in KINDS
            ),
            Route("/fleet/camera/{table}.jpg", login(self._picture)),
        ]

    # --- reading --------------------------------------------------------------------

    def _index(self, request: Request) -> Response:
        """The page for a logged-in director; anyone else is sent to the dashboard's
        login (the page holds no data of its own: its script reads ``/api/fleet``)."""
        if self._director(request) is None:
            return RedirectResponse("/", status_code=303)
        page = self._page.replace("{{title}}", html.escape(self._title))
        return HTMLResponse(page, headers={"Cache-Control": "no-cache"})

    def _fleet(self, request: Request) -> Response:
        return SafeJSON(
            {
                "title": self._title,
                "tables": self.view.tables(),
                "joining": self.fleet_mode,
                "rules_text": rules_words(self.store.rules_name, self.store.options),
                # under the tables: what each may send and what is kept of it
                "limits_text": limits_words(self.store.limits),
                "commands_problem": self._commands_problem(),
            },
            headers={"Cache-Control": "no-store"},
        )

    def _commands_problem(self) -> str | None:
        if self.commands is None:
            return (
                "this dashboard is not connected to the tables, so it cannot ask them for "
                "their camera: run the director with its broker (`table-controller director start`)"
            )
        if self.commands.private_pem is None:
            return (
                "the director has no signing key, so the tables would refuse its commands: "
                "start the director with its key"
            )
        return None

    def _picture(self, request: Request) -> Response:
        table = request.path_params["table"]
        kind = request.query_params.get("kind") or "camera-view"
        if kind not in KINDS:
            raise Refused(404, "there is no such picture", "use the fleet page's pictures")
        jpeg = self.store.pictures.fleet_picture(table, kind)
        if jpeg is None:
            raise Refused(
                404,
                "the table has sent no such picture yet",
                "ask it with the fleet page's buttons",
            )
        return Response(jpeg, media_type=media_type(jpeg), headers={"Cache-Control": "no-cache"})

    # --- the commands ---------------------------------------------------------------

    async def _ask(self, request: Request) -> Response:
        table, kind = request.path_params["table"], request.url.path.rsplit("/", 1)[1]
        who = await run_in_threadpool(self._director, request)
        if who is None:
            raise Refused(401, "your session ended", "log in again")
        await read_json(request)  # a JSON body, checked like every change's
        problem = self._commands_problem()
        if problem is not None or self.commands is None:
            raise Refused(409, problem or "", "ask again once the director is connected")
        known = await run_in_threadpool(self._known, table)
        if not known:
            raise Refused(
                404,
                f"there is no table {table[:80]!r} in this event",
                "reload the fleet page: the table may have been removed",
            )
        commands = self.commands
        try:
            order = await run_in_threadpool(commands.ask, table, kind, who=who)
        except CameraCommandError as exc:
            raise Refused(400, str(exc), "reload the fleet page and try again") from None
        except StoreError as exc:
            raise Refused(503, str(exc), "nothing was sent; try again") from None
        if self._on_change is not None:
            self._on_change()
        return SafeJSON({"ok": True, "order": order["id"]})

    def _known(self, table: str) -> bool:
        if self.fleet_mode:
            return any(t.get("id") == table for t in approved_tables(self.store))
        return any(t["table"] == table for t in self.store.tables.tables())


__all__ = ["FleetWeb"]
