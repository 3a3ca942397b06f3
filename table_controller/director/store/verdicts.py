"""Each stored game's verdicts (issue 34): the analysis of its ended hands as kept
(``review.KeptReview``'s written form), one row a game, so that it is worked out once
and read by the dashboard, the hall and ``director export`` without waiting.

Why in the store: the director restarted must not work out every game again, and the
store is what a director backs up and moves. The row holds the written form as text;
what it means is the review's business (``KeptReview.from_json``), which refuses, in
words, a form it cannot read: the game is then worked out again. The table is new in
the schema (``CREATE TABLE IF NOT EXISTS``): a store made before it gets it, empty,
when it is opened, and each of its games is worked out the first time its review is
opened.
"""

from __future__ import annotations

from table_controller.director.store.core import StoreCore


class GameVerdicts:
    """The verdicts kept per (table, game), with when they were kept."""

    def __init__(self, core: StoreCore) -> None:
        self._core = core

    def kept(self, table: str, game: int) -> str | None:
        """The written form kept for the game, or None."""
        rows = self._core.rows(
            "SELECT kept FROM game_verdicts WHERE tbl = ? AND game = ?", (table, game)
        )
        return None if not rows else str(rows[0][0])

    def keep(self, table: str, game: int, kept: str) -> None:
        """``kept`` is now the game's verdicts (replacing what was kept)."""
        at = self._core.clock()
        with self._core.tx() as conn:
            conn.execute(
                "INSERT INTO game_verdicts (tbl, game, kept, at) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (tbl, game) DO UPDATE SET kept = excluded.kept, at = excluded.at",
                (table, game, kept, at),
            )


__all__ = ["GameVerdicts"]
