"""The live table page's server: the page, its event stream, the touchscreen's input.

Served by uvicorn inside the table's own asyncio event loop (no thread, no second loop),
so the table, its devices and the page share one clock and one order of events. The
table calls ``publish(snapshot)`` after every change; every open page receives it over
Server-Sent Events. Each page has a mailbox of one snapshot, the newest winning, so a
slow or dead page (a tablet asleep, a kiosk on bad Wi-Fi) never holds up the table:
it simply skips to the latest picture when it catches up.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import json
import logging
import socket
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Generator
from importlib import resources
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

Refusal = tuple[str, str]  # (problem, what to do)
InputHandler = Callable[[dict[str, Any]], Awaitable[Refusal | None]]
EvidenceReader = Callable[[int, int], bytes | None]

HEARTBEAT = 15.0  # seconds between keep-alive comments on a quiet stream
RETRY_MS = 1000  # how soon a browser reconnects after the stream drops
MAX_INPUT_BYTES = 16_384

log = logging.getLogger(__name__)


class PageError(OSError):
    """The page could not be served (the port is taken, the address is wrong): says
    which address and what to do."""


class _Mailbox:
    """One open page's mailbox: holds only the newest snapshot not yet sent."""

    def __init__(self) -> None:
        self.pending: str | None = None
        self.closed = False
        self.ready = asyncio.Event()

    def offer(self, text: str) -> None:
        self.pending = text
        self.ready.set()

    def close(self) -> None:
        self.closed = True
        self.ready.set()


class _EmbeddedServer(uvicorn.Server):
    """uvicorn without its signal handlers: the table owns Ctrl-C and SIGTERM."""

    @contextlib.contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        yield


class TablePage:
    """The table page: ``app`` is the Starlette application, ``publish`` pushes a
    snapshot (``table.view.table_view``) to every open page.

    ``on_input`` receives a touch's payload (one of the snapshot's action events, plus
    the ``"seat"`` that touched it) and returns None when the table took it, or
    (problem, what to do) when it refused it. ``evidence(game, seq)`` returns the
    evidence image (PNG) logged with an event, or None.
    """

    def __init__(
        self,
        *,
        on_input: InputHandler | None = None,
        evidence: EvidenceReader | None = None,
        title: str = "Euchre table",
        heartbeat: float = HEARTBEAT,
    ) -> None:
        self._on_input = on_input
        self._evidence = evidence
        self._title = title
        self._heartbeat = heartbeat
        self._mailboxes: set[_Mailbox] = set()
        self._latest: str | None = None
        self._latest_snapshot: dict[str, Any] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: int | None = None
        self._server: _EmbeddedServer | None = None
        self._task: asyncio.Task[None] | None = None
        self.url: str | None = None
        static = resources.files("table_controller.web") / "static"
        self._page = (static / "page.html").read_text(encoding="utf-8")
        self.app = Starlette(
            routes=[
                Route("/", self._index, methods=["GET"]),
                Route("/events", self._events, methods=["GET"]),
                Route("/api/input", self._input, methods=["POST"]),
                Route("/evidence/{game:int}/{seq:int}.png", self._evidence_png, methods=["GET"]),
                Route("/health", self._health, methods=["GET"]),
                Mount("/static", app=StaticFiles(directory=str(static)), name="static"),
            ]
        )

    # --- the table's side -------------------------------------------------------------

    def publish(self, snapshot: dict[str, Any]) -> None:
        """Send ``snapshot`` to every open page; the same snapshot again sends nothing.
        Call it from the event loop's thread (from another thread it is handed over)."""
        loop = self._loop
        if loop is not None and threading.get_ident() != self._loop_thread:
            loop.call_soon_threadsafe(self._publish, snapshot)
            return
        self._publish(snapshot)

    def _publish(self, snapshot: dict[str, Any]) -> None:
        text = json.dumps(snapshot, ensure_ascii=False, separators=(",", ":"))
        if text == self._latest:
            return
        self._latest = text
        self._latest_snapshot = snapshot
        for mailbox in self._mailboxes:
            mailbox.offer(text)

    @property
    def pages(self) -> int:
        """How many pages are connected now."""
        return len(self._mailboxes)

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> str:
        """Serve in the running event loop; returns the page's URL (port 0: a free one)."""
        if self._task is not None:
            raise RuntimeError("the table page is already being served at " + str(self.url))
        try:
            family = socket.AF_INET6 if ":" in host else socket.AF_INET
            sock = socket.create_server((host, port), family=family)
        except OSError as exc:
            raise PageError(
                exc.errno,
                f"the table page cannot listen on {host}:{port} ({exc.strerror or exc}): "
                "another program may be using that port, or the address is not this "
                "machine's; set another port (or host) under [web] in the table's config, "
                "or stop the other program",
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
        server = _EmbeddedServer(config)
        self._loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()
        self._server = server
        self._task = asyncio.create_task(self._serve(server, sock), name="table-page")
        while not server.started:
            if self._task.done():
                self._task.result()  # raises what stopped it
                raise PageError(f"the table page stopped at once on {host}:{port}")
            await asyncio.sleep(0.01)
        shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
        shown = f"[{shown}]" if ":" in shown else shown
        self.url = f"http://{shown}:{bound}/"
        return self.url

    @staticmethod
    async def _serve(server: uvicorn.Server, sock: socket.socket) -> None:
        try:
            await server.serve(sockets=[sock])
        except SystemExit as exc:  # uvicorn exits on a failed start: not the table's exit
            raise PageError(f"the table page's server stopped ({exc.code})") from None
        finally:
            sock.close()

    async def stop(self) -> None:
        """Close every page's stream and stop serving (the pages then reconnect)."""
        for mailbox in list(self._mailboxes):
            mailbox.close()
        server, task = self._server, self._task
        self._server = self._task = None
        self.url = None
        if server is None or task is None:
            return
        server.should_exit = True
        try:
            await asyncio.wait_for(asyncio.shield(task), timeout=5)
        except TimeoutError:
            server.force_exit = True
            await task

    # --- routes -------------------------------------------------------------------

    async def _index(self, request: Request) -> Response:
        page = self._page.replace("{{title}}", html.escape(self._title))
        return HTMLResponse(page, headers={"Cache-Control": "no-cache"})

    async def _events(self, request: Request) -> Response:
        mailbox = _Mailbox()
        if self._latest is not None:
            mailbox.offer(self._latest)  # the newest picture first, on every (re)connect
        self._mailboxes.add(mailbox)
        return StreamingResponse(
            self._stream(mailbox),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )

    async def _stream(self, mailbox: _Mailbox) -> AsyncIterator[str]:
        try:
            yield f"retry: {RETRY_MS}\n\n"
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

    async def _input(self, request: Request) -> Response:
        body = await request.body()
        if len(body) > MAX_INPUT_BYTES:
            return _refused(413, "the input is too large", "send one action from the page")
        try:
            payload = json.loads(body)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            return _refused(
                400,
                f"the input is not JSON ({exc})",
                'send one of the page\'s actions, such as {"event": "passed", "seat": "N"}',
            )
        if not isinstance(payload, dict) or not isinstance(payload.get("event"), str):
            return _refused(
                400,
                'the input is not an action: it needs an "event" naming it',
                'send one of the page\'s actions, such as {"event": "passed", "seat": "N"}',
            )
        if self._on_input is None:
            return _refused(
                503,
                "this page only shows the table; it takes no input",
                "use the seat buttons, or ask the director",
            )
        try:
            refusal = await self._on_input(payload)
        except Exception as exc:
            log.exception("the table failed on the page's input %r", payload)
            return _refused(
                500,
                f"the table could not take that ({exc})",
                "try again; if it keeps failing, call the director",
            )
        if refusal is not None:
            problem, fix = refusal
            return _refused(409, problem, fix)
        return JSONResponse({"ok": True})

    async def _evidence_png(self, request: Request) -> Response:
        game, seq = request.path_params["game"], request.path_params["seq"]
        image = self._evidence(game, seq) if self._evidence is not None else None
        if image is None:
            return JSONResponse(
                {"ok": False, "problem": f"no evidence image for event {seq} of game {game}"},
                status_code=404,
            )
        return Response(image, media_type="image/png", headers={"Cache-Control": "max-age=86400"})

    async def _health(self, request: Request) -> Response:
        snap = self._latest_snapshot or {}
        faults = snap.get("faults", [])
        return JSONResponse(
            {
                "ok": not faults,
                "faults": faults,
                "version": snap.get("version"),
                "pages": len(self._mailboxes),
                "serving": self._server is not None,
            }
        )


def _refused(status: int, problem: str, fix: str) -> JSONResponse:
    return JSONResponse({"ok": False, "problem": problem, "fix": fix}, status_code=status)


__all__ = ["PageError", "Refusal", "TablePage"]
