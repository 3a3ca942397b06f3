"""The newest place the director took, per table and kind of message, in the table's
order (feed/table_order.py): what a status, an answer to a ruling or a fleet answer
must come after to be taken (director/table_trust.py).

Why in the store: a director restarted must still refuse an old status sent again, so
what it took last must outlive it; and it is written in the transaction that stores the
message, so the two never part (a batch taken back takes both back). Only a signed
message from a table with a registered key has its place kept: an unsigned one's place
could be anyone's.

A table's places are forgotten when another key is registered for it: a table set up
again (a new key, perhaps a new log and a clock behind) starts its count afresh. A
table none of whose places is kept yet may still send without one (a table of the
release before places, which signs its events and status only); once one is kept, it
may not (``has_places``).
"""

from __future__ import annotations

from table_controller.director.store.core import StoreCore


class TableOrder:
    """Each table's newest place taken, per kind (``Place.key``: boot, link, n)."""

    def __init__(self, core: StoreCore) -> None:
        self._core = core

    def newest_place(self, table: str, kind: str) -> tuple[int, int, int] | None:
        """The place of the newest ``kind`` message taken from ``table`` (None: none)."""
        rows = self._core.rows(  # in a batch: its connection, what it wrote before too
            "SELECT boot, link, n FROM table_order WHERE tbl = ? AND kind = ?", (table, kind)
        )
        return None if not rows else (int(rows[0][0]), int(rows[0][1]), int(rows[0][2]))

    def has_places(self, table: str) -> bool:
        """Whether any place of ``table``'s was kept: from then on every status and
        answer of it must carry one (a table of an older release sends none)."""
        return bool(self._core.rows("SELECT 1 FROM table_order WHERE tbl = ? LIMIT 1", (table,)))

    def keep_place(self, table: str, kind: str, key: tuple[int, int, int]) -> None:
        """``key`` is now the newest place of ``table``'s ``kind`` (forward only)."""
        boot, link, n = key
        with self._core.tx() as conn:
            conn.execute(
                "INSERT INTO table_order (tbl, kind, boot, link, n) VALUES (?, ?, ?, ?, ?)"
                " ON CONFLICT (tbl, kind) DO UPDATE SET boot = excluded.boot,"
                " link = excluded.link, n = excluded.n"
                " WHERE excluded.boot > table_order.boot OR (excluded.boot = table_order.boot"
                " AND (excluded.link > table_order.link OR (excluded.link = table_order.link"
                " AND excluded.n > table_order.n)))",
                (table, kind, boot, link, n),
            )


__all__ = ["TableOrder"]
