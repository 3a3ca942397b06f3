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
from collections.abc import Mapping
from typing import Any

from table_controller.director.store_alerts import Alerts
from table_controller.director.store_core import StoreCore, finite
from table_controller.director.store_db import Database, StoreError
from table_controller.seats import Seat

MAX_EVERY = 3600.0  # the longest heartbeat interval a status may give (seconds)


class TableStatus:
    """Every table's status; its alerts (offline, faults) go to ``alerts``."""

    def __init__(self, core: StoreCore, alerts: Alerts) -> None:
        self._core = core
        self._alerts = alerts
        self._batch_seen: dict[str, float] = {}  # tables heard from in the open batch
        core.on_batch(before_commit=self._flush_seen, after_rollback=self._batch_seen.clear)

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

    def add_status(self, msg: Mapping[str, Any]) -> list[int]:
        """Store a status (a heartbeat or the last will): the table's current picture,
        its history, and the alerts it raises or clears (offline, camera, cube)."""
        clock = self._core.clock
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
        every: Any = msg.get("every")
        if type(every) not in (int, float) or not 0 < every <= MAX_EVERY:
            every = None  # not a heartbeat interval: the table is not timed out on it
        now = clock()
        raised: list[int] = []
        text = json.dumps(finite(dict(msg)), sort_keys=True)
        with self._core.tx() as conn:
            self.seen(conn, table, now, at_once=True)  # its row is updated below
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
                self._alerts.close_alerts(
                    conn, table, "table_offline", "the table is back online", now
                )
                raised += self._alerts.faults(conn, table, msg.get("faults"), at, now)
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

    def tables(self) -> list[dict[str, Any]]:
        """Every table seen, with its latest status (online, hand, scores, faults)."""
        out = []
        for name, online, status, status_at, every in self._core.rows(
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
                    # as the table's config writes it, if sent (a person reads it)
                    "name": st["name"] if isinstance(st.get("name"), str) else None,
                }
            )
        return out

    def status_history(self, table: str) -> list[dict[str, Any]]:
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


__all__ = ["MAX_EVERY", "TableStatus"]
