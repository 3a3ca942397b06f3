"""The fleet's routes on the director's dashboard port.

A table, which has no login, may only say hello (``GET /api/fleet/hello``: the event,
the broker's port and the director's public key, which tables require), ask to join
(``POST /api/fleet/join``: a small body, limited per address and in number,
director/fleet/core.py; the answer gives the request's salt, from which the table works out
its code and check) and fetch its request's answer (``GET /api/fleet/join/{rid}``: the
request's id is random, each fetch keeps a waiting request alive, and the bundle is
sealed to the table's key). A table of this release names its machine in its request
(``machine``: a fingerprint and what it was made from, table/fleet/identity.py) and in
each poll (``?machine=``): a claim, checked only for its shape, by which the director
sees two machines asking with one key (a copied SD card). Listing the
requests, approving, refusing and removing a table need a director's login, and as
every change on the dashboard pass the guard's same-origin and JSON checks (web/guard.py).
"""

from __future__ import annotations

import base64
import binascii
import time
from collections.abc import Callable

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from table_controller import __version__
from table_controller.director.door import SafeJSON
from table_controller.director.fleet import join
from table_controller.director.fleet.copied import claimed_machine
from table_controller.director.fleet.core import Fleet, FleetError, Machine
from table_controller.director.json_value import JSONObject, JSONValue
from table_controller.director.session import Login
from table_controller.feed.messages import is_machine_id
from table_controller.fleet.discovery import key_text
from table_controller.fleet.sealing import KEY_BYTES
from table_controller.safe_json import JSONLimitError, loads_limited
from table_controller.web.guard import Refused

MAX_JOIN_BODY = 4096
JOIN_FIX = "this table asks again by itself; if it keeps failing, update the table"
Who = Callable[[Request], str | None]  # the logged-in director, or None


class JoinWeb:
    """The fleet's joining on the dashboard's port: a table's hello, its request and its
    answer (no login), and the director's list, approval, refusal and removal (logged
    in). Built as the fleet view's routes are (``FleetWeb``): a class whose ``routes``
    wraps the director's routes in the dashboard's login."""

    def __init__(self, fleet: Fleet, who: Who | None = None) -> None:
        """``who`` names the director a request's session belongs to (for the audit
        log; without it, "director")."""
        self.fleet = fleet
        self._who = who

    def routes(self, login: Login) -> list[BaseRoute]:
        return [
            Route("/api/fleet/hello", self._hello),
            Route("/api/fleet/join", self._ask, methods=["POST"]),
            Route("/api/fleet/join/{rid}", self._answer),
            Route("/api/fleet/requests", login(self._waiting)),
            Route("/api/fleet/approve", login(self._approve), methods=["POST"]),
            Route("/api/fleet/refuse", login(self._refuse), methods=["POST"]),
            Route("/api/fleet/remove", login(self._remove), methods=["POST"]),
        ]

    def _hello(self, request: Request) -> Response:
        return SafeJSON(
            {
                "event": self.fleet.event,
                "broker_port": self.fleet.broker_port,
                "key": key_text(self.fleet.public_pem),
                "version": __version__,
            }
        )

    async def _ask(self, request: Request) -> Response:
        body = await _small_json(request, MAX_JOIN_BODY)
        if body.get("v") != 2:
            raise Refused(400, "this table's request is of another release", JOIN_FIX)
        key = _key(body.get("key"))
        host, version = body.get("host"), body.get("version")
        if not isinstance(host, str) or not isinstance(version, str):
            raise Refused(400, "the request names no host and version", JOIN_FIX)
        address = request.client.host if request.client else ""
        machine = _machine(body.get("machine"))
        try:
            r = await run_in_threadpool(
                lambda: self.fleet.requests.ask(
                    key,
                    host=_printable(host, 100),
                    address=address,
                    version=_printable(version, 40),
                    machine=machine,
                )
            )
        except FleetError as exc:
            raise Refused(exc.status, exc.what, exc.fix) from None
        return SafeJSON(
            {"request": r.request, "salt": base64.b64encode(r.salt).decode()}, status_code=202
        )

    def _answer(self, request: Request) -> Response:
        rid = request.path_params["rid"]
        machine = request.query_params.get("machine")
        if machine is not None and not is_machine_id(machine):
            machine = None  # not one a table makes: the poll counts, the claim does not
        r = self.fleet.requests.poll(rid, machine) if len(rid) <= 64 else None
        if r is None:
            raise Refused(
                404,
                "the director has no such request to join (it expired, or the director restarted)",
                "ask to join again",
            )
        return SafeJSON(r.answer(), headers={"Cache-Control": "no-store"})

    def _waiting(self, request: Request) -> Response:
        return SafeJSON(
            {
                "requests": self.fleet.requests.waiting(),
                "key_fingerprint": self.fleet.key_fingerprint,
            }
        )

    async def _form(self, request: Request) -> tuple[str, JSONObject]:
        director = "director" if self._who is None else await run_in_threadpool(self._who, request)
        if director is None:
            raise Refused(401, "your session ended", "log in again")
        return director, await _small_json(request, MAX_JOIN_BODY)

    async def _approve(self, request: Request) -> Response:
        director, body = await self._form(request)
        request_id, code, name = body.get("request"), body.get("code"), body.get("name")
        if not isinstance(request_id, str) or not isinstance(code, str):
            raise Refused(400, "approving needs the request and its code", "fill in the form")
        if not isinstance(name, str):
            raise Refused(400, "approving needs the table's name", "e.g. Table 7")
        try:
            done = await run_in_threadpool(
                lambda: join.approve(
                    self.fleet, request_id, code, name, who=director, now=time.time()
                )
            )
        except FleetError as exc:
            raise Refused(exc.status, exc.what, exc.fix) from None
        return SafeJSON(done)

    async def _refuse(self, request: Request) -> Response:
        _, body = await self._form(request)
        request_id, reason = body.get("request"), body.get("reason") or ""
        if not isinstance(request_id, str) or not isinstance(reason, str):
            raise Refused(400, "refusing needs the request", "use the fleet page")
        try:
            await run_in_threadpool(join.refuse, self.fleet, request_id, reason)
        except FleetError as exc:
            raise Refused(exc.status, exc.what, exc.fix) from None
        return SafeJSON({"refused": request_id})

    async def _remove(self, request: Request) -> Response:
        director, body = await self._form(request)
        table = body.get("table")
        if not isinstance(table, str):
            raise Refused(400, "removing needs the table", "use the fleet page")
        try:
            done = await run_in_threadpool(
                lambda: join.remove(self.fleet, table, who=director, now=time.time())
            )
        except FleetError as exc:
            raise Refused(exc.status, exc.what, exc.fix) from None
        return SafeJSON(done)


def routes(fleet: Fleet, login: Login, who: Who | None = None) -> list[BaseRoute]:
    """The fleet's joining routes; ``login`` wraps a route for logged-in directors only."""
    return JoinWeb(fleet, who).routes(login)


async def _small_json(request: Request, limit: int) -> JSONObject:
    """The request's JSON object, at most ``limit`` bytes; Refused (413, 400) in words."""
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise Refused(413, f"the request is larger than {limit} bytes", JOIN_FIX)
    try:
        obj = loads_limited(body or b"{}", max_depth=8, max_int_digits=18)
    except JSONLimitError as exc:
        raise Refused(400, f"the request is not JSON within the limits: {exc}", JOIN_FIX) from None
    if not isinstance(obj, dict):
        raise Refused(400, "the request is not a JSON object", JOIN_FIX)
    return obj


def _key(value: JSONValue) -> bytes:
    try:
        key = base64.b64decode(value, validate=True) if isinstance(value, str) else b""
    except (binascii.Error, ValueError):
        key = b""
    if len(key) != KEY_BYTES:
        raise Refused(400, "the request carries no table key", JOIN_FIX)
    return key


def _machine(value: JSONValue) -> Machine | None:
    """The machine a request names, None when it names none (an older table); one of
    another shape is refused in words (400)."""
    if value is None:
        return None
    machine = claimed_machine({"fleet": {"machine": value}})
    if machine is not None:
        return machine
    raise Refused(
        400, "the request names its machine in a form this director does not read", JOIN_FIX
    )


def _printable(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, control characters left out."""
    return "".join(c for c in text if c.isprintable())[:limit]


__all__ = ["MAX_JOIN_BODY", "JoinWeb", "routes"]
