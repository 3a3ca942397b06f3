"""The tables the director has heard from: each table's latest status (online, game,
hand, scores, players, faults, its rules), the history of its statuses, and its
going offline (a last will, or heartbeats that stopped).

Why a part of its own: a status is not an event of the game; it is the table's
picture of itself, replaced by the next one, and it is what the dashboard's overview,
the rulings (which game and hand a table is at) and the alerts about a table's health
read. Hearing from a table (any message) is recorded here too, once per table per
batch.
"""

from __future__ import annotations

import json
import math
from collections.abc import Collection
from typing import NamedTuple, TypedDict

from table_controller.director.json_value import JSONObject, JSONValue
from table_controller.director.store.alerts import Alerts, Fault
from table_controller.director.store.core import StoreCore, finite
from table_controller.director.store.db import Database, StoreError
from table_controller.feed.limits import Limits
from table_controller.seats import Seat

MAX_EVERY = 3600.0  # the longest heartbeat interval a status may give (seconds)
CLOCK_SAMPLES = 5  # the heartbeats a table's clock offset is taken over
CLOCK_RAISE_AFTER = 3  # the samples, all over the limit, before a clock alert
# The status history kept per table is bounded by rows and bytes (its oldest dropped
# beyond either; the director's limits history_statuses and history_mb, limits.py: by
# default an hour of heartbeats every 2 s, and the bytes of that many statuses of a few
# KB). What the dashboard reads is the latest status, kept apart (``tables.status``); the
# history is for looking back, and without a bound a table could fill the director's disk.
_PRUNE = 200  # rows dropped at a time past the bound (not one a status)


class StatusMessage(TypedDict, total=False):
    """A table's status as it comes off the wire (docs/feed.md, "status"): a heartbeat,
    or the last will (``table``, ``online: false``, ``at``). Nothing in it is trusted:
    the store checks each value it uses; older tables send fewer keys. The store's own
    ``clock_samples``, ``clock_offset`` and ``clock_at`` are kept beside them.

    Why not the feed's ``StatusMessage`` and ``OfflineMessage`` (feed/messages.py),
    which a table builds: those say what a table of this release sends, two shapes with
    every key typed; this one is both read as one input, any key missing and any value
    unchecked until the store has looked at it, plus what the director keeps with it."""

    v: int
    table: str
    name: str
    online: bool
    at: float
    every: float
    game: int
    hand: int | None
    phase: str
    scores: list[int]
    players: dict[str, str]
    faults: list[Fault]
    backlog: int
    unconfirmed: int
    across: list[JSONObject]
    fleet: JSONObject
    rules: JSONObject
    order: JSONValue
    sig: str
    clock_samples: list[list[float]]
    clock_offset: float | None
    clock_at: float | None


class TableRow(TypedDict):
    """A table with its latest status, as the dashboard, the rulings, the hall screen
    and the fleet page read it (``table_row``, ``tables()``)."""

    table: str
    online: bool
    status_at: float | None
    every: float | None
    game: int | None
    hand: int | None
    phase: str | None
    scores: list[int] | None
    players: dict[str, str]
    faults: list[Fault]
    backlog: int | None
    # seconds the table's clock is ahead (+) of the director's, or None
    clock_offset: float | None
    # as the table's config writes it, if sent (a person reads it)
    name: str | None
    # the fleet view's: events the director has not confirmed, the table's machine
    unconfirmed: int | None
    fleet: JSONObject | None
    # the cards its camera sees across a zone's line (table/across_line.py)
    across: list[JSONObject]


class StatusRow(TypedDict):
    """One status of a table's history (``status_history``)."""

    at: float
    online: bool
    status: StatusMessage


def clock_offset(samples: list[list[float]]) -> float | None:
    """The table's clock offset (seconds, + ahead) from its last few samples
    (``[received, offset]``): the offset of smallest magnitude.

    Each offset is the heartbeat's ``at`` (the table's clock) minus the director's clock
    when it arrived. The network's delay (milliseconds on a hall's LAN) is small against
    the seconds that matter (``CLOCK_LIMIT``), but a message the broker held (a
    reconnect, a busy writer) arrives late and looks seconds *behind*. Smallest
    magnitude rather than the median: a late message never raises an alert while one
    sample is on time, and a clock put right (`timedatectl set-ntp true` steps it)
    closes the alert at its first heartbeat, where a median would wait for half the
    samples. A clock truly off is off in every sample, so it is still seen."""
    if not samples:
        return None
    return min((s[1] for s in samples), key=abs)


def _samples(value: object) -> list[list[float]]:
    """The samples kept in a stored status, any that cannot be read left out."""
    out = []
    for s in value if isinstance(value, list) else []:
        if (
            isinstance(s, list)
            and len(s) == 2
            and all(type(x) in (int, float) and math.isfinite(x) for x in s)
        ):
            out.append([float(s[0]), float(s[1])])
    return out


class RawTable(NamedTuple):
    """A table's row as stored: its status still JSON text."""

    name: str
    online: bool
    status: str | None
    status_at: float | None
    every: float | None


def table_row(raw: RawTable, st: StatusMessage) -> TableRow:
    """A table with its latest status (``st``: ``raw.status`` read)."""
    return {
        "table": raw.name,
        "online": raw.online,
        "status_at": raw.status_at,
        "every": raw.every,
        "game": st.get("game"),
        "hand": st.get("hand"),
        "phase": st.get("phase"),
        "scores": st.get("scores"),
        "players": st.get("players") or {},
        "faults": st.get("faults") or [],
        "backlog": st.get("backlog"),
        # seconds the table's clock is ahead (+) of the director's, or None
        "clock_offset": st.get("clock_offset"),
        # as the table's config writes it, if sent (a person reads it)
        "name": st["name"] if isinstance(st.get("name"), str) else None,
        # the fleet view's: events the director has not confirmed, the table's
        # machine (version, devices, disk, calibration, config)
        "unconfirmed": st.get("unconfirmed"),
        "fleet": st["fleet"] if isinstance(st.get("fleet"), dict) else None,
        # the cards its camera sees across a zone's line (table/across_line.py)
        "across": _across(st.get("across")),
    }


class TableStatus:
    """Every table's status; its alerts (offline, faults) go to ``alerts``."""

    def __init__(self, core: StoreCore, alerts: Alerts, limits: Limits) -> None:
        self._core = core
        self._alerts = alerts
        self._rows, self._bytes = limits.history_statuses, limits.history_bytes
        self._batch_seen: dict[str, float] = {}  # tables heard from in the open batch
        self._history: dict[str, tuple[int, int]] = {}  # each table's history: rows, bytes
        core.on_batch(before_commit=self._flush_seen, after_rollback=self._rolled_back)

    def _rolled_back(self) -> None:
        self._batch_seen.clear()
        self._history.clear()  # read again: the batch's rows are gone

    def _bound_history(self, conn: Database, table: str, added: int) -> None:
        """One status added to ``table``'s history: past the limits' rows or bytes
        (``history_statuses``, ``history_mb``), its oldest are dropped (some at a time),
        so the history of one table stays bounded however much it sends."""
        most_rows, most_bytes = self._rows, self._bytes
        use = self._history.get(table)
        if use is None:
            row = conn.execute(
                "SELECT count(*), coalesce(sum(length(payload)), 0) FROM status_history"
                " WHERE tbl = ?",
                (table,),
            ).one()
            rows, size = (int(row[0]), int(row[1])) if row else (0, 0)
        else:
            rows, size = use[0] + 1, use[1] + added
        if rows > most_rows or size > most_bytes:
            oldest = conn.execute(
                "SELECT rowid, length(payload) FROM status_history WHERE tbl = ?"
                " ORDER BY rowid LIMIT ?",
                (table, max(_PRUNE, rows - most_rows)),
            ).rows
            cut, freed, dropped = None, 0, 0
            for rowid, length in oldest:
                if rows - dropped <= most_rows - _PRUNE // 2 and size - freed <= most_bytes:
                    break
                cut, freed, dropped = rowid, freed + int(length), dropped + 1
            if cut is not None:
                conn.execute(
                    "DELETE FROM status_history WHERE tbl = ? AND rowid <= ?", (table, cut)
                )
                rows, size = rows - dropped, size - freed
        self._history[table] = (rows, size)

    def seen(self, conn: Database, table: str, now: float, *, at_once: bool = False) -> None:
        """The table was heard from: once per table per batch, at its end."""
        if self._core.in_batch and not at_once:
            self._batch_seen[table] = now
            return
        conn.execute(
            "INSERT INTO tables (name, first_seen, last_seen) VALUES (?, ?, ?)"
            " ON CONFLICT (name) DO UPDATE SET last_seen = excluded.last_seen",
            (table, now, now),
        )

    def _flush_seen(self, db: Database) -> None:
        for table, now in self._batch_seen.items():
            self.seen(db, table, now, at_once=True)
        self._batch_seen.clear()

    def add_status(
        self, msg: StatusMessage, *, received: float | None = None, retained: bool = False
    ) -> list[int]:
        """Store a status (a heartbeat or the last will): the table's current picture,
        its history, and the alerts it raises or clears (offline, camera, cube, clock).

        ``received``: when it arrived (the director's clock; default now), against which
        the table's ``at`` gives its clock offset (``clock_offset``). A heartbeat
        ``retained`` by the broker, or one whose ``at`` is not newer than the last one
        counted, waited somewhere: its ``at`` says nothing of the table's clock now, so
        it is not counted (no false clock alert after a restart)."""
        clock = self._core.clock
        timed = type(msg.get("at")) in (int, float) and math.isfinite(msg["at"])
        try:
            table = str(msg["table"])
            online = bool(msg.get("online", False))
            at = float(msg.get("at") or clock())
        except (KeyError, TypeError, ValueError) as exc:
            raise StoreError(
                f"a status message cannot be read ({exc}); it was not stored"
            ) from None
        if not math.isfinite(at):
            at = clock()  # not a time: taken as received
        every = msg.get("every")
        if every is None or type(every) not in (int, float) or not 0 < every <= MAX_EVERY:
            every = None  # not a heartbeat interval: the table is not timed out on it
        now = clock()
        received = now if received is None else received
        raised: list[int] = []
        history = json.dumps(finite(dict(msg)), sort_keys=True)
        with self._core.tx() as conn:
            row = conn.execute("SELECT status FROM tables WHERE name = ?", (table,)).one()
            before = json.loads(row[0]) if row and row[0] else {}
            samples = _samples(before.get("clock_samples"))
            was = before.get("clock_at")
            last_at = float(was) if isinstance(was, (int, float)) else None
            counted = online and timed and not retained
            if counted and samples and last_at is not None:
                # The same heartbeat again (at == last), or an older one come late, is
                # not counted; unless it comes as a new one would (half an interval or
                # more after the last): the table's clock was put back.
                gap = received - samples[-1][0]
                counted = at > last_at or (at < last_at and gap >= (every or 2.0) / 2)
            if counted:
                sample = [received, at - received]
                if samples and received - samples[-1][0] < (every or 2.0) / 2:
                    # Heartbeats arriving together (what the broker held for the director
                    # while it was away): the last is the freshest, the others only late.
                    samples[-1] = sample
                else:
                    samples = [*samples, sample][-CLOCK_SAMPLES:]
            offset = clock_offset(samples)
            # The director's own keys beside the table's: the offset's samples, and the
            # table's time of the last one counted.
            kept = {
                "clock_samples": samples,
                "clock_offset": offset,
                "clock_at": at if counted else last_at,
            }
            text = json.dumps(finite({**dict(msg), **kept}), sort_keys=True)
            self.seen(conn, table, now, at_once=True)  # its row is updated below
            conn.execute(
                "INSERT INTO status_history (tbl, at, online, payload) VALUES (?, ?, ?, ?)",
                (table, at, int(online), history),
            )
            self._bound_history(conn, table, len(history))
            rules = msg.get("rules")
            conn.execute(
                "UPDATE tables SET online = ?, status_at = ?, every = coalesce(?, every),"
                " status = CASE WHEN ? = 1 THEN ? ELSE status END,"
                " rules = coalesce(?, rules) WHERE name = ?",
                (
                    int(online),
                    now,
                    every,
                    int(online),
                    text,
                    json.dumps(rules) if isinstance(rules, dict) else None,
                    table,
                ),
            )
            if online:
                self._alerts.close_alerts(
                    conn, table, "table_offline", "the table is back online", now
                )
                raised += self._alerts.faults(conn, table, msg.get("faults"), at, now)
                if counted and offset is not None:
                    alert = self._alerts.clock(
                        conn, table, offset, at, now, sure=len(samples) >= CLOCK_RAISE_AFTER
                    )
                    if alert is not None:
                        raised.append(alert)
            else:
                why = "the table went offline (its last will)"
                alert = self._alerts.offline(conn, table, why, at)
                if alert is not None:
                    raised.append(alert)
        return raised

    def check_silent(self, now: float | None = None, *, factor: float = 3.0) -> list[int]:
        """Mark offline, with an alert, every online table with no heartbeat for
        ``factor`` times its own heartbeat interval."""
        now = self._core.clock() if now is None else now
        raised: list[int] = []
        with self._core.tx() as conn:
            rows = conn.execute(
                "SELECT name, status_at, every FROM tables WHERE online = 1 AND every > 0"
            ).rows
            for name, status_at, every in rows:
                if status_at is not None and now - status_at > factor * every:
                    conn.execute("UPDATE tables SET online = 0 WHERE name = ?", (name,))
                    silent = round(now - status_at)
                    alert = self._alerts.offline(conn, name, f"no heartbeat for {silent} s", now)
                    if alert is not None:
                        raised.append(alert)
        return raised

    # --- reading --------------------------------------------------------------------

    def raw_tables(self, names: Collection[str] | None = None) -> list[RawTable]:
        """Every table seen (or those of ``names`` that were), its latest status as
        stored (JSON text): the dashboard builds a table's line again only when this
        (or its events) changed, and reads only the tables a change named."""
        query = "SELECT name, online, status, status_at, every FROM tables"
        params: tuple[str, ...] = ()
        if names is not None:
            params = tuple(sorted(set(names)))
            if not params:
                return []
            query += f" WHERE name IN ({','.join('?' * len(params))})"
        return [
            RawTable(str(name), bool(online), status, status_at, every)
            for name, online, status, status_at, every in self._core.rows(
                query + " ORDER BY name", params
            )
        ]

    def tables(self) -> list[TableRow]:
        """Every table seen, with its latest status (online, hand, scores, faults)."""
        return [
            table_row(raw, json.loads(raw.status) if raw.status else {})
            for raw in self.raw_tables()
        ]

    def status_history(self, table: str) -> list[StatusRow]:
        return [
            {"at": at, "online": bool(on), "status": json.loads(p)}
            for at, on, p in self._core.rows(
                "SELECT at, online, payload FROM status_history WHERE tbl = ? ORDER BY rowid",
                (table,),
            )
        ]

    def players(self, table: str) -> dict[Seat, str]:
        rows = self._core.rows("SELECT status FROM tables WHERE name = ?", (table,))
        names = json.loads(rows[0][0]).get("players", {}) if rows and rows[0][0] else {}
        out = {}
        for s, n in names.items():
            try:
                out[Seat.parse(s)] = str(n)
            except ValueError:
                continue
        return out

    def table_position(self, table: str) -> tuple[int, int | None] | None:
        """The game and hand the table's last status (while online) named, or None."""
        rows = self._core.rows("SELECT status FROM tables WHERE name = ?", (table,))
        st = json.loads(rows[0][0]) if rows and rows[0][0] else {}
        game, hand = st.get("game"), st.get("hand")
        if not isinstance(game, int) or isinstance(game, bool):
            return None
        return game, hand if isinstance(hand, int) and not isinstance(hand, bool) else None


def _across(raw: object) -> list[JSONObject]:
    """A status's cards across a line, as sent (each read in words by the dashboard,
    which passes over any it cannot read); at most a deck's worth."""
    if not isinstance(raw, list):
        return []
    return [a for a in raw if isinstance(a, dict)][:24]


__all__ = [
    "CLOCK_RAISE_AFTER",
    "CLOCK_SAMPLES",
    "MAX_EVERY",
    "RawTable",
    "StatusMessage",
    "StatusRow",
    "TableRow",
    "TableStatus",
    "clock_offset",
    "table_row",
]
