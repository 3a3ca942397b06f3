"""The tournament's routes on the dashboard: the event as the dashboard's forms show it
(``GET /api/event``), a form's change to it (``POST /api/event/{action}``: start, seat,
enter a result, ...; ``forms.py``) and the results confirmed final
(``POST /api/results/final``, signed with the director's key when it has one).

Every route needs a director's login (``session.Login``). They take the event's admin
and its results, not the store: what they change goes through those. A change is told
to ``changed``, so the overview is made again.
"""

from __future__ import annotations

from collections.abc import Callable

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from table_controller.director.door import SafeJSON
from table_controller.director.json_value import JSONObject
from table_controller.director.session import Login
from table_controller.director.store import StoreError
from table_controller.director.tournament.admin import AdminError, TournamentAdmin
from table_controller.director.tournament.forms import ACTIONS, apply
from table_controller.director.tournament.results import ResultsSource
from table_controller.web.guard import Refused


class TournamentWeb:
    """The event's routes over ``admin`` and ``results``. ``signing_key()``: the
    director's key (PEM) the final results are signed with, None without one;
    ``changed(what, table)``: something was stored."""

    def __init__(
        self,
        admin: TournamentAdmin,
        results: ResultsSource,
        *,
        signing_key: Callable[[], bytes | None],
        changed: Callable[[str, str], None],
    ) -> None:
        self.admin = admin
        self.results = results
        self._signing_key = signing_key
        self._changed = changed
        self._login: Login | None = None

    def routes(self, login: Login) -> list[BaseRoute]:
        self._login = login
        return [
            Route("/api/results/final", login(self._results_final), methods=["POST"]),
            Route("/api/event", login(self._event)),
            Route("/api/event/{action}", login(self._event_change), methods=["POST"]),
        ]

    def _event(self, request: Request) -> Response:
        return SafeJSON(self.admin.summary())

    async def _form(self, request: Request) -> tuple[str, JSONObject]:
        assert self._login is not None  # the routes were made with it
        return await self._login.form(request)

    async def _results_final(self, request: Request) -> Response:
        who, _ = await self._form(request)
        key = self._signing_key()
        try:
            done = await run_in_threadpool(self.results.confirm_final, self.admin, who, key)
        except AdminError as exc:
            raise Refused(400, str(exc), "check the results, then confirm again") from None
        except StoreError as exc:
            raise Refused(503, str(exc), "nothing was changed; try again") from None
        self._changed("event", "")
        return SafeJSON({"ok": True, "done": done})

    async def _event_change(self, request: Request) -> Response:
        who, body = await self._form(request)
        action = request.path_params["action"]
        if action not in ACTIONS:
            raise Refused(
                404, f"there is no event action {action[:40]!r}", "use the dashboard's event forms"
            )
        try:
            done = await apply(self.admin, who, action, body)
        except AdminError as exc:
            raise Refused(400, str(exc), "correct the form and send it again") from None
        except StoreError as exc:
            raise Refused(503, str(exc), "nothing was changed; try again") from None
        self._changed("event", "")
        summary = await run_in_threadpool(self.admin.summary)
        return SafeJSON({"ok": True, "done": done, "event": summary})


__all__ = ["TournamentWeb"]
