"""The pace of play read for the dashboard: each table's hand marks from the store, the
rules that end its game, the round's time from the event, judged by ``model.judge``.

Kept apart from the model so the model stays pure (no store, no clock of its own): this
is the one place that reads what the model is given.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping

from table_controller.director.pace.model import (
    Goal,
    HandMark,
    PaceView,
    RoundClock,
    TablePlay,
    judge,
)
from table_controller.director.store import DirectorStore, HandTime
from table_controller.rules.errors import RulesError
from table_controller.rules.presets import preset


def _mark(row: HandTime) -> HandMark:
    ns, ew = row["ns"], row["ew"]
    return HandMark(
        seq=row["seq"],
        kind=row["kind"],
        at=row["at"],
        hand=row["hand"],
        scores=None if ns is None or ew is None else (ns, ew),
    )


class PaceSource:
    """The pace over ``store``: ``round_clock()`` the event's round's time (None: not
    set), ``round_tables()`` the feed tables the round assigns (None: every table in
    view), ``clock`` the director's time (the store's by default)."""

    def __init__(
        self,
        store: DirectorStore,
        *,
        round_clock: Callable[[], RoundClock | None],
        round_tables: Callable[[], list[str] | None],
        clock: Callable[[], float] | None = None,
    ) -> None:
        self._store = store
        self._round_clock = round_clock
        self._round_tables = round_tables
        self._clock = clock if clock is not None else store.core.clock
        self._goals: dict[tuple[str, int], Goal] = {}

    def _goal(self, table: str, game: int | None) -> Goal:
        """What ends the table's game, from its rules (``game`` None: the rules its
        status names, before its round's game has a hand). Kept once a game is known:
        a game's rules never change."""
        goal = None if game is None else self._goals.get((table, game))
        if goal is None:
            name, options = self._store.projections.rules_of(table, game)
            try:
                rules = preset(name, options)
                goal = Goal(rules.hands_per_game, rules.points_to_win, rules.best_of)
            except RulesError:  # the store refuses such rules; a game to 10 meanwhile
                goal = Goal(points=10)
            if game is not None:
                self._goals[(table, game)] = goal
        return goal

    def view(self, titles: Mapping[str, str]) -> PaceView:
        """Each table's pace, by the names ``titles`` gives (table -> its name): the
        round's tables if it assigns some, else every table in ``titles``."""
        clock = self._round_clock()
        assigned = self._round_tables()
        # in the dashboard's order (its tables by name), the round's tables if it has some
        tables = list(titles)
        if assigned:
            tables = [t for t in tables if t in assigned]
            tables += sorted(set(assigned) - set(tables))
        marks = self._store.hand_times.latest_games(tables)
        plays = []
        for table in tables:
            rows = marks.get(table, [])
            plays.append(
                TablePlay(
                    table=table,
                    title=titles.get(table, table),
                    marks=tuple(_mark(r) for r in rows),
                    goal=self._goal(table, rows[-1]["game"] if rows else None),
                )
            )
        now = self._clock()
        offset = float(time.localtime(now).tm_gmtoff)
        return judge(clock, plays, now, utc_offset=offset)


__all__ = ["PaceSource"]
