"""The table's side of an update: the director's signed order taken, held until no game
is in progress, the wheel fetched from the director, checked and installed beside the
running release, then the switch and a restart into it. Each step is told to the
director on ``fleet(table, "update")`` in words.

Why a thread of its own (``run``) and not the feed's: a download and a pip install take
seconds to minutes, and the feed must keep sending heartbeats meanwhile (the director
reads them to know the table is alive and between games). Nothing here touches the game:
the switch waits for the end of the game, and the restart resumes from the event log.

After the restart, ``connected()`` (the feed is up and has sent its heartbeat) confirms
the new release; if that does not happen within ``confirm_within``, the table restarts
again and the unit's check before start goes back to the previous release (update.boot).

The order is a signed release record (fleet/update_order.py's ``ReleaseRecord``:
version, sha256, expiry, and whether the director signed a rollback to an older
version). Its id is written to disk (update.TakenOrders) before anything is done, so a
copy replayed after the restart that ends the update is refused; an expired record, one
signed by any key other than that of the director this table joined, or one older than
the running version without a signed rollback is refused, in words, before anything is
fetched. The wheel comes over plain
HTTP: the sha256 in the signed record is what is trusted, checked before it is read.
"""

from __future__ import annotations

import logging
import os
import ssl
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TypedDict

from packaging.utils import InvalidWheelFilename, parse_wheel_filename

from table_controller.fleet import update
from table_controller.fleet.update import Releases, UpdateRefused
from table_controller.fleet.update_order import (
    ReleaseRecord,
    UpdateProgress,
    between_games,
    same_version,
)

log = logging.getLogger(__name__)

MAX_WHEEL_BYTES = 100 * 1024 * 1024  # this project's wheel is a few MB
DOWNLOAD_SECONDS = 60.0  # per read: a director that stops answering
CONFIRM_WITHIN = 300.0  # a new release that has not reached the director by then goes back
WAITING_AGAIN = 60.0  # a table waiting for its game's end says so again this often


def download(url: str, folder: Path, *, limit: int = MAX_WHEEL_BYTES,
             timeout: float = DOWNLOAD_SECONDS,
             context: ssl.SSLContext | None = None) -> Path:  # fmt: skip
    """The wheel at ``url`` saved in ``folder`` under its own (checked) file name;
    ``context``: the TLS an https address is checked with (the event's CA)."""
    parts = urllib.parse.urlsplit(url)
    name = Path(urllib.parse.unquote(parts.path)).name
    if parts.scheme not in ("http", "https"):
        raise UpdateRefused(f"the update's address {url!r} is not http: update the director")
    try:
        parse_wheel_filename(name)
    except InvalidWheelFilename as e:
        raise UpdateRefused(f"the update's address does not name a wheel ({name!r})") from e
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    partial = folder / f"{name}.partial"
    got = 0
    try:
        with (
            urllib.request.urlopen(url, timeout=timeout, context=context) as answer,
            partial.open("wb") as out,
        ):
            size = answer.headers.get("Content-Length")
            if size is not None and size.isdigit() and int(size) > limit:
                raise UpdateRefused(_too_big(name, int(size), limit))
            while block := answer.read(1 << 16):
                got += len(block)
                if got > limit:
                    raise UpdateRefused(_too_big(name, got, limit))
                out.write(block)
            if size is not None and size.isdigit() and got != int(size):
                raise UpdateRefused(_cut_short(name, got, int(size)))
    except UpdateRefused:
        partial.unlink(missing_ok=True)
        raise
    except (OSError, urllib.error.URLError, ValueError) as e:  # timeouts are OSErrors
        partial.unlink(missing_ok=True)
        raise UpdateRefused(
            f"the release could not be fetched from the director ({e}) after {got} bytes: "
            "the table keeps its version; check the network and run the update again"
        ) from e
    os.replace(partial, path)
    return path


def _too_big(name: str, size: int, limit: int) -> str:
    return (
        f"{name} is {size // 1_000_000} MB or more, over the {limit // 1_000_000} MB a "
        "release may be: the table keeps its version; check the wheel given to the director"
    )


def _cut_short(name: str, got: int, size: int) -> str:
    return (
        f"{name} was cut short ({got} of {size} bytes): the table keeps its version; "
        "check the network and run the update again"
    )


def restart_now(grace: float = 1.0) -> None:
    """Leave with the status the unit restarts on (the event log is on disk), after
    ``grace`` seconds for the feed's thread to send the last progress message."""
    time.sleep(grace)
    logging.shutdown()
    os._exit(update.RESTART_STATUS)


class AgentOptions(TypedDict, total=False):
    """The agent's own settings a caller may give by name (``attach``,
    ``FleetRunUpdates``): how it restarts, its clock, how it fetches and installs, and
    how long a new release has to reach the director."""

    restart: Callable[[], None]
    clock: Callable[[], float]
    fetch: Callable[[str, Path], Path]
    extras: Iterable[str] | None
    installed: update.Installed
    run: update.Runner
    confirm_within: float


class UpdateAgent:
    """One table's updates. ``take`` (any thread) an order already verified
    (fleet/orders.py), or ``on_order`` one to verify with ``director_key``;
    ``connected`` when the feed is up and its heartbeat sent (or ``is_connected``,
    asked at each step);
    ``step`` (or ``run`` in a thread) does the work. ``status`` gives the table's
    ``TableCore.status()``; ``send`` publishes on ``fleet(table, "update")``."""

    def __init__(
        self,
        releases: Releases,
        *,
        table: str,
        running: str,
        base_url: str,
        send: Callable[[UpdateProgress], None],
        status: Callable[[], Mapping[str, object]],
        restart: Callable[[], None] = restart_now,
        clock: Callable[[], float] = time.time,
        fetch: Callable[[str, Path], Path] = download,
        extras: Iterable[str] | None = None,
        installed: update.Installed = update.installed_version,
        run: update.Runner = update.run_process,
        confirm_within: float = CONFIRM_WITHIN,
        director_key: bytes | None = None,
        is_connected: Callable[[], bool] | None = None,
    ) -> None:
        self.releases = releases
        self.table = table
        self.running = running
        self.base_url = base_url.rstrip("/")
        self._send = send
        self._status = status
        self._restart = restart
        self._clock = clock
        self._fetch = fetch
        self._extras = None if extras is None else tuple(extras)
        self._installed = installed
        self._run = run
        self._confirm_within = confirm_within
        self._director_key = director_key
        self._is_connected = is_connected
        self._seen: list[str] = []
        self._lock = threading.Lock()
        self._order: dict[str, object] | None = None
        self._ready: str | None = None  # a version installed and tested, not yet switched to
        self._waiting_told: tuple[str, float] | None = None  # (order id, when)
        self._connected = False
        pending = update.read_json(releases.root / update.PENDING)
        self._unconfirmed_since = (
            clock() if pending and same_version(pending.get("version"), running) else None
        )

    # --- from the feed (any thread) -----------------------------------------------------

    def on_order(self, topic_kind: str, payload: Mapping[str, object]) -> None:
        """An order from the feed, unverified (Publisher's ``on_order``): an ``update``
        command signed by the director's key for this table is taken; anything else is
        another part's. Its id is kept on disk before anything is done."""
        from table_controller.fleet import orders

        if topic_kind != orders.COMMANDS or payload.get("kind") != "update":
            return
        if self._director_key is None:
            return
        now = self._clock()
        taken = update.TakenOrders(self.releases.root)
        try:
            order = orders.verify_order(
                payload, self._director_key, table=self.table, kind=orders.COMMANDS,
                now=now, seen=taken.ids() | set(self._seen),
            )  # fmt: skip
            record = ReleaseRecord.of(order, now=now)
            taken.add(record.id, record.expires, now=now)
        except (orders.OrderRejected, UpdateRefused) as e:
            log.warning("update: an order was refused: %s", e)
            self._tell(payload, "refused", str(e))
            return
        except OSError as e:
            log.warning("update: an order could not be recorded: %s", e)
            self._tell(
                payload, "refused",
                f"this table cannot write {taken.path} ({e.strerror or e}), where it keeps "
                "the orders it took so that none is taken twice: the table keeps its "
                "version; check its disk (`df -h`, the folder's owner), then run the "
                "update again",
            )  # fmt: skip
            return
        self._seen = [*self._seen, str(order["id"])][-50:]
        self.take(order)

    def take(self, order: Mapping[str, object]) -> None:
        """A verified ``update`` order: done now if no game is in progress, else held.
        One older than the running version is refused unless the director signed a
        rollback (``downgrade``)."""
        version = str(order.get("version"))
        if same_version(version, self.running):
            self._tell(order, "running", None)
            return
        try:
            update.check_not_older(version, self.running, downgrade=order.get("downgrade") is True)
        except UpdateRefused as e:
            log.warning("update: an order was refused: %s", e)
            self._tell(order, "refused", str(e))
            return
        with self._lock:
            self._order = dict(order)

    def connected(self) -> None:
        """The feed connected and sent its heartbeat: a pending update is confirmed."""
        with self._lock:
            self._connected = True

    # --- the work (the agent's thread) --------------------------------------------------

    def step(self) -> None:
        with self._lock:
            order, connected = self._order, self._connected
            self._connected = False
        if connected or (self._is_connected is not None and self._is_connected()):
            self._confirm()
        since = self._unconfirmed_since
        if since is not None and self._clock() - since > self._confirm_within:
            log.warning("update: version %s never reached the director; restarting "
                        "to go back to the previous release", self.running)  # fmt: skip
            self._unconfirmed_since = None
            self._restart()
            return
        if order is not None:
            self._work(order)

    def run(self, stop: threading.Event, every: float = 1.0) -> None:
        while not stop.is_set():
            try:
                self.step()
            except Exception:  # the table plays on without its updates
                log.exception("update: the update step failed")
            stop.wait(every)

    def _confirm(self) -> None:
        pending = update.confirm(self.releases, self.running, now=self._clock())
        if pending is not None:
            self._unconfirmed_since = None
            self._tell({"id": pending.get("order"), "version": self.running}, "running", None)
        last = update.read_json(self.releases.root / update.LAST)
        if last and last.get("state") == "rolled-back" and not last.get("told"):
            self._tell(
                {"id": last.get("order"), "version": last.get("version")},
                "rolled-back",
                str(last.get("problem")),
            )
            update.write_json(self.releases.root / update.LAST, {**last, "told": True})

    def _work(self, order: dict[str, object]) -> None:
        version = str(order.get("version"))
        if not between_games(self._status()):
            told, now = self._waiting_told, self._clock()
            # Said again now and then: a word sent while the feed was down is dropped.
            if told is None or told[0] != order.get("id") or now - told[1] >= WAITING_AGAIN:
                self._waiting_told = (str(order.get("id")), now)
                self._tell(order, "waiting", None)
            return
        wheel: Path | None = None
        try:
            if self._ready != version:
                self._tell(order, "downloading", None)
                url = urllib.parse.urljoin(self.base_url + "/", str(order.get("url")))
                wheel = self._fetch(url, self.releases.root / "downloads")
                self._tell(order, "installing", None)
                # The sha256 checked is the signed record's, whatever the transport.
                update.prepare(
                    self.releases, wheel, sha256=str(order.get("sha256")),
                    extras=self._extras, installed=self._installed, run=self._run,
                )  # fmt: skip
                wheel.unlink(missing_ok=True)
                self._ready = version
            if not between_games(self._status()):  # a game began while it installed
                return
            self.releases.prune()
            update.switch_for_restart(
                self.releases, version, order=str(order.get("id")), now=self._clock()
            )
        except UpdateRefused as e:
            if wheel is not None:  # a refused release leaves nothing behind
                wheel.unlink(missing_ok=True)
            with self._lock:
                if self._order is order:
                    self._order = None
            self._tell(order, "refused", str(e))
            return
        with self._lock:
            self._order = None
        self._tell(order, "restarting", None)
        self._restart()

    def _tell(self, order: Mapping[str, object], state: str, problem: str | None) -> None:
        log.info("update to %s: %s%s", order.get("version"), state,
                 f" ({problem})" if problem else "")  # fmt: skip
        self._send(
            {
                "table": self.table,
                "id": order.get("id"),
                "version": order.get("version"),
                "running": self.running,
                "state": state,
                "problem": problem,
                "at": self._clock(),
            }
        )


__all__ = ["AgentOptions", "UpdateAgent", "download", "restart_now"]
