"""The director's login on the web: the session cookie, the login and logout routes, and
the wrapper every feature's routes pass that lets only a logged-in director through.

One object, ``Login``, is built by the composition (web.py) over the store's accounts
(``store.accounts``) and handed to each feature's ``routes(login)``: a route wrapped in
``login(handler)`` answers a logged-in director only, ``login.who(request)`` names them
and ``login.form(request)`` reads a change's form once more checking the session.
Why one object: the cookie's name and flags, the brake on guessing (``logins.LoginThrottle``)
and the bound on hashes at once live in one place, and no feature sees the store's
accounts.

A session is a cookie (HttpOnly, SameSite=Strict, Secure over TLS) from ``/api/login``,
checked on each request off the event loop: in the worker thread a plain ``def`` handler
runs in, or in a worker thread before an ``async`` one. Logins are slowed after
failures, per name and address, with a short global slow-down; their hash runs in a
worker thread, at most ``HASHING`` at once, and every failure is in the audit log.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import math
from collections.abc import Awaitable, Callable
from typing import cast

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from table_controller.director.door import SafeJSON, read_json
from table_controller.director.json_value import JSONObject
from table_controller.director.logins import LoginThrottle
from table_controller.director.store import Accounts
from table_controller.web.guard import Refused

COOKIE = "tc_director"
THROTTLED = {  # which brake held a login back (logins.LoginThrottle), in words
    "pair": "for this name from this address",
    "address": "from this address",
    "name": "for this name from many addresses just now",
    "everywhere": "on this dashboard just now, from many addresses",
}
HASHING = 2  # logins hashed at once (Argon2id's memory each): more wait their turn
Handler = Callable[[Request], Awaitable[Response]]
Endpoint = Callable[[Request], Response]  # a plain def: Starlette runs it in a worker thread


class Login:
    """The directors' sessions over ``accounts``; ``throttle`` slows guessing (a new
    one by default); ``public_port()`` is the public view's own port, when it has one
    (``/api/me`` tells the page, which links to it)."""

    def __init__(
        self,
        accounts: Accounts,
        *,
        throttle: LoginThrottle | None = None,
        public_port: Callable[[], int | None] = lambda: None,
    ) -> None:
        self.accounts = accounts
        self.throttle = throttle if throttle is not None else LoginThrottle()
        self._public_port = public_port
        self._hashing: asyncio.Semaphore | None = None  # made in the serving loop

    def start(self) -> None:
        """The serving loop has begun: the bound on hashes at once is made in it."""
        self._hashing = asyncio.Semaphore(HASHING)

    def routes(self) -> list[BaseRoute]:
        """Who is logged in, logging in and out: open to anyone."""
        return [
            Route("/api/me", self._me),
            Route("/api/login", self._login, methods=["POST"]),
            Route("/api/logout", self._logout, methods=["POST"]),
        ]

    # --- the session of a request -----------------------------------------------------

    def who(self, request: Request) -> str | None:
        """The director whose session the request carries, or None. Reads the store:
        in a worker thread."""
        return self.accounts.session(request.cookies.get(COOKIE))

    def logged_in(self, request: Request) -> str:
        """The director whose session the request carries; else refused (401, no data).
        Reads the store: in a worker thread."""
        who = self.who(request)
        if who is None:
            raise Refused(
                401,
                "you are not logged in (or the session ended)",
                "log in with your director's name and password",
            )
        return who

    def __call__(self, handler: Handler | Endpoint) -> Handler | Endpoint:
        """``handler`` for a logged-in director only: anyone else gets 401 and no data.
        The session is checked off the event loop: in the thread a plain ``def``
        handler runs in, or in a worker thread before an ``async`` one."""
        if inspect.iscoroutinefunction(handler):
            serve = cast(Handler, handler)

            @functools.wraps(serve)
            async def checked(request: Request) -> Response:
                await run_in_threadpool(self.logged_in, request)
                return await serve(request)

            return checked
        endpoint = cast(Endpoint, handler)

        @functools.wraps(endpoint)
        def checked_in_thread(request: Request) -> Response:
            self.logged_in(request)
            return endpoint(request)

        return checked_in_thread

    async def form(self, request: Request) -> tuple[str, JSONObject]:
        """A logged-in director's form: (who, the JSON body); else refused."""
        who = await run_in_threadpool(self.who, request)
        if who is None:  # the session ended between the route's check and now
            raise Refused(401, "your session ended", "log in again")
        return who, await read_json(request)

    # --- the routes -------------------------------------------------------------------

    def _me(self, request: Request) -> Response:
        return SafeJSON({"director": self.who(request), "public_port": self._public_port()})

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
            token = await asyncio.to_thread(self.accounts.login, name, password, address=address)
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
            self.accounts.logout(token)
        resp = SafeJSON({"ok": True})
        resp.delete_cookie(
            COOKIE, httponly=True, samesite="strict", secure=request.url.scheme == "https"
        )
        return resp


__all__ = ["COOKIE", "Endpoint", "Handler", "Login"]
