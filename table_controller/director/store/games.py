"""Each game's own record as its table's log holds it: the rules it is played under and
who sits where.

Why a part of its own: a game is replayed from its events under its rules, and the
results name its players. Neither may be the director's guess. The table sends its
log's record of the game with the game's first event (``feed.outbox.GameSent``); it is
kept here, once, and the replay and the results read it. A table that sent none (a
release before it did) is replayed under the event's rules, as before, and named by
its statuses.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field

from table_controller.director.json_value import JSONObject, JSONValue
from table_controller.director.store.core import StoreCore
from table_controller.director.store.db import Database
from table_controller.rules.errors import RulesError
from table_controller.rules.presets import preset
from table_controller.seats import Seat


@dataclass(frozen=True)
class GameSetup:
    """A game's rules (preset and options) and players, as the table's log holds them."""

    rules: str
    options: JSONObject = field(default_factory=dict)
    players: dict[Seat, str] = field(default_factory=dict)


def parse_record(raw: JSONValue) -> GameSetup | None:
    """The ``record`` of an event message, checked, or None when it is missing or does not
    read (the game is then replayed under the event's rules, and the problem is the
    replay's to show)."""
    if not isinstance(raw, Mapping):
        return None
    rules, options, players = raw.get("rules"), raw.get("options") or {}, raw.get("players") or {}
    if not isinstance(rules, str) or not isinstance(options, Mapping):
        return None
    if not isinstance(players, Mapping):
        return None
    try:
        preset(rules, dict(options))
    except (RulesError, TypeError, ValueError):
        return None
    seats: dict[Seat, str] = {}
    for s, n in players.items():
        try:
            seat = Seat.parse(str(s))
        except ValueError:
            continue
        if isinstance(n, str) and n.strip() and "\x00" not in n:
            seats[seat] = n.strip()[:80]
    return GameSetup(rules, dict(options), seats)


class GameSetups:
    """The games' records (table, game) -> ``GameSetup``, kept in memory once read."""

    def __init__(self, core: StoreCore) -> None:
        self._core = core
        self._known: dict[tuple[str, int], GameSetup | None] = {}

    def write(self, conn: Database, table: str, game: int, setup: GameSetup) -> None:
        """Keep a game's record (inside the event's transaction); the first one stays."""
        conn.execute(
            "INSERT INTO game_setups VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            (
                table,
                game,
                setup.rules,
                json.dumps(setup.options, sort_keys=True),
                json.dumps({s.name: n for s, n in setup.players.items()}, sort_keys=True),
            ),
        )
        self._known.pop((table, game), None)

    def setup(self, table: str, game: int) -> GameSetup | None:
        """The game's record as its table sent it, or None (none sent)."""
        key = (table, game)
        if key in self._known:
            return self._known[key]
        rows = self._core.rows(
            "SELECT rules, options, players FROM game_setups WHERE tbl = ? AND game = ?",
            (table, game),
        )
        found = None
        if rows:
            rules, options, players = rows[0]
            found = parse_record(
                {"rules": rules, "options": json.loads(options), "players": json.loads(players)}
            )
        if found is not None:  # a game not yet heard of may still send its record
            self._known[key] = found
        return found


__all__ = ["GameSetup", "GameSetups", "parse_record"]
