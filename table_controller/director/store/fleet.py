"""The tables the director approved in fleet mode (director/fleet/join.py): each one's
id, name, where it asked from and its join key; removed tables keep their row, marked
with when, so the event's record says which tables took part.

Why a part of its own: this is the director's list of who may connect, apart from what
the tables sent (store/tables.py). Each approval and removal is in the audit log, in
the transaction that records it.
"""

from __future__ import annotations

import json
from typing import TypedDict, cast

from table_controller.director.store.core import StoreCore

_COLUMNS = ("id", "name", "host", "address", "version", "key", "approved_at", "removed_at")


class FleetTableRow(TypedDict):
    """An approved table's row (``fleet_tables()``): its id and name, where it asked
    from, its release and join key, when approved and (None: still in) removed."""

    id: str
    name: str | None
    host: str | None
    address: str | None
    version: str | None
    key: str | None
    approved_at: float | None
    removed_at: float | None


def _row(r: tuple[object, ...]) -> FleetTableRow:
    return cast(FleetTableRow, dict(zip(_COLUMNS, r, strict=True)))


class FleetTables:
    """The fleet's approved tables."""

    def __init__(self, core: StoreCore) -> None:
        self._core = core

    def fleet_approve(
        self,
        id: str,
        name: str,
        host: str,
        address: str,
        version: str,
        key: str,
        at: float,
        *,
        who: str = "director",
    ) -> None:
        """Table ``id`` approved (again, after a removal: approved anew), audited."""
        with self._core.tx() as conn:
            conn.execute(
                "INSERT INTO fleet_tables VALUES (?, ?, ?, ?, ?, ?, ?, NULL)"
                " ON CONFLICT (id) DO UPDATE SET name = excluded.name, host = excluded.host,"
                " address = excluded.address, version = excluded.version,"
                " key = excluded.key, approved_at = excluded.approved_at, removed_at = NULL",
                (id, name, host, address, version, key, at),
            )
            detail = {"name": name, "host": host, "address": address, "version": version}
            conn.execute(
                "INSERT INTO audit (at, who, action, tbl, detail)"
                " VALUES (?, ?, 'table_approved', ?, ?)",
                (at, who, id, json.dumps(detail, sort_keys=True)),
            )

    def fleet_remove(self, id: str, at: float, *, who: str = "director") -> bool:
        """Table ``id`` removed, audited; False if it was not an approved table."""
        with self._core.tx() as conn:
            changed = conn.execute(
                "UPDATE fleet_tables SET removed_at = ? WHERE id = ? AND removed_at IS NULL",
                (at, id),
            ).rowcount
            if changed:
                conn.execute(
                    "INSERT INTO audit (at, who, action, tbl, detail)"
                    " VALUES (?, ?, 'table_removed', ?, '{}')",
                    (at, who, id),
                )
        return bool(changed)

    def fleet_tables(self, include_removed: bool = False) -> list[FleetTableRow]:
        """The approved tables (and the removed ones with ``include_removed``), in the
        order they were approved."""
        where = "" if include_removed else " WHERE removed_at IS NULL"
        return [
            _row(r)
            for r in self._core.rows(
                f"SELECT {', '.join(_COLUMNS)} FROM fleet_tables{where} ORDER BY approved_at, id"
            )
        ]

    def fleet_table(self, id: str) -> FleetTableRow | None:
        rows = self._core.rows(
            f"SELECT {', '.join(_COLUMNS)} FROM fleet_tables WHERE id = ?", (id,)
        )
        return _row(rows[0]) if rows else None


__all__ = ["FleetTableRow", "FleetTables"]
