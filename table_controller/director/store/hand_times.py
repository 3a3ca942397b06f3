"""When each hand began and ended at each table, and when each game ended: the pace of
play's record (director/pace/ judges it against the round's time).

Why a part of its own: the pace of a table is read for every table several times a
minute, and the events it comes from are most of the store. So each event's marks (a
hand started, scored or thrown in, a game or a match ended, with the table's time of
the event) are written once, beside the event and in its transaction
(``FeedEvents.add_event``), keyed by (table, game, seq, kind): a message delivered twice
writes nothing twice, and a batch taken back takes its marks back too. A store made
before this part gets the marks of the events it already holds when it is opened
(``_fill_from_events``), so nothing played before an upgrade is missing from the pace.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Literal, TypedDict

from table_controller.director.json_value import JSONValue
from table_controller.director.store.core import StoreCore
from table_controller.director.store.db import Database

MarkKind = Literal["started", "scored", "thrown_in", "game_ended", "match_won"]
# Each output that marks a hand's or a game's bounds, and the mark it makes.
MARKS: dict[str, MarkKind] = {
    "hand_started": "started",
    "hand_scored": "scored",
    "hand_thrown_in": "thrown_in",
    "game_ended": "game_ended",
    "match_won": "match_won",
}
_INT_MAX = 2**31 - 1


class HandTime(TypedDict):
    """One mark as kept: the table's game, the event's seq and time (the table's clock),
    what it marks, the hand's number, and the scores after a hand scored (NS, EW)."""

    game: int
    seq: int
    kind: MarkKind
    at: float
    hand: int | None
    ns: int | None
    ew: int | None


def _small_int(value: JSONValue) -> int | None:
    return value if type(value) is int and abs(value) <= _INT_MAX else None


def marks_of(
    outputs: Iterable[object],
) -> list[tuple[MarkKind, int | None, int | None, int | None]]:
    """The marks an event's outputs make: (kind, hand, NS's score, EW's score), one of
    each kind at most (an event that scores a hand and ends the game makes two). The
    outputs are as a table sent them: anything but an output is passed over."""
    out: dict[MarkKind, tuple[MarkKind, int | None, int | None, int | None]] = {}
    for output in outputs:
        if not isinstance(output, Mapping):
            continue
        kind = MARKS.get(str(output.get("event", "")))
        if kind is None or kind in out:
            continue
        scores = output.get("scores")
        ns = ew = None
        if isinstance(scores, list) and len(scores) == 2:
            ns, ew = _small_int(scores[0]), _small_int(scores[1])
        out[kind] = (kind, _small_int(output.get("hand")), ns, ew)
    return list(out.values())


class HandTimes:
    """Each table's hand marks: written with their event, read for the pace. Marks of
    one event come in no set order (the pace orders a hand's end before a game's)."""

    def __init__(self, core: StoreCore) -> None:
        self._core = core
        self._fill_from_events()

    def write(
        self,
        conn: Database,
        table: str,
        game: int,
        seq: int,
        at: float,
        outputs: Iterable[object],
    ) -> None:
        """The marks of one new event, in its transaction (``conn``)."""
        for kind, hand, ns, ew in marks_of(outputs):
            conn.execute(
                "INSERT INTO hand_times VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (table, game, seq, kind, at, hand, ns, ew),
            )

    def latest_games(self, tables: Iterable[str] | None = None) -> dict[str, list[HandTime]]:
        """Each table's marks of its latest game with a hand begun, in order (``tables``:
        only these; None: every table). The round's game is a table's latest: an older
        one ended before, or was left for this one."""
        rows = self._core.rows(
            "SELECT h.tbl, h.game, h.seq, h.kind, h.at, h.hand, h.ns, h.ew FROM hand_times h"
            " JOIN (SELECT tbl, max(game) AS game FROM hand_times GROUP BY tbl) latest"
            " ON h.tbl = latest.tbl AND h.game = latest.game ORDER BY h.tbl, h.seq"
        )
        wanted = None if tables is None else set(tables)
        out: dict[str, list[HandTime]] = {}
        for tbl, game, seq, kind, at, hand, ns, ew in rows:
            if wanted is not None and tbl not in wanted:
                continue
            out.setdefault(str(tbl), []).append(
                HandTime(
                    game=int(game),
                    seq=int(seq),
                    kind=kind,
                    at=float(at),
                    hand=hand,
                    ns=ns,
                    ew=ew,
                )
            )
        return out

    def marks(self, table: str, game: int) -> list[HandTime]:
        """One game's marks at ``table``, in order."""
        return [
            HandTime(game=game, seq=int(seq), kind=kind, at=float(at), hand=hand, ns=ns, ew=ew)
            for seq, kind, at, hand, ns, ew in self._core.rows(
                "SELECT seq, kind, at, hand, ns, ew FROM hand_times WHERE tbl = ? AND game = ?"
                " ORDER BY seq",
                (table, game),
            )
        ]

    def _fill_from_events(self) -> None:
        """The migration of a store made before hand times were kept: the marks of
        every event it holds, once (a store with a mark already has them all, as every
        event since is written with its marks)."""
        core = self._core
        with core.lock:
            if core.rows("SELECT 1 FROM hand_times LIMIT 1"):
                return
            found = core.rows(
                "SELECT tbl, game, seq, at, outputs FROM events WHERE outputs LIKE ?"
                " OR outputs LIKE ? OR outputs LIKE ?",
                ('%"hand_%', '%"game_ended"%', '%"match_won"%'),
            )
            if not found:
                return
            with core.tx() as conn:
                for tbl, game, seq, at, outputs in found:
                    listed = json.loads(outputs)
                    if isinstance(listed, list):
                        self.write(conn, str(tbl), int(game), int(seq), float(at), listed)


__all__ = ["MARKS", "HandTime", "HandTimes", "MarkKind", "marks_of"]
