"""What each table last said about an update (``fleet(id, "update")``): waiting for its
game to end, downloading, installing, restarting, running, refused, rolled back.

Why in the store and not in the rollout's memory: the message arrives on the director
service's thread (director/fleet/replies.py), the rollout steps on its own; and a
director restarted mid-rollout, or a fleet view opened later, still reads the last word
of each table. One row per table: only the latest matters.
"""

from __future__ import annotations

import json
import math
import weakref
from collections.abc import Mapping
from typing import TypedDict, cast

from table_controller.director.json_value import JSONValue
from table_controller.director.store.core import StoreCore

TABLE = (
    "CREATE TABLE IF NOT EXISTS fleet_update_progress (tbl TEXT PRIMARY KEY,"
    " at DOUBLE PRECISION NOT NULL, body TEXT NOT NULL)"
)
STATES = frozenset(
    {"waiting", "downloading", "installing", "restarting", "running", "refused", "rolled-back"}
)
MAX_BODY = 8 * 1024
_MADE: weakref.WeakSet[StoreCore] = weakref.WeakSet()  # stores whose table exists


class UpdateProgress(TypedDict):
    """A table's word on its update, checked (``checked``): each field the director
    reads, of the type it expects (None: not sent, or not readable)."""

    state: str
    id: str | None
    version: str | None
    running: str | None
    problem: str | None
    at: float | None


class StoredProgress(UpdateProgress):
    """A table's latest word on its update as kept: with when the director had it."""

    received: float


class FleetUpdates:
    """The latest update progress per table."""

    def __init__(self, core: StoreCore) -> None:
        self._core = core
        if core not in _MADE:
            with core.tx() as conn:
                conn.execute(TABLE)
            _MADE.add(core)

    def add(self, table: str, body: Mapping[str, JSONValue], now: float) -> bool:
        """Keep ``body`` (checked) as ``table``'s latest word; False when it is not one
        (unreadable) or an older one than kept (a message overtaken)."""
        clean = checked(body)
        if clean is None:
            return False
        at = clean["at"] if clean["at"] is not None else now
        with self._core.tx() as conn:
            row = conn.execute("SELECT at FROM fleet_update_progress WHERE tbl = ?", (table,)).one()
            if row is not None and float(row[0]) > at:
                return False
            conn.execute(
                "INSERT INTO fleet_update_progress (tbl, at, body) VALUES (?, ?, ?)"
                " ON CONFLICT (tbl) DO UPDATE SET at = excluded.at, body = excluded.body",
                (table, at, json.dumps({**clean, "received": now})),
            )
        return True

    def latest(self, table: str) -> StoredProgress | None:
        rows = self._core.rows("SELECT body FROM fleet_update_progress WHERE tbl = ?", (table,))
        # as ``add`` kept it
        return cast(StoredProgress, dict(json.loads(rows[0][0]))) if rows else None

    def all(self) -> dict[str, StoredProgress]:
        return {
            str(tbl): cast(StoredProgress, dict(json.loads(body)))
            for tbl, body in self._core.rows("SELECT tbl, body FROM fleet_update_progress")
        }


def checked(body: Mapping[str, JSONValue]) -> UpdateProgress | None:
    """The fields the director reads, each of the type it expects; None if unreadable."""
    state = body.get("state")
    if state not in STATES or len(json.dumps(dict(body), default=str)) > MAX_BODY:
        return None
    at = body.get("at")
    at = float(at) if isinstance(at, int | float) and not isinstance(at, bool) else None
    if at is not None and not math.isfinite(at):
        at = None

    def text(key: str, limit: int) -> str | None:
        value = body.get(key)
        return value[:limit] if isinstance(value, str) else None

    return {
        "state": str(state),  # one of STATES
        "id": text("id", 80),
        "version": text("version", 80),
        "running": text("running", 80),
        "problem": text("problem", 2000),
        "at": at,
    }


__all__ = ["FleetUpdates", "StoredProgress", "UpdateProgress", "checked"]
