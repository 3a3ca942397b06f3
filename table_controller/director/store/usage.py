"""How much of the director's store each table takes: its events, their pictures, its
status history and its camera pictures, in bytes.

Why a part of its own: a table that sends too much (a fault, or someone holding its
password) shows here first, on the fleet view, beside its own disk; and the bounds the
store keeps per table (the status history, the pictures) are what these figures stay
under. Summing reads every row a table sent, so the figures are kept for ``EVERY``
seconds: a page refreshed every few seconds does not read the whole store each time.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from table_controller.director.store.core import StoreCore

EVERY = 30.0  # seconds the figures are kept before they are summed again


@dataclass(frozen=True)
class TableUsage:
    """One table's bytes in the store, by what they are."""

    events: int = 0
    pictures: int = 0
    history: int = 0
    camera: int = 0

    @property
    def total(self) -> int:
        return self.events + self.pictures + self.history + self.camera


_QUERIES = {
    "events": "SELECT tbl, sum(length(input) + length(outputs)) FROM events GROUP BY tbl",
    "pictures": "SELECT tbl, sum(length(png)) FROM evidence GROUP BY tbl",
    "history": "SELECT tbl, sum(length(payload)) FROM status_history GROUP BY tbl",
    "camera": "SELECT tbl, sum(coalesce(length(jpeg), 0)) FROM fleet_pictures GROUP BY tbl",
}


class Usage:
    """Each table's share of the store, summed at most every ``EVERY`` seconds."""

    def __init__(self, core: StoreCore) -> None:
        self._core = core
        self._lock = threading.Lock()
        self._at = -1e18
        self._figures: dict[str, TableUsage] = {}

    def table_usage(self) -> dict[str, TableUsage]:
        """Per table, its bytes in the store (as of at most ``EVERY`` seconds ago)."""
        now = self._core.clock()
        with self._lock:
            if now - self._at < EVERY:
                return dict(self._figures)
        sums: dict[str, dict[str, int]] = {}
        for what, sql in _QUERIES.items():
            for table, size in self._core.rows(sql):
                sums.setdefault(str(table), {})[what] = int(size or 0)
        figures = {t: TableUsage(**parts) for t, parts in sums.items()}
        with self._lock:
            self._figures, self._at = figures, now
        return dict(figures)


def size_words(size: int) -> str:
    """Bytes as a person reads them: "820 KB", "12.3 MB", "1.2 GB"."""
    if size < 1024 * 1024:
        return f"{max(1, round(size / 1024)) if size else 0} KB"
    if size < 1024**3:
        return f"{size / 1024 / 1024:.1f} MB"
    return f"{size / 1024**3:.1f} GB"


def usage_words(usage: TableUsage | None) -> str:
    """One table's share of the director's store in words, its largest parts first."""
    if usage is None or usage.total == 0:
        return "Nothing stored yet"
    parts = [
        (usage.pictures, "pictures"),
        (usage.events, "events"),
        (usage.history, "status history"),
        (usage.camera, "camera views"),
    ]
    shown = ", ".join(f"{what} {size_words(n)}" for n, what in sorted(parts, reverse=True) if n)
    return f"{size_words(usage.total)} ({shown})"


__all__ = ["EVERY", "TableUsage", "Usage", "size_words", "usage_words"]
