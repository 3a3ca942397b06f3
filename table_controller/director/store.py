"""The director's store: everything every table sent, in one SQLite file (WAL) or a
PostgreSQL database (store_db.py: the same SQL on both).

An event is keyed by (table, game, seq) and written with ON CONFLICT DO NOTHING, so a message
the broker delivers twice (QoS 1 redelivers whatever was not acknowledged) is counted
once, whatever the order. The subscriber stores what arrives in batches (``batch``:
one transaction, one fsync, for up to hundreds of messages) and acknowledges each
message to the broker only after its batch committed, so the broker only forgets a
message the store already holds. Alerts are raised here, as the messages are stored,
with a unique key each, so a redelivered message never raises an alert twice. Rulings
and every director action go to an append-only audit log (triggers refuse UPDATE and
DELETE). A table's game is never stored as a state: it is the replay of its stored
input events under its rules (``projection``).
"""

from __future__ import annotations

import hashlib
import json
import math
import secrets
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from table_controller.director import logins
from table_controller.director.store_db import (
    Database,
    StoreError,
    StoreUnavailable,
    open_database,
)
from table_controller.rules.codec import CodecError, decode_input
from table_controller.rules.errors import RulesError
from table_controller.rules.events import OutputEvent
from table_controller.rules.game import Game
from table_controller.rules.presets import preset
from table_controller.rules.replay import OnError, replay, unbroken
from table_controller.seats import Seat

SESSION_SECONDS = 12 * 3600
MAX_EVERY = 3600.0  # the longest heartbeat interval a status may give (seconds)
_INT_MAX = 2**31 - 1  # the INTEGER columns' range on PostgreSQL
FAULT_KINDS = {"camera": "camera_fault", "calibration": "camera_fault", "cube": "cube_fault"}
ALERT_KINDS = (
    "renege_proven",
    "renege_claimed",
    "irregularity_found",
    "table_offline",
    "camera_fault",
    "cube_fault",
)
ALERT_STATES = ("open", "acknowledged", "closed")


@dataclass
class Projection:
    """A table's game as its stored input events replay: ``game`` the rules' state,
    ``recent`` every output of the replay, ``applied`` how many events (seq 1..applied)
    replayed, ``missing`` the first seq not yet received when a later one was."""

    table: str
    game_number: int
    game: Game
    recent: list[OutputEvent] = field(default_factory=list)
    applied: int = 0
    missing: int | None = None
    problem: str | None = None


def finite(value: Any) -> Any:
    """``value`` with every NaN or infinity replaced by None: what a table sends is kept
    as strict JSON, which has neither, so no view of it fails to be drawn."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite(v) for v in value]
    return value


def _token_key(token: str) -> str:
    """A session as stored: the token's SHA-256, so reading the database (a backup, a
    copy) gives no session to use."""
    return hashlib.sha256(token.encode()).hexdigest()


class DirectorStore:
    """One event's store. Safe to share between threads (one connection, one lock):
    the director's writer thread writes, the web server reads."""

    def __init__(
        self,
        path: str | Path,
        *,
        rules_name: str = "td-tournament",
        options: Mapping[str, Any] | None = None,
        clock: Any = time.time,
    ) -> None:
        self.rules_name = rules_name
        self.options = dict(options or {})
        try:
            preset(rules_name, self.options)
        except RulesError as exc:
            raise StoreError(f"the event's rules cannot be used: {exc}") from None
        self._clock = clock
        self._lock = threading.RLock()
        self._projections: dict[tuple[str, int], Projection] = {}
        # While a batch is open: its new events' (table, game), for after the commit.
        self._batch: list[tuple[str, int]] | None = None
        self._games: dict[str, list[int]] = {}  # each table's games, as committed
        self._counts: dict[str, int] | None = None  # each table's events, as committed
        self._batch_seen: dict[str, float] = {}  # tables heard from in the open batch
        self._careful = False  # a savepoint for every write of the next batch
        self._poisoned = False  # a write without a savepoint failed: roll the batch back
        # new events' inputs per game, written and not yet replayed into a projection
        self._fresh: dict[tuple[str, int], dict[int, Any]] = {}
        self.db = open_database(path)
        self.name = self.db.name  # a path, or a URL without its password

    def close(self) -> None:
        with self._lock:
            self.db.close()

    @contextmanager
    def _tx(self, *, checked: bool = False) -> Iterator[Database]:
        """One write: its own transaction, or inside an open ``batch()`` a savepoint, so
        a write that fails takes back only itself and the rest of the batch commits.

        ``checked``: the message was checked in full before (``add_event``), so only the
        database can fail it. On a server a savepoint costs two round trips, most of an
        event's cost; such a write goes without one there. Should it fail after all,
        the server refuses the rest of the transaction and the commit says so
        (StoreError): nothing of the batch is kept, and the next batch, the same
        messages again, takes a savepoint for every write (``_careful``)."""
        with self._lock:
            db = self.db
            if self._batch is not None and checked and not (db.savepoints_cheap or self._careful):
                try:
                    yield db
                except StoreUnavailable:
                    raise
                except BaseException:
                    # half written, no savepoint to go back to: the batch goes back whole
                    self._careful = self._poisoned = True
                    raise
                return
            if self._batch is not None:
                db.execute("SAVEPOINT one")
                try:
                    yield db
                except StoreUnavailable:
                    raise  # the whole transaction is lost: the batch takes it back
                except BaseException:
                    db.execute("ROLLBACK TO one")
                    db.execute("RELEASE one")
                    raise
                db.execute("RELEASE one")
                return
            db.begin()
            try:
                yield db
            except BaseException:
                db.rollback()
                raise
            try:
                db.commit()
            except BaseException:
                db.rollback()
                raise

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Every write inside is one transaction: one commit (one fsync) for many
        messages, which is what lets the director keep up with a room of tables at
        speed. Each write is a savepoint of its own, so one that fails (a bad message)
        is taken back alone; an exception out of the block takes back everything.

        The projections advance after the commit (never over rows that might yet be
        rolled back), once per game however many of its events the batch held. The
        store's lock is held throughout: other threads' reads wait for the commit."""
        with self._lock:
            if self._batch is not None:  # nested: part of the batch already open
                yield
                return
            self.db.begin()
            self._batch = []
            self._batch_seen = {}
            self._poisoned = False
            careful = self._careful
            try:
                yield
                if self._poisoned:
                    raise StoreError(
                        "a write failed half way in the director's batch, so none of the "
                        "batch was kept; it is tried again, each message on its own"
                    )
                for table, now in self._batch_seen.items():
                    self._seen(self.db, table, now, at_once=True)
            except BaseException:
                self._batch = None
                self._fresh.clear()
                self.db.rollback()
                raise
            try:
                self.db.commit()
            except BaseException:
                self._batch = None
                self._fresh.clear()
                self._careful = True  # the same messages again, each on its own
                self.db.rollback()
                raise
            if careful:
                self._careful = False
            new, self._batch = self._batch, None
            self._count(new)
            for table, game in dict.fromkeys(new):  # each game once, in order
                self._advance(table, game)

    def _rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        with self._lock:
            return self.db.execute(sql, params).rows

    # --- the feed's messages ----------------------------------------------------------

    def add_event(self, msg: Mapping[str, Any]) -> tuple[bool, list[int]]:
        """Store one ``events`` message: (True if it was new, the alerts it raised).
        A message already held (same table, game, seq) changes nothing."""
        try:
            table, game, seq = str(msg["table"]), int(msg["game"]), int(msg["seq"])
            inp = msg["input"]
            outputs = list(msg.get("outputs") or [])
            decode_input(inp)
            at = float(msg.get("at") or self._clock())
        except (KeyError, TypeError, ValueError, CodecError) as exc:
            raise StoreError(
                f"an event message cannot be read ({exc}); it was not stored"
            ) from None
        if game < 1 or seq < 1:
            raise StoreError(f"an event message has game {game}, seq {seq}: both start at 1")
        # Everything the database could refuse, refused here (``_tx(checked=True)``).
        hand, source = msg.get("hand"), str(msg.get("source", ""))
        if max(game, seq) > _INT_MAX or not math.isfinite(at):
            raise StoreError(f"an event message has game {game}, seq {seq}, at {at}: out of range")
        if hand is not None and (type(hand) is not int or not 0 <= hand <= _INT_MAX):
            raise StoreError(f"an event message has hand {hand!r}: a hand is a number")
        if "\x00" in table + source:
            raise StoreError("an event message's table or source holds a NUL character")
        now = self._clock()
        raised: list[int] = []
        with self._lock:  # the commit and what follows it, with no reader in between
            with self._tx(checked=True) as conn:
                cur = conn.execute(
                    "INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                    " ON CONFLICT DO NOTHING",
                    (
                        table,
                        game,
                        seq,
                        at,
                        source,
                        json.dumps(inp, sort_keys=True),
                        json.dumps(finite(outputs), sort_keys=True),
                        hand,
                        1 if msg.get("evidence") else 0,
                        now,
                    ),
                )
                if cur.rowcount == 0:
                    return False, []
                self._seen(conn, table, now)
                for kind, text in _event_alerts(inp, outputs):
                    alert = self._alert(
                        conn,
                        f"{kind}:{table}:{game}:{seq}:{len(raised)}",
                        kind,
                        table,
                        text,
                        at,
                        game=game,
                        seq=seq,
                    )
                    if alert is not None:
                        raised.append(alert)
            # its input, to advance the projection without reading it back
            self._fresh.setdefault((table, game), {})[seq] = inp
            self._committed(table, game)
            return True, raised

    def add_events(
        self, msgs: Iterable[Mapping[str, Any]]
    ) -> list[tuple[bool, list[int]] | StoreError]:
        """Store many ``events`` messages in one transaction (``batch``): for each, in
        order, what ``add_event`` returns, or the ``StoreError`` that says why it could
        not be stored (a bad message does not stop the others)."""
        out: list[tuple[bool, list[int]] | StoreError] = []
        with self.batch():
            for msg in msgs:
                try:
                    out.append(self.add_event(msg))
                except StoreUnavailable:
                    raise  # the database, not the message: the batch is taken back
                except StoreError as exc:
                    out.append(exc)
        return out

    def add_evidence(self, table: str, game: int, seq: int, png: bytes) -> None:
        with self._tx() as conn:
            conn.execute(
                "INSERT INTO evidence VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (table, game, seq, png),
            )

    def add_status(self, msg: Mapping[str, Any]) -> list[int]:
        """Store a status (a heartbeat or the last will): the table's current picture,
        its history, and the alerts it raises or clears (offline, camera, cube)."""
        try:
            table = str(msg["table"])
            online = bool(msg.get("online", False))
            at = float(msg.get("at") or self._clock())
        except (KeyError, TypeError, ValueError) as exc:
            raise StoreError(
                f"a status message cannot be read ({exc}); it was not stored"
            ) from None
        if not math.isfinite(at):
            at = self._clock()  # not a time: taken as received
        every: Any = msg.get("every")
        if type(every) not in (int, float) or not 0 < every <= MAX_EVERY:
            every = None  # not a heartbeat interval: the table is not timed out on it
        now = self._clock()
        raised: list[int] = []
        text = json.dumps(finite(dict(msg)), sort_keys=True)
        with self._tx() as conn:
            self._seen(conn, table, now, at_once=True)  # its row is updated below
            conn.execute(
                "INSERT INTO status_history (tbl, at, online, payload) VALUES (?, ?, ?, ?)",
                (table, at, int(online), text),
            )
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
                self._close_alerts(conn, table, "table_offline", "the table is back online", now)
                faults = [f for f in msg.get("faults") or [] if isinstance(f, dict)]
                keys = set()
                for f in faults:
                    kind = FAULT_KINDS.get(str(f.get("device")))
                    if kind is None:
                        continue
                    key = f"{kind}:{table}:{f.get('device')}:{f.get('since')}"
                    keys.add(key)
                    words = f"{f.get('what', f.get('device'))}: {f.get('problem')} ({f.get('fix')})"
                    alert = self._alert(conn, key, kind, table, words, at)
                    if alert is not None:
                        raised.append(alert)
                for aid, key in conn.execute(
                    "SELECT id, key FROM alerts WHERE tbl = ? AND kind IN ('camera_fault',"
                    " 'cube_fault') AND state != 'closed'",
                    (table,),
                ).rows:
                    if key not in keys:
                        self._set_state(conn, aid, "closed", "table", now)
            else:
                alert = self._offline(conn, table, "the table went offline (its last will)", at)
                if alert is not None:
                    raised.append(alert)
        return raised

    def check_silent(self, now: float | None = None, *, factor: float = 3.0) -> list[int]:
        """Mark offline, with an alert, every online table with no heartbeat for
        ``factor`` times its own heartbeat interval."""
        now = self._clock() if now is None else now
        raised: list[int] = []
        with self._tx() as conn:
            rows = conn.execute(
                "SELECT name, status_at, every FROM tables WHERE online = 1 AND every > 0"
            ).rows
            for name, status_at, every in rows:
                if status_at is not None and now - status_at > factor * every:
                    conn.execute("UPDATE tables SET online = 0 WHERE name = ?", (name,))
                    silent = round(now - status_at)
                    alert = self._offline(conn, name, f"no heartbeat for {silent} s", now)
                    if alert is not None:
                        raised.append(alert)
        return raised

    def _seen(self, conn: Database, table: str, now: float, *, at_once: bool = False) -> None:
        """The table was heard from: once per table per batch, at its end."""
        if self._batch is not None and not at_once:
            self._batch_seen[table] = now
            return
        conn.execute(
            "INSERT INTO tables (name, first_seen, last_seen) VALUES (?, ?, ?)"
            " ON CONFLICT (name) DO UPDATE SET last_seen = excluded.last_seen",
            (table, now, now),
        )

    def _offline(self, conn: Database, table: str, why: str, at: float) -> int | None:
        open_ = conn.execute(
            "SELECT 1 FROM alerts WHERE tbl = ? AND kind = 'table_offline' AND state != 'closed'",
            (table,),
        ).one()
        if open_:
            return None
        text = f"{table} is offline: {why}. Check its power and network."
        return self._alert(conn, f"table_offline:{table}:{at}", "table_offline", table, text, at)

    def _alert(
        self,
        conn: Database,
        key: str,
        kind: str,
        table: str,
        text: str,
        at: float,
        *,
        game: int | None = None,
        seq: int | None = None,
    ) -> int | None:
        cur = conn.execute(
            "INSERT INTO alerts (key, kind, tbl, game, seq, at, text, state)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, 'open') ON CONFLICT DO NOTHING RETURNING id",
            (key, kind, table, game, seq, at, text),
        )
        row = cur.one()
        return None if row is None else int(row[0])

    def _close_alerts(self, conn: Database, table: str, kind: str, why: str, now: float) -> None:
        for (aid,) in conn.execute(
            "SELECT id FROM alerts WHERE tbl = ? AND kind = ? AND state != 'closed'",
            (table, kind),
        ).rows:
            self._set_state(conn, aid, "closed", "table", now, why)

    def _set_state(
        self,
        conn: Database,
        aid: int,
        state: str,
        who: str,
        now: float,
        reason: str | None = None,
    ) -> None:
        conn.execute(
            "UPDATE alerts SET state = ?, who = ?, changed = ? WHERE id = ?", (state, who, now, aid)
        )
        row = conn.execute("SELECT tbl, kind FROM alerts WHERE id = ?", (aid,)).one()
        if row is None:
            return
        detail = json.dumps({"alert": aid, "kind": row[1]})
        conn.execute(
            "INSERT INTO audit (at, who, action, tbl, reason, detail) VALUES (?, ?, ?, ?, ?, ?)",
            (now, who, f"alert_{state}", row[0], reason, detail),
        )

    # --- alerts ---------------------------------------------------------------------

    def alerts(self, *, states: tuple[str, ...] = ("open", "acknowledged")) -> list[dict[str, Any]]:
        marks = ",".join("?" * len(states))
        rows = self._rows(
            "SELECT id, kind, tbl, game, seq, at, text, state, who FROM alerts"
            f" WHERE state IN ({marks}) ORDER BY id",
            tuple(states),
        )
        keys = ("id", "kind", "table", "game", "seq", "at", "text", "state", "who")
        return [dict(zip(keys, r, strict=True)) for r in rows]

    def set_alert(self, alert_id: int, state: str, who: str, reason: str | None = None) -> None:
        if state not in ALERT_STATES:
            raise StoreError(f"an alert is {', '.join(ALERT_STATES)}, not {state!r}")
        with self._tx() as conn:
            if conn.execute("SELECT 1 FROM alerts WHERE id = ?", (alert_id,)).one() is None:
                raise StoreError(f"there is no alert {alert_id}: reload the dashboard")
            self._set_state(conn, alert_id, state, who, self._clock(), reason)

    # --- reading --------------------------------------------------------------------

    def tables(self) -> list[dict[str, Any]]:
        """Every table seen, with its latest status (online, hand, scores, faults)."""
        out = []
        for name, online, status, status_at, every in self._rows(
            "SELECT name, online, status, status_at, every FROM tables ORDER BY name"
        ):
            st = json.loads(status) if status else {}
            out.append(
                {
                    "table": name,
                    "online": bool(online),
                    "status_at": status_at,
                    "every": every,
                    "game": st.get("game"),
                    "hand": st.get("hand"),
                    "phase": st.get("phase"),
                    "scores": st.get("scores"),
                    "players": st.get("players") or {},
                    "faults": st.get("faults") or [],
                    "backlog": st.get("backlog"),
                }
            )
        return out

    def events(self, table: str, game: int | None = None) -> list[dict[str, Any]]:
        sql = (
            "SELECT game, seq, at, source, input, outputs, hand, evidence FROM events WHERE tbl = ?"
        )
        params: tuple[Any, ...] = (table,)
        if game is not None:
            sql += " AND game = ?"
            params += (game,)
        keys = ("game", "seq", "at", "source", "input", "outputs", "hand", "evidence")
        out = []
        for row in self._rows(sql + " ORDER BY game, seq", params):
            d = dict(zip(keys, row, strict=True))
            d["input"], d["outputs"] = json.loads(d["input"]), json.loads(d["outputs"])
            d["evidence"] = bool(d["evidence"])
            out.append(d)
        return out

    def event_counts(self) -> dict[str, int]:
        """How many events each table has sent (the dashboard redraws a table on change).
        Counted once, then kept as events commit: the count reads every event stored."""
        with self._lock:
            if self._counts is None:
                counts = {
                    t: n for t, n in self._rows("SELECT tbl, count(*) FROM events GROUP BY tbl")
                }
                if self._batch is not None:  # it may hold rows not yet committed
                    return counts
                self._counts = counts
            return dict(self._counts)

    def count_events(self) -> int:
        return int(self._rows("SELECT count(*) FROM events")[0][0])

    def games(self, table: str) -> list[int]:
        """The table's games, in order. Kept in memory once read, as events commit (this
        store being its file's one writer): the dashboard asks for every table's on every
        snapshot, and the query reads every event the table has sent."""
        with self._lock:
            games = self._games.get(table)
            if games is None:
                games = [
                    r[0]
                    for r in self._rows(
                        "SELECT DISTINCT game FROM events WHERE tbl = ? ORDER BY game", (table,)
                    )
                ]
                if self._batch is not None:  # it may hold rows not yet committed
                    return games
                self._games[table] = games
            return list(games)

    def evidence(self, table: str, game: int, seq: int) -> bytes | None:
        rows = self._rows(
            "SELECT png FROM evidence WHERE tbl = ? AND game = ? AND seq = ?", (table, game, seq)
        )
        return bytes(rows[0][0]) if rows else None

    def status_history(self, table: str) -> list[dict[str, Any]]:
        return [
            {"at": at, "online": bool(on), "status": json.loads(p)}
            for at, on, p in self._rows(
                "SELECT at, online, payload FROM status_history WHERE tbl = ? ORDER BY rowid",
                (table,),
            )
        ]

    def players(self, table: str) -> dict[Seat, str]:
        rows = self._rows("SELECT status FROM tables WHERE name = ?", (table,))
        names = json.loads(rows[0][0]).get("players", {}) if rows and rows[0][0] else {}
        out = {}
        for s, n in names.items():
            try:
                out[Seat.parse(s)] = str(n)
            except ValueError:
                continue
        return out

    # --- the projection -------------------------------------------------------------

    def rules_of(self, table: str) -> tuple[str, dict[str, Any]]:
        """The table's rules: what its status said (``rules``), else the event's."""
        rows = self._rows("SELECT rules FROM tables WHERE name = ?", (table,))
        if rows and rows[0][0]:
            r = json.loads(rows[0][0])
            return str(r.get("name", self.rules_name)), dict(r.get("options") or {})
        return self.rules_name, dict(self.options)

    def projection(self, table: str, game: int) -> Projection:
        """The game replayed from its stored events, seq 1 up to the first one missing
        (kept and advanced as events commit, so a dashboard read costs nothing: replayed
        here only when first asked for)."""
        with self._lock:
            proj = self._projections.get((table, game))
            if proj is None:
                name, options = self.rules_of(table)
                proj = Projection(table, game, Game(preset(name, options)))
                self._projections[(table, game)] = proj
                self._advance(table, game)
            return proj

    def _committed(self, table: str, game: int) -> None:
        """A new event of ``game`` is committed (in an open batch: once it commits): the
        counts, the table's games and the game's projection follow."""
        with self._lock:
            if self._batch is not None:
                self._batch.append((table, game))
                return
            self._count([(table, game)])
            self._advance(table, game)

    def _count(self, new: list[tuple[str, int]]) -> None:
        """New events committed: the counts and games kept in memory follow."""
        counts = self._counts
        for table, game in new:
            if counts is not None:
                counts[table] = counts.get(table, 0) + 1
            games = self._games.get(table)
            if games is not None and game not in games:
                self._games[table] = sorted([*games, game])

    def _advance(self, table: str, game: int) -> None:
        with self._lock:
            if self._batch is not None:  # not over uncommitted rows: after the commit
                self._batch.append((table, game))
                return
            fresh = self._fresh.pop((table, game), {})
            proj = self._projections.get((table, game))
            if proj is None or proj.problem is not None:
                return
            first = proj.applied + 1
            rows: list[tuple[int, Any]]
            if (
                fresh
                and proj.missing is None
                and sorted(fresh) == list(range(first, first + len(fresh)))
            ):
                rows = sorted(fresh.items())  # just what was written: no need to read it
            else:
                rows = [
                    (seq, json.loads(text))
                    for seq, text in self._rows(
                        "SELECT seq, input FROM events WHERE tbl = ? AND game = ? AND seq > ?"
                        " ORDER BY seq",
                        (table, game, proj.applied),
                    )
                ]
            # Up to a missing event, and no further than one the rules refuse.
            ahead = unbroken([seq for seq, _ in rows], first)
            done = replay(proj.game, [inp for _, inp in rows[:ahead]], OnError.STOP)
            proj.recent.extend(done.outputs)
            proj.applied += len(done.steps)
            if done.problems:
                bad = done.problems[0]
                proj.problem = f"event {rows[bad.index][0]} cannot be replayed: {bad.text}"
                return
            if ahead < len(rows):
                proj.missing = proj.applied + 1
                return
            proj.missing = None

    # --- rulings and the audit log --------------------------------------------------

    def add_ruling(self, payload: Mapping[str, Any]) -> None:
        """A signed ruling about to be sent: stored and audited in one transaction."""
        now = self._clock()
        with self._tx() as conn:
            conn.execute(
                "INSERT INTO rulings (ruling_id, tbl, kind, payload, director, reason, at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    payload["ruling_id"],
                    payload["table"],
                    payload["kind"],
                    json.dumps(dict(payload), sort_keys=True),
                    payload["director"],
                    payload["reason"],
                    float(payload["at"]),
                ),
            )
            conn.execute(
                "INSERT INTO audit (at, who, action, tbl, ruling_id, reason, detail)"
                " VALUES (?, ?, 'ruling_sent', ?, ?, ?, ?)",
                (
                    now,
                    payload["director"],
                    payload["table"],
                    payload["ruling_id"],
                    payload["reason"],
                    json.dumps(dict(payload), sort_keys=True),
                ),
            )
            conn.execute(
                "INSERT INTO ruling_sends (ruling_id, tbl, sent_at, sends) VALUES (?, ?, ?, 1)",
                (payload["ruling_id"], payload["table"], now),
            )

    def add_ack(self, msg: Mapping[str, Any]) -> bool:
        """The table's answer to a ruling: that it has it (``state`` delivered), or that
        it applied or refused it, recorded on it and in the audit log once (a ruling sent
        again is answered again). False for an ack of a ruling this store never sent or
        already answered (one never sent is recorded in the audit all the same)."""
        rid = str(msg.get("ruling_id"))
        now = self._clock()
        if msg.get("state") == "delivered":
            with self._tx() as conn:
                cur = conn.execute(
                    "UPDATE ruling_sends SET delivered_at = coalesce(delivered_at, ?)"
                    " WHERE ruling_id = ?",
                    (now, rid),
                )
                return cur.rowcount > 0
        ok = bool(msg.get("ok"))
        with self._tx() as conn:
            cur = conn.execute(
                "UPDATE rulings SET ack_ok = ?, ack_problem = ?, ack_at = ?"
                " WHERE ruling_id = ? AND ack_ok IS NULL",
                (int(ok), msg.get("problem"), float(msg.get("at") or now), rid),
            )
            if (
                not cur.rowcount
                and conn.execute("SELECT 1 FROM rulings WHERE ruling_id = ?", (rid,)).rows
            ):
                return False  # answered before: already recorded
            conn.execute(
                "INSERT INTO audit (at, who, action, tbl, ruling_id, reason, detail)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    now,
                    f"table {msg.get('table')}",
                    "ruling_applied" if ok else "ruling_refused",
                    msg.get("table"),
                    rid,
                    msg.get("problem"),
                    json.dumps(dict(msg), sort_keys=True),
                ),
            )
            return cur.rowcount > 0

    def unanswered(self, table: str | None = None) -> list[tuple[str, str, str, float]]:
        """(ruling_id, table, signed payload as JSON, last sent) of each ruling its table
        has not answered yet, oldest first: the director sends them again."""
        sql = (
            "SELECT r.ruling_id, r.tbl, r.payload, coalesce(s.sent_at, r.at) FROM rulings r"
            " LEFT JOIN ruling_sends s ON s.ruling_id = r.ruling_id WHERE r.ack_ok IS NULL"
        )
        params: tuple[Any, ...] = ()
        if table is not None:
            sql += " AND r.tbl = ?"
            params = (table,)
        return [
            (str(a), str(b), str(c), float(d))
            for a, b, c, d in self._rows(sql + " ORDER BY r.at", params)
        ]

    def ruling_sent(self, ruling_id: str, table: str) -> None:
        """A ruling published again."""
        now = self._clock()
        with self._tx() as conn:
            cur = conn.execute(
                "UPDATE ruling_sends SET sent_at = ?, sends = sends + 1 WHERE ruling_id = ?",
                (now, ruling_id),
            )
            if not cur.rowcount:  # a ruling stored before deliveries were kept
                conn.execute(
                    "INSERT INTO ruling_sends (ruling_id, tbl, sent_at, sends) VALUES (?, ?, ?, 1)",
                    (ruling_id, table, now),
                )

    def table_position(self, table: str) -> tuple[int, int | None] | None:
        """The game and hand the table's last status (while online) named, or None."""
        rows = self._rows("SELECT status FROM tables WHERE name = ?", (table,))
        st = json.loads(rows[0][0]) if rows and rows[0][0] else {}
        game, hand = st.get("game"), st.get("hand")
        if not isinstance(game, int) or isinstance(game, bool):
            return None
        return game, hand if isinstance(hand, int) and not isinstance(hand, bool) else None

    def rulings(self, table: str | None = None) -> list[dict[str, Any]]:
        """Every ruling with its delivery: ``state`` is pending (stored, sent, the table
        has not said it has it), delivered, applied or refused (``ack_problem`` says why)."""
        sql = (
            "SELECT r.ruling_id, r.tbl, r.kind, r.director, r.reason, r.at, r.ack_ok,"
            " r.ack_problem, r.ack_at, r.payload, s.sent_at, s.sends, s.delivered_at"
            " FROM rulings r LEFT JOIN ruling_sends s ON s.ruling_id = r.ruling_id"
        )
        params: tuple[Any, ...] = ()
        if table is not None:
            sql += " WHERE r.tbl = ?"
            params = (table,)
        keys = (
            "ruling_id",
            "table",
            "kind",
            "director",
            "reason",
            "at",
            "ack_ok",
            "ack_problem",
            "ack_at",
            "payload",
            "sent_at",
            "sends",
            "delivered_at",
        )
        out = []
        for row in self._rows(sql + " ORDER BY r.at", params):
            d = dict(zip(keys, row, strict=True))
            d["payload"] = json.loads(d["payload"])
            d["ack_ok"] = None if d["ack_ok"] is None else bool(d["ack_ok"])
            d["game"], d["hand"] = d["payload"].get("game"), d["payload"].get("hand")
            d["state"] = (
                "applied" if d["ack_ok"] else
                "refused" if d["ack_ok"] is False else
                "delivered" if d["delivered_at"] is not None else "pending"
            )  # fmt: skip
            out.append(d)
        return out

    def audit(self) -> list[dict[str, Any]]:
        keys = ("id", "at", "who", "action", "table", "ruling_id", "reason", "detail")
        return [
            dict(zip(keys, r, strict=True))
            for r in self._rows(
                "SELECT id, at, who, action, tbl, ruling_id, reason, detail FROM audit ORDER BY id"
            )
        ]

    # --- directors and sessions -----------------------------------------------------

    def add_login(self, name: str, password: str) -> None:
        """A director's login (a new one, or a new password for an existing one: every
        session opened with the old password ends)."""
        if not name.strip():
            raise StoreError("a login needs a name: the director's own, e.g. 'ann'")
        if len(password) < 8:
            raise StoreError("the password is too short: use at least 8 characters")
        digest = logins.hash_password(password)
        now = self._clock()
        with self._tx() as conn:
            conn.execute(
                "INSERT INTO directors VALUES (?, ?, ?, ?) ON CONFLICT (name) DO UPDATE"
                " SET salt = excluded.salt, hash = excluded.hash",
                (name, b"", digest, now),
            )
            conn.execute("DELETE FROM sessions WHERE name = ?", (name,))
            conn.execute(
                "INSERT INTO audit (at, who, action, detail) VALUES (?, ?, 'login_set', '{}')",
                (now, name),
            )

    def logins(self) -> list[str]:
        return [r[0] for r in self._rows("SELECT name FROM directors ORDER BY name")]

    def login(self, name: str, password: str, *, address: str = "") -> str | None:
        """A new session's token for the right password, else None (and the failure in
        the audit log, with the address it came from). Slow on purpose (the hash):
        call it off the event loop. An unknown name costs what a known one does."""
        rows = self._rows("SELECT salt, hash FROM directors WHERE name = ?", (name,))
        salt, stored = (bytes(rows[0][0]), bytes(rows[0][1])) if rows else (None, None)
        ok, rehash = logins.verify(password, salt, stored)
        now = self._clock()
        if not ok:
            detail = json.dumps({"address": address, "known": bool(rows)})
            with self._tx() as conn:
                conn.execute(
                    "INSERT INTO audit (at, who, action, detail) VALUES (?, ?, 'login_failed', ?)",
                    (now, name[:80], detail),
                )
            return None
        new_hash = logins.hash_password(password) if rehash else None
        token = secrets.token_urlsafe(32)
        with self._tx() as conn:
            conn.execute("DELETE FROM sessions WHERE expires < ?", (now,))
            if new_hash is not None:  # an older hash (scrypt): Argon2id from now on
                conn.execute(
                    "UPDATE directors SET salt = ?, hash = ? WHERE name = ?",
                    (b"", new_hash, name),
                )
            conn.execute(
                "INSERT INTO sessions VALUES (?, ?, ?)",
                (_token_key(token), name, now + SESSION_SECONDS),
            )
        return token

    def session(self, token: str | None) -> str | None:
        """The director logged in with ``token``, or None (unknown or expired)."""
        if not token:
            return None
        rows = self._rows(
            "SELECT name, expires FROM sessions WHERE token = ?", (_token_key(token),)
        )
        if not rows or rows[0][1] < self._clock():
            return None
        return str(rows[0][0])

    def logout(self, token: str) -> None:
        with self._tx() as conn:
            conn.execute("DELETE FROM sessions WHERE token = ?", (_token_key(token),))

    # --- the event's format (events_admin.py) ------------------------------------------

    def add_format_state(
        self, who: str, action: str, reason: str | None, state: Mapping[str, Any]
    ) -> int:
        """A new version of the event's format state (append-only), audited with it."""
        now = self._clock()
        text = json.dumps(dict(state), sort_keys=True)
        with self._tx() as conn:
            row = conn.execute(
                "INSERT INTO format_state (at, who, action, reason, state) VALUES (?, ?, ?, ?, ?)"
                " RETURNING id",
                (now, who, action, reason, text),
            ).one()
            version = int(row[0]) if row else 0
            conn.execute(
                "INSERT INTO audit (at, who, action, reason, detail) VALUES (?, ?, ?, ?, ?)",
                (now, who, f"format_{action}", reason, json.dumps({"version": version})),
            )
            return version

    def format_state(self) -> dict[str, Any] | None:
        """The event's format state as last saved, or None before one is created."""
        rows = self._rows("SELECT state FROM format_state ORDER BY id DESC LIMIT 1")
        return dict(json.loads(rows[0][0])) if rows else None

    def format_history(self) -> list[dict[str, Any]]:
        """Every change to the event's format: who, when, what, why (oldest first)."""
        keys = ("version", "at", "who", "action", "reason")
        return [
            dict(zip(keys, r, strict=True))
            for r in self._rows("SELECT id, at, who, action, reason FROM format_state ORDER BY id")
        ]

    def ended_games(self, table: str) -> list[dict[str, Any]]:
        """The stored events of ``table`` whose outputs end a game (game_ended)."""
        out = []
        for game, seq, outputs in self._rows(
            "SELECT game, seq, outputs FROM events WHERE tbl = ? AND outputs LIKE ?"
            " ORDER BY game, seq",
            (table, '%"game_ended"%'),
        ):
            out.append({"game": game, "seq": seq, "outputs": json.loads(outputs)})
        return out

    def stored_events(self, table: str, game: int, *, until: float) -> list[dict[str, Any]]:
        """A game's stored events the table recorded at or before ``until`` (in order)."""
        keys = ("seq", "at", "input", "outputs")
        out = []
        for row in self._rows(
            "SELECT seq, at, input, outputs FROM events WHERE tbl = ? AND game = ? AND at <= ?"
            " ORDER BY seq",
            (table, game, until),
        ):
            d = dict(zip(keys, row, strict=True))
            d["input"], d["outputs"] = json.loads(d["input"]), json.loads(d["outputs"])
            out.append(d)
        return out

    # --- the feed's received marks (docs/feed.md, "Delivery") ---------------------------

    def received_marks(self, table: str) -> dict[int, tuple[int, list[int]]]:
        """Per game of ``table``: the highest seq stored with every seq before it stored
        (0: seq 1 missing), and the seqs stored past the first gap."""
        out: dict[int, tuple[int, list[int]]] = {}
        for game, seq in self._rows(
            "SELECT game, seq FROM events WHERE tbl = ? ORDER BY game, seq", (table,)
        ):
            high, ahead = out.get(game, (0, []))
            if not ahead and seq == high + 1:
                out[game] = (seq, ahead)
            else:
                ahead.append(seq)
                out[game] = (high, ahead)
        return out


def _event_alerts(inp: Mapping[str, Any], outputs: list[Any]) -> Iterator[tuple[str, str]]:
    """The alerts one event raises: a renege claimed (an input), a renege proven or an
    irregularity found (outputs), in words for the director."""
    if inp.get("event") == "renege_claimed":
        trick = inp.get("trick")
        where = f" in trick {trick}" if isinstance(trick, int) else ""
        yield "renege_claimed", f"{inp.get('by')} claims {inp.get('against')} reneged{where}"
    for o in outputs:
        if not isinstance(o, dict):
            continue
        if o.get("event") == "renege_proven":
            yield (
                "renege_proven",
                (
                    f"renege proven: {o.get('seat')} did not follow {o.get('suit')} in trick "
                    f"{o.get('trick')} of hand {o.get('hand')}, playing {o.get('played')} while "
                    f"holding {o.get('proof')} (shown in trick {o.get('proof_trick')})"
                ),
            )
        elif o.get("event") == "irregularity_found":
            detail = o.get("detail")
            yield "irregularity_found", f"{o.get('kind')} ({o.get('seat')}): {detail}"


__all__ = ["ALERT_KINDS", "DirectorStore", "Projection", "StoreError", "StoreUnavailable"]
