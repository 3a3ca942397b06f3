"""The hall's routes: the big screen's page (``/public``) and its snapshot
(``/api/public``, ``?delay=SECONDS`` to hold it back longer), and a finished game's hand
review (``/public/review/TABLE/GAME``), open to anyone, no login.

Served on the dashboard's port, or with ``public_port`` on a port of their own, where
the director's routes are not (nor these on the director's): which routes go on which
listener is the composition's choice (web.py), since every listener is built and
guarded alike. The snapshot is the public view's (``view.py``): delayed, never a held
card, and never cached by a browser or a proxy between it and the hall's screen.
"""

from __future__ import annotations

import asyncio
import html
from importlib import resources

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import BaseRoute, Route

from table_controller.director.dashboard import StoredVerdicts
from table_controller.director.door import SafeJSON
from table_controller.director.hall.view import PublicView, PublicViewError, parse_delay
from table_controller.director.session import Login
from table_controller.review import ReviewError, review_page
from table_controller.web.guard import Refused, words_page


class HallWeb:
    """The public view's routes over ``public``, under ``title``."""

    def __init__(
        self, public: PublicView, *, title: str, verdicts: StoredVerdicts | None = None
    ) -> None:
        self.verdicts = verdicts
        self.public = public
        self._title = title
        static = resources.files("table_controller.director") / "static"
        self._page = (static / "public.html").read_text(encoding="utf-8")

    def routes(self, login: Login | None = None) -> list[BaseRoute]:
        """The hall's routes; ``login`` is taken as every feature's is, and not used:
        the hall's screen has no login."""
        return [
            Route("/public", self._index),
            Route("/api/public", self._public),
            Route("/public/review/{table}/{game:int}", self._review),
        ]

    async def _index(self, request: Request) -> Response:
        page = self._page.replace("{{title}}", html.escape(self._title))
        return HTMLResponse(page, headers={"Cache-Control": "no-cache"})

    async def _review(self, request: Request) -> Response:
        """A finished game's hand review, for anyone: only once the whole game is over
        and its end is past the public delay, so never a hand in play."""
        table, game = request.path_params["table"], request.path_params["game"]
        try:
            review = (
                None if game >= 2**31 else await asyncio.to_thread(self.public.review, table, game)
            )
        except ReviewError as exc:
            return words_page(409, "This game cannot be replayed", str(exc), back="/public")
        if review is None:
            return words_page(
                404,
                "This game cannot be replayed here yet",
                "A game is shown here once it is over: look for it under Recent results.",
                back="/public",
            )
        judged = None
        if self.verdicts is not None:  # a finished game's: every hand of it ended
            judged = await asyncio.to_thread(self.verdicts.for_page, table, game, len(review.hands))
        document = review_page(review, judged, links={"Back to the hall": "/public"})
        headers = {"Content-Security-Policy": document.csp, "Cache-Control": "no-store"}
        return HTMLResponse(document.html, headers=headers)

    async def _public(self, request: Request) -> Response:
        asked = request.query_params.get("delay")
        try:
            delay = parse_delay(asked) if asked else None
        except PublicViewError as exc:
            raise Refused(400, str(exc), "e.g. ?delay=60") from None
        snap = await asyncio.to_thread(self.public.snapshot, delay)
        snap["title"] = self._title
        return SafeJSON(snap, headers={"Cache-Control": "no-store"})


__all__ = ["HallWeb"]
