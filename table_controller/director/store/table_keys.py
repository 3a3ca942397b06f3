"""Each table's registered public key: the director stores what a table sends (its
events, status, answers and pictures) only when it is signed by it
(feed/table_signing.py).

Why a part of its own: the key is what says a message comes from the table, where the
broker's password says only that the sender knows it. A key is registered by whoever
set the table up: ``director start`` reads the ``table-keys.json`` that ``feed
broker-config`` wrote, the event demo registers the keys it makes, the fleet's approval
registers the key it gives the table. Each registration and change is in the audit log,
in the transaction that records it. The keys are few and read for every message, so
they are kept in memory once read.

A key is ``enforced`` (every message must be signed with it) from its registration
when the one who registered it also gave it to the table (``feed broker-config``, the
event demo); a key the fleet's approval sends in the table's bundle is enforced from
the first message the table signs with it, since a table of an older release ignores
it and signs nothing, and must go on working (docs/feed.md, "Signed messages"). A
table with no key registered is taken as before.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from typing import TypedDict

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from table_controller.director.store.core import StoreCore
from table_controller.director.store.db import StoreError
from table_controller.feed.table_signing import TableKeyError, load_public


@dataclass(frozen=True)
class RegisteredKey:
    """A table's key, and whether every message must already be signed with it."""

    key: Ed25519PublicKey
    enforced: bool


class TableKeyRow(TypedDict):
    """A registered key as ``table_keys()`` lists it (``enforced`` as stored: 0 or 1)."""

    table: str
    public_key: str
    source: str
    registered_at: float
    enforced: int


class TableKeys:
    """The tables' registered public keys."""

    def __init__(self, core: StoreCore) -> None:
        self._core = core
        self._lock = threading.Lock()
        self._cache: dict[str, RegisteredKey] | None = None

    def register_key(
        self,
        table: str,
        public_pem: str,
        *,
        source: str,
        enforced: bool = True,
        who: str = "director",
    ) -> bool:
        """``public_pem`` registered as ``table``'s key (replacing another, audited);
        False when it was registered already. StoreError in words when it is no key."""
        try:
            load_public(public_pem, table=table)
        except TableKeyError as exc:
            raise StoreError(str(exc)) from None
        now = self._core.clock()
        with self._core.tx() as conn:
            row = conn.execute("SELECT public_key FROM table_keys WHERE tbl = ?", (table,)).one()
            if row is not None and row[0] == public_pem:
                return False
            conn.execute(
                "INSERT INTO table_keys VALUES (?, ?, ?, ?, ?) ON CONFLICT (tbl) DO UPDATE SET"
                " public_key = excluded.public_key, source = excluded.source,"
                " registered_at = excluded.registered_at, enforced = excluded.enforced",
                (table, public_pem, source, now, int(enforced)),
            )
            # A table set up again counts its messages afresh (store/table_order.py).
            conn.execute("DELETE FROM table_order WHERE tbl = ?", (table,))
            action = "table_key_registered" if row is None else "table_key_changed"
            conn.execute(
                "INSERT INTO audit (at, who, action, tbl, detail) VALUES (?, ?, ?, ?, ?)",
                (now, who, action, table, json.dumps({"source": source})),
            )
        with self._lock:
            self._cache = None
        return True

    def enforce_key(self, table: str) -> None:
        """The table signed a message with its key: from now on every one must be."""
        with self._core.tx() as conn:
            conn.execute("UPDATE table_keys SET enforced = 1 WHERE tbl = ?", (table,))
        with self._lock:
            if self._cache is not None and table in self._cache:
                self._cache[table] = RegisteredKey(self._cache[table].key, True)

    def table_key(self, table: str) -> RegisteredKey | None:
        """The key ``table``'s messages are checked with, None when none is registered."""
        with self._lock:
            if self._cache is None:
                cache: dict[str, RegisteredKey] = {}
                for tbl, pem, enforced in self._core.rows(
                    "SELECT tbl, public_key, enforced FROM table_keys"
                ):
                    try:
                        key = load_public(str(pem), table=str(tbl))
                    except TableKeyError as exc:  # checked when registered: a damaged store
                        raise StoreError(f"{exc} (the store's copy is damaged)") from None
                    cache[str(tbl)] = RegisteredKey(key, bool(enforced))
                self._cache = cache
            return self._cache.get(table)

    def table_keys(self) -> list[TableKeyRow]:
        """Every registered key: table, public key (PEM), where it came from, when, and
        whether every message must be signed with it yet."""
        return [
            TableKeyRow(
                table=tbl,
                public_key=public_key,
                source=source,
                registered_at=registered_at,
                enforced=enforced,
            )
            for tbl, public_key, source, registered_at, enforced in self._core.rows(
                "SELECT tbl, public_key, source, registered_at, enforced FROM table_keys"
                " ORDER BY tbl"
            )
        ]


__all__ = ["RegisteredKey", "TableKeyRow", "TableKeys"]
