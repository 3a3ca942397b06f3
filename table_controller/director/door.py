"""What is the director's own at the one web door (web/guard.py): its refusals in the
words a director reads, the tighter JSON limits of its forms, and the JSON answer that
never fails on what a table sent.

Every check is the guard's, the same as on the table's page: JSON only, the listener's
own Origin (``null`` is another's), a body of at most 16 KiB with a length that is a
plain number. The director's listeners (the dashboard, the public view, the fleet's
routes) run them in the guard's middleware before any route; with the session cookie
``SameSite=Strict`` (not sent at all on a request another site starts) these make a
per-session CSRF token unnecessary (docs/director.md, "Security"). The login itself is
checked by session.py (``Login``), which each route that needs it passes.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp

from table_controller.director.json_value import JSONObject
from table_controller.director.store import finite
from table_controller.web.guard import Door, Guard
from table_controller.web.guard import read_json as read_door_json

FORMS = "use the dashboard's forms"
DIRECTOR_DOOR = Door(
    not_json="a change must be sent as application/json, not {kind}",
    not_json_fix=FORMS,
    no_kind="nothing",
    foreign="a change sent from another site ({origin}) is refused",
    foreign_fix="use the director's dashboard itself",
    wrong_host="the dashboard was asked for as {host}, not by the director's address or name",
    wrong_host_fix="open the dashboard at the address the director prints when it starts",
    too_large="the request is too large",
    too_large_fix="send one form at a time",
    unreadable="the request is not JSON within the limits: {error}",
    unreadable_fix=FORMS,
    max_depth=16,  # a form nests two or three deep
    max_int_digits=18,
    default_src="'self'",
)


def guarded(app: ASGIApp) -> ASGIApp:
    """``app`` behind the guard, in the director's words. No ``Host`` list: tables ask
    to join by whatever name or address they were given for the director."""
    return Guard(app, DIRECTOR_DOOR)


async def read_json(request: Request) -> JSONObject:
    """The form's JSON object (an empty body: ``{}``); ``Refused`` (4xx) says what is
    wrong with it."""
    return await read_door_json(request, DIRECTOR_DOOR)


class SafeJSON(JSONResponse):
    """A JSON answer that never fails on a NaN a table sent: it goes out as null."""

    def render(self, content: object) -> bytes:
        try:
            return super().render(content)
        except ValueError:
            return super().render(finite(content))


__all__ = ["DIRECTOR_DOOR", "FORMS", "SafeJSON", "guarded", "read_json"]
