"""Moving every table of the fleet to a new release, one table at a time, between games.

``table-controller director release WHEEL --folder DIR`` copies the wheel into
``DIR/releases/`` and asks the running director for a rollout (``rollout.json``); the
director's ``UpdateRunner`` takes it up and steps a ``Rollout``: for each approved table
in turn it waits until the table's heartbeat says no game is in progress, sends the
signed ``update`` order (fleet/orders.py) naming the wheel's address on the dashboard's
port (``GET /fleet/release/{file}``, no login: the order's sha256 is what the table
trusts) and waits for the table's heartbeat to report the new version. A table that
refuses, rolls back, or does not come back within ``limit`` stops the rollout: the
tables after it keep their version, and the words say which and what to do.

The order is the signed release record (fleet/update_order.py's ``ReleaseRecord``):
the version, the sha256 of the wheel (what the table trusts, the download being plain
HTTP), an expiry (``EXPIRES`` after it is made) and ``downgrade``. A release older than
the last one asked for, or than a table runs, is refused unless the person asked for a
rollback in so many words (``director release WHEEL --allow-downgrade``); the tables
refuse one too without it.

After a rollout is done the runner keeps reading the tables: a table that then runs
another version, or refuses an order this rollout never sent (a replayed or forged
one), is said in ``director release --status``, which never says "Every table runs"
of a table that does not.

Why a file and not a dashboard button to start it: the director's service is already
running (it holds the broker connection); the command asks it, as the dashboard would,
and ``director release --status`` reads the rollout's words from ``rollout-state.json``.
"""

from __future__ import annotations

import json
import logging
import re
import secrets
import shutil
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TypedDict

from packaging.version import InvalidVersion, Version
from starlette.requests import Request
from starlette.responses import FileResponse, PlainTextResponse, Response
from starlette.routing import Route

from table_controller.director.json_value import JSONValue
from table_controller.director.store import DirectorStore, FleetUpdates, TableRow
from table_controller.feed.messages import Topics
from table_controller.fleet import update
from table_controller.fleet.orders import UpdateOrder, sign_order
from table_controller.fleet.update_order import between_games, same_version

log = logging.getLogger(__name__)

RELEASES = "releases"
REQUEST = "rollout.json"
STATE = "rollout-state.json"
URL = "/fleet/release/{file}"
# A wheel's file name as pip writes it: no folder, nothing but these characters.
WHEEL_NAME = re.compile(r"table_controller-[A-Za-z0-9_.+!]+-py3-none-any\.whl")
LIMIT = 600.0  # from the order (or the table's last word) to its heartbeat with the version
RESEND = 120.0  # an order not answered at all is sent again (it is not retained)
EXPIRES = 600.0  # a signed release record may be taken this long after it is made

Publish = Callable[[str, bytes | str, bool], None]  # (topic, payload, retain)
Heartbeat = Callable[[str], TableRow | None]  # table id -> its latest status
# table id -> its latest word on an update (the store's FleetUpdates.latest), read
# through checks of each value
Progress = Callable[[str], Mapping[str, object] | None]


@dataclass(frozen=True)
class Release:
    """A wheel to roll out; ``downgrade``: the person asked for it though it is older
    than what runs (``--allow-downgrade``)."""

    file: str
    version: str
    sha256: str
    downgrade: bool = False

    @property
    def url(self) -> str:
        return URL.format(file=self.file)


def releases_folder(folder: Path) -> Path:
    return folder / RELEASES


def older(version: str, than: str) -> bool:
    """``version`` is older than ``than`` (False when either is no version number)."""
    try:
        return Version(version) < Version(than)
    except InvalidVersion:
        return False


def add_release(folder: Path, wheel: Path, *, now: float, allow_downgrade: bool = False) -> Release:
    """Copy ``wheel`` into the director's folder and ask for its rollout. One older than
    the release asked for last is refused, in words, unless ``allow_downgrade``."""
    if not wheel.is_file():
        raise update.UpdateRefused(f"{wheel} is not a file: give the path of the wheel")
    found = update.read_wheel(wheel)  # a table-controller wheel, its version readable
    if not WHEEL_NAME.fullmatch(wheel.name):
        raise update.UpdateRefused(
            f"{wheel.name} is not a pure-Python table-controller wheel "
            "(table_controller-VERSION-py3-none-any.whl): build it with "
            "`pip wheel --no-deps .` in the project's folder"
        )
    out = releases_folder(folder)
    last = update.read_json(out / REQUEST)
    last_version = str(last.get("version")) if last else None
    if last_version is not None and older(found.version, last_version) and not allow_downgrade:
        raise update.UpdateRefused(
            f"version {found.version} is older than version {last_version}, the last one "
            "sent to the tables: the director does not push an older version without "
            "being told. To take every table back to it on purpose, run the command again "
            "with --allow-downgrade (the tables then accept the older version)"
        )
    out.mkdir(parents=True, exist_ok=True)
    tmp = out / f".{wheel.name}.tmp"
    shutil.copyfile(wheel, tmp)
    tmp.replace(out / wheel.name)
    release = Release(
        wheel.name, found.version, update.sha256_of(out / wheel.name), allow_downgrade
    )
    update.write_json(out / REQUEST, {**asdict(release), "asked_at": now})
    return release


def routes(folder: Path) -> list[Route]:
    """``GET /fleet/release/{file}``: a wheel of ``DIR/releases``, by its exact name."""
    base = releases_folder(folder)

    async def wheel(request: Request) -> Response:
        name = str(request.path_params["file"])
        if not WHEEL_NAME.fullmatch(name):
            return PlainTextResponse("no such release", status_code=404)
        path = base / name
        if not path.is_file() or path.parent != base:
            return PlainTextResponse("no such release", status_code=404)
        return FileResponse(path, media_type="application/octet-stream")

    return [Route(URL, wheel, methods=["GET", "HEAD"])]


def update_progress(
    store: DirectorStore, table: str, body: Mapping[str, JSONValue], now: float
) -> None:
    """director/fleet/replies.py's ``"update"`` handler: keep the table's latest word."""
    if not FleetUpdates(store.core).add(table, body, now):
        log.info("fleet: an update message from %s was not one the director reads", table)


class StepState(TypedDict):
    """One table's part as ``rollout-state.json`` keeps it."""

    table: str
    name: str
    state: str
    words: str


class RolloutState(TypedDict):
    """A rollout as ``rollout-state.json`` keeps it (``Rollout.to_json``), read back by
    ``director release --status``: the release (``Release``'s fields), the rollout's
    state and words, and each table's."""

    release: dict[str, str | bool]
    state: str
    words: str
    tables: list[StepState]


@dataclass
class TableStep:
    """One table's part of a rollout."""

    table: str
    name: str
    state: str = "queued"  # queued, ordered, done, failed
    words: str = ""
    ids: list[str] = field(default_factory=list)
    ordered_at: float | None = None
    sends: int = 0


class Rollout:
    """One release to every table in ``tables`` ((id, name) in order), one at a time.
    ``step()`` does what is due now, by ``clock``; it never sleeps."""

    def __init__(
        self,
        release: Release,
        tables: Sequence[tuple[str, str]],
        *,
        send: Callable[[str, UpdateOrder], None],
        heartbeat: Heartbeat,
        progress: Progress,
        clock: Callable[[], float] = time.time,
        limit: float = LIMIT,
        resend: float = RESEND,
        new_id: Callable[[], str] = lambda: secrets.token_urlsafe(12),
    ) -> None:
        self.release = release
        self.steps = [TableStep(t, n) for t, n in tables]
        self._send = send
        self._heartbeat = heartbeat
        self._progress = progress
        self._clock = clock
        self.limit = limit
        self.resend = resend
        self._new_id = new_id
        self.state = "running"  # running, done, stopped
        self.words = f"Updating {len(self.steps)} tables to version {release.version}."

    def step(self) -> None:
        if self.state == "done":
            return self._after()
        if self.state != "running":
            return
        current = next((s for s in self.steps if s.state not in ("done",)), None)
        if current is None:
            self.state = "done"
            self._after()
            return
        self._step(current, self._clock())

    def _after(self) -> None:
        """The rollout is done: each table is still read, so the words never say "every
        table runs" of one that no longer does (a replayed order, a rollback by hand),
        and an order a table refused that this rollout never sent is said."""
        v = self.release.version
        off, refused = [], []
        for s in self.steps:
            beat = self._heartbeat(s.table)
            fleet = beat.get("fleet") if beat is not None else None
            runs = fleet.get("version") if isinstance(fleet, Mapping) else None
            said = self._progress(s.table) or {}
            words = []
            # Its own word that it runs this version is newer than a heartbeat's.
            ours = said.get("state") == "running" and said.get("id") in s.ids
            if runs is not None and not same_version(runs, v) and not ours:
                off.append(s.name)
                words.append(
                    f"{s.name} now runs version {runs}, not {v}: it changed after the "
                    "update (a rollback, or an order this update did not send); check it"
                )
            if said.get("state") == "refused" and said.get("id") not in s.ids:
                refused.append(s.name)
                words.append(
                    f"{s.name} refused an order this update did not send (a replayed or "
                    f"forged one?): {said.get('problem')}"
                )
            s.words = ". ".join(words) + "." if words else f"{s.name} runs version {v}."
        if off:
            self.words = (
                f"The update to version {v} was done, but {_names(off)} "
                f"{'runs' if len(off) == 1 else 'run'} another version now: see below."
            )
        elif refused:
            self.words = (
                f"Every table runs version {v}; {_names(refused)} refused an order: see below."
            )
        else:
            self.words = f"Every table runs version {v}."

    def _step(self, s: TableStep, now: float) -> None:
        v = self.release.version
        beat: Mapping[str, object] = self._heartbeat(s.table) or {}
        known = beat.get("fleet")
        fleet: Mapping[str, object] = known if isinstance(known, Mapping) else {}
        said = self._progress(s.table)
        said = said if said is not None and said.get("id") in s.ids else None
        running = beat.get("online") and same_version(fleet.get("version"), v)
        if running or (said is not None and said.get("state") == "running"):
            s.state, s.words = "done", f"{s.name} runs version {v}."
            return self.step()
        if said is not None and said.get("state") in ("refused", "rolled-back"):
            how = "refused" if said["state"] == "refused" else "tried and went back from"
            return self._fail(s, f"{s.name} {how} version {v}: {said.get('problem')}")
        if s.state == "queued":
            if not beat.get("online"):
                s.words = f"{s.name} is offline: the update waits for it to come back."
                return
            runs = fleet.get("version")
            if isinstance(runs, str) and older(v, runs) and not self.release.downgrade:
                return self._fail(
                    s,
                    f"{s.name} runs version {runs}, newer than {v}, and the director does "
                    "not take a table back to an older version without being told: to do "
                    "it on purpose, run `table-controller director release WHEEL "
                    "--allow-downgrade`",
                )
            if not between_games(beat):
                s.words = f"{s.name} is playing: the update waits for its game to end."
                return
            return self._order(s, now)
        # ordered: waiting for the table's word and its heartbeat with the version
        state = said.get("state") if said is not None else None
        if state == "waiting":
            s.words = f"{s.name} is playing: it updates when its game ends."
            return
        if state is not None:
            s.words = f"{s.name}: {_DOING.get(str(state), state)} version {v}."
        received = (said or {}).get("received")  # a number: the store's clock
        since = max(
            now if s.ordered_at is None else s.ordered_at,
            float(received) if isinstance(received, int | float) else 0.0,
        )
        if now - since > self.limit:
            return self._fail(
                s,
                f"{s.name} did not come back with version {v} within "
                f"{self.limit / 60:.0f} minutes of its last word: check it (is it on, "
                "on the network?); it goes back to its previous version by itself when "
                "the new one does not start",
            )
        # Not a word since the order (a command is not retained: a table that was
        # reconnecting missed it): asked again, a few times, while it is between games.
        due = s.ordered_at is not None and now - s.ordered_at >= self.resend * s.sends
        if said is None and due and beat.get("online") and between_games(beat) and s.sends < 4:
            self._order(s, now, again=True)

    def _order(self, s: TableStep, now: float, *, again: bool = False) -> None:
        oid = self._new_id()
        s.ids.append(oid)
        s.sends += 1
        if not again:
            s.ordered_at = now
        s.state = "ordered"
        s.words = f"{s.name}: asked to update to version {self.release.version}."
        order: UpdateOrder = {
            "kind": "update",
            "table": s.table,
            "id": oid,
            "at": now,
            "version": self.release.version,
            "url": self.release.url,
            "sha256": self.release.sha256,
            "expires": now + EXPIRES,
            "downgrade": self.release.downgrade,
        }
        self._send(s.table, order)

    def _fail(self, s: TableStep, why: str) -> None:
        s.state, s.words = "failed", why
        left = [t.name for t in self.steps if t.state == "queued"]
        one = len(left) == 1
        rest = (
            f" {_names(left)} {'was' if one else 'were'} not updated and "
            f"{'keeps its' if one else 'keep their'} version."
            if left
            else ""
        )
        why = why.rstrip(". ")
        self.state = "stopped"
        self.words = (
            f"The update to version {self.release.version} stopped at {s.name}: {why}.{rest} "
            "When it is fixed, run `table-controller director release WHEEL` again: tables "
            "already updated are skipped."
        )

    def to_json(self) -> RolloutState:
        return {
            "release": asdict(self.release),
            "state": self.state,
            "words": self.words,
            "tables": [
                {"table": s.table, "name": s.name, "state": s.state, "words": s.words}
                for s in self.steps
            ],
        }


_DOING = {
    "downloading": "downloading",
    "installing": "installing and testing",
    "restarting": "restarting into",
}


def _names(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


class UpdateRunner:
    """The director's side, in its process: takes up a rollout asked for in
    ``DIR/releases/rollout.json`` and steps it, writing its words to
    ``rollout-state.json``. ``publish`` is the director's MQTT publish."""

    def __init__(
        self,
        folder: Path,
        store: DirectorStore,
        *,
        prefix: str,
        private_pem: bytes,
        publish: Publish,
        clock: Callable[[], float] = time.time,
        limit: float = LIMIT,
        resend: float = RESEND,
    ) -> None:
        self.folder = releases_folder(folder)
        self.store = store
        self.topics = Topics(prefix)
        self._private = private_pem
        self._publish = publish
        self._clock = clock
        self._limit = limit
        self._resend = resend
        self.rollout: Rollout | None = None
        self._asked_at: float | None = None
        self._updates = FleetUpdates(store.core)

    def step(self) -> None:
        asked = update.read_json(self.folder / REQUEST)
        if asked is not None and asked.get("asked_at") != self._asked_at:
            self._asked_at = asked.get("asked_at")
            release = Release(
                str(asked["file"]), str(asked["version"]), str(asked["sha256"]),
                asked.get("downgrade") is True,
            )  # fmt: skip
            self.rollout = Rollout(
                release,
                self.tables(),
                send=self.send,
                heartbeat=self.heartbeat,
                progress=self._updates.latest,
                clock=self._clock,
                limit=self._limit,
                resend=self._resend,
            )
            log.info("fleet: updating every table to version %s", release.version)
        if self.rollout is None:
            return
        before = self.rollout.to_json()
        self.rollout.step()
        now = self.rollout.to_json()
        if now != before or not (self.folder / STATE).exists():
            if now["words"] != before["words"]:
                log.info("fleet: %s", now["words"])
            update.write_json(self.folder / STATE, now)

    def run(self, stop: threading.Event, every: float = 1.0) -> None:
        while not stop.is_set():
            try:
                self.step()
            except Exception:
                log.exception("fleet: the update's step failed")
            stop.wait(every)

    def tables(self) -> list[tuple[str, str]]:
        """The approved tables (by name: "Table 2" before "Table 10"), else every table
        that reported."""
        from table_controller.director.words import title_order

        rows = [
            (str(t["id"]), str(t.get("name") or t["id"])) for t in self.store.fleet.fleet_tables()
        ]
        return sorted(rows, key=lambda r: title_order(r[1]))

    def heartbeat(self, table: str) -> TableRow | None:
        return next((t for t in self.store.tables.tables() if t["table"] == table), None)

    def send(self, table: str, order: UpdateOrder) -> None:
        signed = sign_order(order, self._private)
        self._publish(self.topics.commands(table), json.dumps(signed), False)


def serve_updates(
    folder: Path,
    store: DirectorStore,
    *,
    prefix: str,
    private_pem: bytes,
    publish: Publish,
    stop: threading.Event,
) -> list[Route]:
    """The director's whole side, for ``director start``: the runner stepping in a
    thread of its own until ``stop``, and the routes the dashboard serves the wheels on
    (no login: add them to ``DirectorPage``'s)."""
    runner = UpdateRunner(folder, store, prefix=prefix, private_pem=private_pem, publish=publish)
    threading.Thread(target=runner.run, args=(stop,), name="fleet-updates", daemon=True).start()
    return routes(folder)


def status_words(folder: Path) -> str:
    """The rollout's state as ``director release --status`` prints it."""
    state = update.read_json(releases_folder(folder) / STATE)
    asked = update.read_json(releases_folder(folder) / REQUEST)
    if state is None:
        if asked is not None:
            return (
                f"Version {asked.get('version')} is waiting for the director to take it up: "
                "is `table-controller director start` running with this folder?"
            )
        return "No update has been asked for: `table-controller director release WHEEL`."
    lines = [str(state.get("words"))]
    for t in state.get("tables") or []:
        lines.append(f"  {t.get('name')}: {t.get('words') or t.get('state')}")
    return "\n".join(lines)


__all__ = [
    "Release",
    "Rollout",
    "UpdateRunner",
    "add_release",
    "routes",
    "serve_updates",
    "status_words",
    "update_progress",
]
