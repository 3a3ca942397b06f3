"""What every part of the director's store writes through: one connection, one lock,
one way to open a transaction (``tx``) and to group many writes in one (``batch``).

Why a part of its own: the store's parts (events, table status, alerts, rulings,
accounts, the format) each keep their own SQL, but they share a transaction. An event
raises its alerts in the same transaction as its row, and a batch of hundreds of
messages is one commit whatever parts they touch. The core holds what that needs and
nothing about any one concern; a part that keeps something in memory until a batch
commits (the tables heard from, the new events for the projections) registers what to
do before the commit, after it, and when the batch is taken back (``on_batch``).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from table_controller.director.store.db import (
    Database,
    Params,
    Row,
    StoreError,
    StoreUnavailable,
    open_database,
)

Clock = Callable[[], float]


def finite(value: object) -> object:
    """``value`` with every NaN or infinity replaced by None: what a table sends is kept
    as strict JSON, which has neither, so no view of it fails to be drawn."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite(v) for v in value]
    return value


class StoreCore:
    """The store's database and lock, shared by its parts. Safe to share between
    threads (one connection, one lock): the director's writer thread writes, the web
    server reads. ``lock`` is re-entrant: a part's write may call another part's."""

    def __init__(self, path: str | Path, *, clock: Clock) -> None:
        self.clock = clock
        self.lock = threading.RLock()
        self._in_batch = False
        self._careful = False  # a savepoint for every write of the next batch
        self._poisoned = False  # a write without a savepoint failed: roll the batch back
        self._before_commit: list[Callable[[Database], None]] = []
        self._after_commit: list[Callable[[], None]] = []
        self._after_rollback: list[Callable[[], None]] = []
        self.db = open_database(path)

    @property
    def in_batch(self) -> bool:
        """A ``batch()`` is open: what is written is not committed yet."""
        return self._in_batch

    def on_batch(
        self,
        *,
        before_commit: Callable[[Database], None] | None = None,
        after_commit: Callable[[], None] | None = None,
        after_rollback: Callable[[], None] | None = None,
    ) -> None:
        """A part's work at a batch's end: its last writes (inside the transaction),
        what follows the commit, what to forget when the batch is taken back."""
        if before_commit is not None:
            self._before_commit.append(before_commit)
        if after_commit is not None:
            self._after_commit.append(after_commit)
        if after_rollback is not None:
            self._after_rollback.append(after_rollback)

    def close(self) -> None:
        with self.lock:
            self.db.close()

    def rows(self, sql: str, params: Params = ()) -> list[Row]:
        with self.lock:
            return self.db.execute(sql, params).rows

    @contextmanager
    def tx(self, *, checked: bool = False) -> Iterator[Database]:
        """One write: its own transaction, or inside an open ``batch()`` a savepoint, so
        a write that fails takes back only itself and the rest of the batch commits.

        ``checked``: the message was checked in full before (``add_event``), so only the
        database can fail it. On a server a savepoint costs two round trips, most of an
        event's cost; such a write goes without one there. Should it fail after all,
        the server refuses the rest of the transaction and the commit says so
        (StoreError): nothing of the batch is kept, and the next batch, the same
        messages again, takes a savepoint for every write (``_careful``)."""
        with self.lock:
            db = self.db
            if self._in_batch and checked and not (db.savepoints_cheap or self._careful):
                try:
                    yield db
                except StoreUnavailable:
                    raise
                except BaseException:
                    # half written, no savepoint to go back to: the batch goes back whole
                    self._careful = self._poisoned = True
                    raise
                return
            if self._in_batch:
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

        The parts' ``after_commit`` work (the projections advancing) runs after the
        commit, never over rows that might yet be rolled back. The lock is held
        throughout: other threads' reads wait for the commit."""
        with self.lock:
            if self._in_batch:  # nested: part of the batch already open
                yield
                return
            self.db.begin()
            self._in_batch = True
            self._poisoned = False
            careful = self._careful
            try:
                yield
                if self._poisoned:
                    raise StoreError(
                        "a write failed half way in the director's batch, so none of the "
                        "batch was kept; it is tried again, each message on its own"
                    )
                for write in self._before_commit:
                    write(self.db)
            except BaseException:
                self._taken_back()
                raise
            try:
                self.db.commit()
            except BaseException:
                self._careful = True  # the same messages again, each on its own
                self._taken_back()
                raise
            if careful:
                self._careful = False
            self._in_batch = False
            for follow in self._after_commit:
                follow()

    def _taken_back(self) -> None:
        self._in_batch = False
        for forget in self._after_rollback:
            forget()
        self.db.rollback()


__all__ = ["Clock", "StoreCore", "StoreError", "StoreUnavailable", "finite"]
