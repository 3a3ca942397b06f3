"""A table's game as the director sees it: never stored as a state, always the replay
of its stored input events under its rules (``Projection``).

Why a part of its own: the replay is the one place the director runs the rules. It is
kept in memory once asked for and advanced as each game's new events commit (never
over rows a batch might yet take back), so the dashboard reads a game at no cost
however often it redraws; a new event's input is handed over as it is written, so the
common case (the next seq, in order) replays without reading it back.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from table_controller.director.json_value import JSONObject, JSONValue
from table_controller.director.store.core import StoreCore
from table_controller.director.store.games import GameSetups
from table_controller.rules.events import OutputEvent
from table_controller.rules.game import Game
from table_controller.rules.presets import preset
from table_controller.rules.replay import OnError, replay, unbroken


@dataclass
class Projection:
    """A table's game as its stored input events replay: ``game`` the rules' state,
    ``recent`` every output of the replay, ``applied`` how many events (seq 1..applied)
    replayed, ``missing`` the first seq not yet received when a later one was."""

    table: str
    game_number: int
    game: Game
    recent: list[OutputEvent] = field(default_factory=list)
    applied: int = 0
    missing: int | None = None
    problem: str | None = None


class Projections:
    """Every game asked for so far, replayed and kept up to date. ``rules_name`` and
    ``options``: the event's rules, for a table whose status named none."""

    def __init__(
        self,
        core: StoreCore,
        rules_name: str,
        options: Mapping[str, JSONValue],
        setups: GameSetups | None = None,
    ) -> None:
        self.rules_name = rules_name
        self._setups = setups
        self.options = dict(options)
        self._core = core
        self._lock = core.lock
        self._rows = core.rows
        self._projections: dict[tuple[str, int], Projection] = {}
        # new events' inputs per game, written and not yet replayed into a projection
        self._fresh: dict[tuple[str, int], dict[int, JSONObject]] = {}
        self._deferred: list[tuple[str, int]] = []  # asked for inside an open batch
        core.on_batch(after_commit=self._after_commit, after_rollback=self._forget)

    def rules_of(self, table: str, game: int | None = None) -> tuple[str, JSONObject]:
        """A game's rules: what its table's log holds for it (``store.events.games``), else
        what the table's status said (``rules``), else the event's."""
        setup = None if game is None or self._setups is None else self._setups.setup(table, game)
        if setup is not None:
            return setup.rules, dict(setup.options)
        rows = self._rows("SELECT rules FROM tables WHERE name = ?", (table,))
        if rows and rows[0][0]:
            r = json.loads(rows[0][0])
            return str(r.get("name", self.rules_name)), dict(r.get("options") or {})
        return self.rules_name, dict(self.options)

    def projection(self, table: str, game: int) -> Projection:
        """The game replayed from its stored events, seq 1 up to the first one missing
        (kept and advanced as events commit, so a dashboard read costs nothing: replayed
        here only when first asked for)."""
        with self._lock:
            proj = self._projections.get((table, game))
            if proj is None:
                name, options = self.rules_of(table, game)
                proj = Projection(table, game, Game(preset(name, options)))
                self._projections[(table, game)] = proj
                self._advance(table, game)
            return proj

    def written(self, table: str, game: int, seq: int, inp: JSONObject) -> None:
        """An event's input just written: kept to advance the projection with, once
        its row is committed, without reading it back."""
        self._fresh.setdefault((table, game), {})[seq] = inp

    def committed(self, games: Iterable[tuple[str, int]]) -> None:
        """New events of these (table, game) are committed: each game's projection (if
        asked for) follows, once however many of its events there were, in order."""
        for table, game in dict.fromkeys(games):
            self._advance(table, game)

    def _after_commit(self) -> None:
        deferred, self._deferred = self._deferred, []
        self.committed(deferred)

    def _forget(self) -> None:
        self._fresh.clear()
        self._deferred.clear()

    def _advance(self, table: str, game: int) -> None:
        with self._lock:
            if self._core.in_batch:  # not over uncommitted rows: after the commit
                self._deferred.append((table, game))
                return
            fresh = self._fresh.pop((table, game), {})
            proj = self._projections.get((table, game))
            if proj is None or proj.problem is not None:
                return
            first = proj.applied + 1
            rows: list[tuple[int, JSONObject]]
            if (
                fresh
                and proj.missing is None
                and sorted(fresh) == list(range(first, first + len(fresh)))
            ):
                rows = sorted(fresh.items())  # just what was written: no need to read it
            else:
                rows = [
                    (seq, json.loads(text))
                    for seq, text in self._rows(
                        "SELECT seq, input FROM events WHERE tbl = ? AND game = ? AND seq > ?"
                        " ORDER BY seq",
                        (table, game, proj.applied),
                    )
                ]
            # Up to a missing event, and no further than one the rules refuse.
            ahead = unbroken([seq for seq, _ in rows], first)
            done = replay(proj.game, [inp for _, inp in rows[:ahead]], OnError.STOP)
            proj.recent.extend(done.outputs)
            proj.applied += len(done.steps)
            if done.problems:
                bad = done.problems[0]
                proj.problem = f"event {rows[bad.index][0]} cannot be replayed: {bad.text}"
                return
            if ahead < len(rows):
                proj.missing = proj.applied + 1
                return
            proj.missing = None


__all__ = ["Projection", "Projections"]
