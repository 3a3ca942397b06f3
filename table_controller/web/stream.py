"""One streaming-page server for the table page, the kiosk and the director's dashboard:
the newest snapshot pushed to every open page over Server-Sent Events, and uvicorn run
inside the caller's own event loop.

The table page (web/server.py) and the dashboard (director/web.py) each had their own
copy of this, nine runs of the same code that had begun to differ (one closed a page's
stream on stop, the other only flagged it). Each open page has a mailbox of one
snapshot, the newest winning, so a slow or dead page (a tablet asleep, a kiosk on bad
Wi-Fi) never holds up the table or the director: it skips to the latest picture when it
catches up.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator, Awaitable, Callable, Generator

import uvicorn
from starlette.responses import StreamingResponse

# A snapshot as JSON text, or what makes it when a page needs it whole.
Snapshot = str | Callable[[], str]

STREAM_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


class Mailbox:
    """One open page's mailbox: holds only the newest text not yet sent."""

    def __init__(self) -> None:
        self.pending: Snapshot | None = None
        self.closed = False
        self.ready = asyncio.Event()
        self._started = False  # offered a snapshot: the page has a base for a change

    def offer(self, text: Snapshot, change: str | None = None) -> None:
        """The newest snapshot ``text``; ``change``: the same as a change from the one
        offered before, sent instead when the page has that one and nothing is waiting
        (else the page would miss a change: it gets ``text`` whole)."""
        if change is not None and self._started and self.pending is None:
            self.pending = change
        else:
            self.pending = text
        self._started = True
        self.ready.set()

    def close(self) -> None:
        self.closed = True
        self.ready.set()


class Broadcast:
    """The newest snapshot (as JSON text) and every open page's mailbox.

    ``heartbeat`` seconds without news send a comment line, so a proxy or a browser
    keeps the stream open (and ``still_open``, if given, is asked then whether the page
    may go on receiving: the dashboard ends the stream of a session that has ended);
    ``retry_ms`` is how soon a page reconnects after the stream drops."""

    def __init__(self, heartbeat: float, retry_ms: int) -> None:
        self.heartbeat = heartbeat
        self.retry_ms = retry_ms
        self._latest: Snapshot | None = None
        self._mailboxes: set[Mailbox] = set()

    @property
    def pages(self) -> int:
        """How many pages are connected now."""
        return len(self._mailboxes)

    @property
    def latest(self) -> str | None:
        """The newest snapshot's text (made now, when it was published as a maker)."""
        latest = self._latest
        return latest() if callable(latest) else latest

    def publish(self, text: Snapshot, change: str | None = None) -> bool:
        """Offer ``text`` to every open page; False (and nothing sent) if it is the same
        as the last. ``change``: the same snapshot as a change from the last one
        published, sent to each page that has that one (``Mailbox.offer``); ``text``
        may then be what makes the whole snapshot, called only for a page that needs
        it (one that connects, or fell behind). Call it from the event loop's thread."""
        if isinstance(text, str) and text == self._latest:
            return False
        self._latest = text
        for mailbox in self._mailboxes:
            mailbox.offer(text, change)
        return True

    def response(
        self, still_open: Callable[[], Awaitable[bool]] | None = None
    ) -> StreamingResponse:
        """A page's stream: the newest snapshot first, on every (re)connect, then each
        newer one."""
        mailbox = Mailbox()
        if self._latest is not None:
            mailbox.offer(self._latest)
        self._mailboxes.add(mailbox)
        return StreamingResponse(
            self._stream(mailbox, still_open),
            media_type="text/event-stream",
            headers=STREAM_HEADERS,
        )

    async def _stream(
        self, mailbox: Mailbox, still_open: Callable[[], Awaitable[bool]] | None
    ) -> AsyncIterator[str]:
        try:
            yield f"retry: {self.retry_ms}\n\n"
            while not mailbox.closed:
                try:
                    await asyncio.wait_for(mailbox.ready.wait(), timeout=self.heartbeat)
                except TimeoutError:
                    if still_open is not None and not await still_open():
                        return
                    yield ": heartbeat\n\n"
                    continue
                mailbox.ready.clear()
                pending, mailbox.pending = mailbox.pending, None
                text = pending() if callable(pending) else pending
                if text is not None and not mailbox.closed:
                    yield f"data: {text}\n\n"
        finally:
            self._mailboxes.discard(mailbox)

    def close_all(self) -> None:
        """End every page's stream (the pages then reconnect)."""
        for mailbox in list(self._mailboxes):
            mailbox.close()


class EmbeddedServer(uvicorn.Server):
    """uvicorn without its signal handlers: the command that runs it owns Ctrl-C and
    SIGTERM."""

    @contextlib.contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        yield


def listen(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (port 0: a free one); OSError as it comes."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    return socket.create_server((host, port), family=family)


async def start_server(
    config: uvicorn.Config,
    sock: socket.socket,
    name: str,
    failed: Callable[[str], Exception],
) -> tuple[EmbeddedServer, asyncio.Task[None]]:
    """Serve ``config``'s app on ``sock`` in the running loop, once it has started.
    ``failed(why)`` is the error to raise when it stops at once."""
    server = EmbeddedServer(config)
    task = asyncio.create_task(_serve(server, sock, failed), name=name)
    while not server.started:
        if task.done():
            task.result()  # raises what stopped it
            raise failed("it stopped at once")
        await asyncio.sleep(0.01)
    return server, task


async def _serve(
    server: uvicorn.Server, sock: socket.socket, failed: Callable[[str], Exception]
) -> None:
    try:
        await server.serve(sockets=[sock])
    except SystemExit as exc:  # uvicorn exits on a failed start: not the caller's exit
        raise failed(f"its server stopped ({exc.code})") from None
    finally:
        sock.close()


async def stop_server(server: uvicorn.Server, task: asyncio.Task[None]) -> None:
    """Stop serving: a graceful stop, forced after 5 s."""
    server.should_exit = True
    try:
        await asyncio.wait_for(asyncio.shield(task), timeout=5)
    except TimeoutError:
        server.force_exit = True
        await task


__all__ = [
    "Broadcast",
    "EmbeddedServer",
    "Mailbox",
    "listen",
    "start_server",
    "stop_server",
]
