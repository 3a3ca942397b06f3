"""The page a joining table shows on its web port: the join code in digits readable
across a room, the event it joins, the director's key and how the join is going.

The table's own page cannot run yet (it needs the config the join brings), so this
small page takes its port meanwhile, served by uvicorn in an event loop on a thread of
its own: the join itself runs on the caller's thread. The director's key fingerprint and
the request's check are always shown with the code (never hidden: a person compares
them with the director's screen); a director refused for having no key is said in the
words. Each change reaches the open
pages at once over Server-Sent Events; a page opened later gets the latest picture.
"""

from __future__ import annotations

import asyncio
import html
import json
import logging
import threading
from importlib import resources
from typing import TypedDict, Unpack

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from table_controller.errors import TableControllerError
from table_controller.favicon import icon_routes
from table_controller.web.guard import secure_headers
from table_controller.web.server import tls_options
from table_controller.web.stream import Broadcast, listen, start_server, stop_server

log = logging.getLogger(__name__)

HEARTBEAT = 15.0
RETRY_MS = 1000
LOOKING = "Looking for the director"
FILES = {"join.css": "text/css", "join.js": "text/javascript"}


class JoinState(TypedDict):
    """What the join page shows; its script reads the same keys, sent as JSON."""

    event: str | None  # the event joined (None: no director found yet)
    code: str | None  # the join code's digits
    key: str | None  # the director's key fingerprint
    check: str | None  # the digits the director's Fleet page shows beside the request
    words: str  # how the join is going


class JoinChange(TypedDict, total=False):
    """Some of ``JoinState``'s keys, changed (``JoinPage.update``)."""

    event: str | None
    code: str | None
    key: str | None
    check: str | None
    words: str


class JoinPageError(TableControllerError, OSError):
    """The page could not be served: says where and what to do."""


def _static(name: str) -> str:
    return (resources.files("table_controller.web") / "static" / name).read_text("utf-8")


class JoinPage:
    """Serves the join page on ``host:port`` (port 0: a free one) until ``close()``;
    over HTTPS with ``tls_cert`` and ``tls_key``, as the table's page will be on the
    same port (table/page/tls.py): a phone that accepted the table's certificate for
    the join page is not asked again once the table plays."""

    def __init__(
        self, host: str, port: int, *, tls_cert: str | None = None, tls_key: str | None = None
    ) -> None:
        self.state: JoinState = {
            "event": None,
            "code": None,
            "key": None,
            "check": None,
            "words": "",
        }
        self._pages = Broadcast(HEARTBEAT, RETRY_MS)
        self._template = _static("join.html")
        self._files = {name: _static(name) for name in FILES}
        app = Starlette(
            routes=[
                Route("/", self._index, methods=["GET"]),
                Route("/join/events", self._events, methods=["GET"]),
                Route("/join/{name}", self._file, methods=["GET"]),
                *icon_routes(),
            ]
        )
        try:
            sock = listen(host, port)
        except OSError as exc:
            raise JoinPageError(
                f"the join page cannot listen on {host}:{port} ({exc.strerror or exc}): "
                "another program may be using that port (the table's own service: "
                "`sudo systemctl stop table-controller`), or set another port under [web] "
                "in the table's config"
            ) from exc
        bound = sock.getsockname()
        shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
        self.url = f"{'https' if tls_cert else 'http'}://{shown}:{bound[1]}/"
        config = uvicorn.Config(
            secure_headers(app),
            lifespan="off",
            ws="none",
            log_level="warning",
            access_log=False,
            timeout_graceful_shutdown=1,
            **tls_options(tls_cert, tls_key),
        )
        self._loop = asyncio.new_event_loop()
        self._server: uvicorn.Server | None = None
        self._task: asyncio.Task[None] | None = None
        started = threading.Event()
        failure: list[BaseException] = []

        async def serve() -> None:
            def failed(why: str) -> JoinPageError:
                return JoinPageError(f"the join page stopped on {host}:{port}: {why}")

            try:
                self._server, self._task = await start_server(config, sock, "join-page", failed)
            except BaseException as exc:
                failure.append(exc)
                raise
            finally:
                started.set()

        self._thread = threading.Thread(target=self._loop.run_forever, name="join-page")
        self._thread.daemon = True
        self._thread.start()
        asyncio.run_coroutine_threadsafe(serve(), self._loop)
        started.wait(60)  # only against a hang
        if failure:
            self._stop_loop()
            raise failure[0]
        self._publish()

    def update(self, **fields: Unpack[JoinChange]) -> None:
        """Change what the page shows (``event``, ``code``, ``key``, ``check``,
        ``words``); any thread."""
        self.state = {**self.state, **fields}
        self._loop.call_soon_threadsafe(self._publish)

    def close(self) -> None:
        if self._loop.is_closed():
            return
        future = asyncio.run_coroutine_threadsafe(self._stop(), self._loop)
        try:
            future.result(timeout=30)
        except Exception as exc:  # stopping must not hide why the join ended
            log.warning("the join page did not stop cleanly: %s", exc)
        self._stop_loop()

    async def _stop(self) -> None:
        self._pages.close_all()
        if self._server is not None and self._task is not None:
            await stop_server(self._server, self._task)

    def _stop_loop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()

    def _publish(self) -> None:
        self._pages.publish(json.dumps(self.state, ensure_ascii=False))

    # --- routes -----------------------------------------------------------------------

    async def _index(self, request: Request) -> Response:
        page = render(self._template, self.state)
        return HTMLResponse(page, headers={"Cache-Control": "no-cache"})

    async def _events(self, request: Request) -> Response:
        return self._pages.response()

    async def _file(self, request: Request) -> Response:
        name = request.path_params["name"]
        if name not in FILES:
            return Response("no such file here", status_code=404, media_type="text/plain")
        return Response(self._files[name], media_type=FILES[name])


def heading(state: JoinState) -> str:
    event = state.get("event")
    return f"Joining {event}" if event else LOOKING


def render(template: str, state: JoinState) -> str:
    """The page as it stands now, so it reads right before its script runs."""
    code = state.get("code") or ""
    digits = "".join(f"<span>{html.escape(d)}</span>" for d in code)
    return (
        template.replace("{{heading}}", html.escape(heading(state)))
        .replace("{{digits}}", digits)
        .replace("{{code_hidden}}", "" if code else " hidden")
        .replace("{{key}}", html.escape(state.get("key") or ""))
        .replace("{{check}}", html.escape(state.get("check") or ""))
        .replace("{{key_hidden}}", "" if code else " hidden")
        .replace("{{words}}", html.escape(state.get("words") or ""))
    )


__all__ = ["JoinChange", "JoinPage", "JoinPageError", "JoinState", "heading", "render"]
