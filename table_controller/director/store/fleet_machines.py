"""Which machines each table was heard from: the machine a table claims in its
heartbeat (and, once approved, in its request to join), with when it was first and
last heard in the current stretch.

Why in the store: a copied SD card makes two machines one table (docs/fleet.md, "do
not copy a card"), and the director tells them apart only by these claims. Kept
across the director's restart, the warning and the record of which machine played as
the table survive it too. Only a claim in a message the director took as the table's
(signed by its key, when it has one) is kept, so a stranger cannot write here.

A table's rows are bounded (``MAX_PER_TABLE``, the stalest dropped): a machine id that
changes at every start ("boot") adds one row a start.
"""

from __future__ import annotations

from typing import TypedDict

from table_controller.director.store.core import StoreCore
from table_controller.director.store.db import Row

MAX_PER_TABLE = 16
_COLUMNS = "machine, source, first_seen, last_seen"


class MachineRow(TypedDict):
    """One machine heard as a table: its fingerprint, what it was made from
    ("serial", "network", "boot"), and the stretch it was heard in (a machine heard
    again after a silence longer than the window starts a new stretch)."""

    machine: str
    source: str
    first_seen: float
    last_seen: float


class FleetMachines:
    """The machines each table was heard from."""

    def __init__(self, core: StoreCore) -> None:
        self._core = core

    def heard(self, table: str, machine: str, source: str, at: float, *, gap: float) -> None:
        """``machine`` heard as ``table`` at ``at``; heard after more than ``gap``
        seconds of silence, its stretch starts again (a table put back on a machine it
        ran on before is not taken for two machines at once)."""
        with self._core.tx() as conn:
            conn.execute(
                "INSERT INTO fleet_machines (tbl, machine, source, first_seen, last_seen)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (tbl, machine) DO UPDATE SET"
                " source = excluded.source,"
                " first_seen = CASE WHEN excluded.last_seen - fleet_machines.last_seen > ?"
                " THEN excluded.first_seen ELSE fleet_machines.first_seen END,"
                " last_seen = CASE WHEN excluded.last_seen > fleet_machines.last_seen"
                " THEN excluded.last_seen ELSE fleet_machines.last_seen END",
                (table, machine, source, at, at, gap),
            )
            count = conn.execute(
                "SELECT count(*) FROM fleet_machines WHERE tbl = ?", (table,)
            ).one()
            if count is not None and int(count[0]) > MAX_PER_TABLE:
                conn.execute(
                    "DELETE FROM fleet_machines WHERE tbl = ? AND machine IN (SELECT machine"
                    " FROM fleet_machines WHERE tbl = ? ORDER BY last_seen LIMIT ?)",
                    (table, table, int(count[0]) - MAX_PER_TABLE),
                )

    def machines(self, table: str) -> list[MachineRow]:
        """The machines heard as ``table``, the most recently heard first."""
        rows = self._core.rows(
            f"SELECT {_COLUMNS} FROM fleet_machines WHERE tbl = ? ORDER BY last_seen DESC, machine",
            (table,),
        )
        return [_row(r) for r in rows]

    def every_table(self) -> dict[str, list[MachineRow]]:
        """Each table's machines (``machines``), for the fleet page: one read."""
        out: dict[str, list[MachineRow]] = {}
        for r in self._core.rows(
            f"SELECT tbl, {_COLUMNS} FROM fleet_machines ORDER BY tbl, last_seen DESC, machine"
        ):
            out.setdefault(str(r[0]), []).append(_row(r[1:]))
        return out


def _row(r: Row) -> MachineRow:
    machine, source, first, last = r
    return {
        "machine": str(machine),
        "source": str(source),
        "first_seen": float(first),
        "last_seen": float(last),
    }


__all__ = ["MAX_PER_TABLE", "FleetMachines", "MachineRow"]
