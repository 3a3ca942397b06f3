"""Every event every table sent, and its evidence images, as the director received them.

Why a part of its own: the events are the director's record of every game, and the
only thing a game is built from (``store.projections``). An event is keyed by (table,
game, seq) and written with ON CONFLICT DO NOTHING, so a message the broker delivers
twice (QoS 1 redelivers whatever was not acknowledged) is counted once, whatever the
order. A message is checked in full before it is written, so only the database can
refuse the write (``StoreCore.tx(checked=True)``). The events each table sent and its
games are counted once, then kept in memory as events commit: the dashboard asks for
them on every snapshot, and counting reads every event stored.
"""

from __future__ import annotations

import json
import logging
import math
import time
from collections.abc import Iterable, Mapping
from typing import TypedDict

from table_controller.director.json_value import JSONObject, JSONValue
from table_controller.director.store.alerts import Alerts
from table_controller.director.store.core import StoreCore, finite
from table_controller.director.store.db import Database, StoreError, StoreUnavailable
from table_controller.director.store.games import GameSetups, parse_record
from table_controller.director.store.hand_times import HandTimes
from table_controller.director.store.projections import Projections
from table_controller.director.store.tables import TableStatus
from table_controller.director.words import seat_label
from table_controller.feed.limits import Limits
from table_controller.present import card_words, event_words
from table_controller.rules.codec import CodecError, decode_input

_INT_MAX = 2**31 - 1  # the INTEGER columns' range on PostgreSQL
# The event pictures kept for one table at most, by count and by bytes, are the
# director's limits pictures_kept and pictures_mb (limits.py): a real table sends one or
# two a card, about 30 KB each, some 250 a game; the defaults hold some 80 games.
# Beyond them a table's pictures are refused, not the oldest deleted: they are evidence.
log = logging.getLogger(__name__)


class EventMessage(TypedDict, total=False):
    """An ``events`` message as it comes off the wire (docs/feed.md, "events"): one
    event of a table's game, its outputs, and (the game's first) its record. Nothing in
    it is trusted: ``add_event`` checks every value before it stores one.

    Why not the feed's ``EventMessage`` (feed/messages.py), which a table builds: that
    one says what a table of this release sends, every key required and typed; this one
    is what the director may be handed by anyone who can publish, so every key may be
    missing (a table of an earlier release, a forged message) and every value is any
    JSON until checked, the signature's ``order`` included."""

    v: int
    table: str
    game: int
    seq: int
    at: float
    source: str
    hand: int | None
    input: JSONObject
    outputs: list[JSONObject]
    evidence: bool
    record: JSONObject
    order: JSONValue
    sig: str


class StoredEvent(TypedDict):
    """An event as stored (``events()``): what the dashboard, the results and the
    exports read back, its input and outputs as the table sent them."""

    game: int
    seq: int
    at: float
    source: str
    input: JSONObject
    outputs: list[JSONObject]
    hand: int | None
    evidence: bool


class EndedGame(TypedDict):
    """A stored event whose outputs end a game (``ended_games()``)."""

    game: int
    seq: int
    at: float
    outputs: list[JSONObject]


class GameEvent(TypedDict):
    """One of a game's stored events up to a time (``stored_events()``): the hall
    screen replays them."""

    seq: int
    at: float
    input: JSONObject
    outputs: list[JSONObject]


def _when(at: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(at))


def copy_words(inp: JSONValue) -> str:
    """One copy of an event in words, for an alert that shows two ("Card played: North,
    Jack of Hearts")."""
    if not isinstance(inp, Mapping):
        return "a message that is not an event"
    details = []
    seat, card = inp.get("seat"), inp.get("card")
    if isinstance(seat, str):
        details.append(seat_label({}, seat))
    if isinstance(card, str):
        try:
            details.append(card_words(card))
        except ValueError:
            details.append(repr(card[:8]))
    name = event_words(str(inp.get("event", "")))
    return name + (": " + ", ".join(details) if details else "")


class FeedEvents:
    """The stored events. A new one is heard from its table (``tables``), raises its
    alerts (``alerts``) and, once committed, advances its game (``projections``)."""

    def __init__(
        self,
        core: StoreCore,
        tables: TableStatus,
        alerts: Alerts,
        projections: Projections,
        setups: GameSetups,
        limits: Limits,
        hand_times: HandTimes | None = None,
    ) -> None:
        self._core = core
        self._hand_times = hand_times
        self._limits = limits
        self._setups = setups
        self._tables = tables
        self._alerts = alerts
        self._projections = projections
        self._new: list[tuple[str, int]] = []  # the open batch's new events' games
        self._games: dict[str, list[int]] = {}  # each table's games, as committed
        self._counts: dict[str, int] | None = None  # each table's events, as committed
        self._pictures: dict[str, tuple[int, int]] = {}  # each table's pictures, bytes
        core.on_batch(after_commit=self._after_commit, after_rollback=self._rolled_back)

    def _rolled_back(self) -> None:
        self._new.clear()
        self._pictures.clear()  # read again: the batch's may be among them

    # --- the feed's messages ----------------------------------------------------------

    def add_event(self, msg: EventMessage) -> tuple[bool, list[int]]:
        """Store one ``events`` message: (True if it was new, the alerts it raised).
        A message already held (same table, game, seq) changes nothing."""
        clock = self._core.clock
        try:
            table, game, seq = str(msg["table"]), int(msg["game"]), int(msg["seq"])
            inp = msg["input"]
            outputs = list(msg.get("outputs") or [])
            decode_input(inp)
            at = float(msg.get("at") or clock())
        except (KeyError, TypeError, ValueError, CodecError) as exc:
            raise StoreError(
                f"an event message cannot be read ({exc}); it was not stored"
            ) from None
        if game < 1 or seq < 1:
            raise StoreError(f"an event message has game {game}, seq {seq}: both start at 1")
        # Everything the database could refuse, refused here (``tx(checked=True)``).
        hand, source = msg.get("hand"), str(msg.get("source", ""))
        if max(game, seq) > _INT_MAX or not math.isfinite(at):
            raise StoreError(f"an event message has game {game}, seq {seq}, at {at}: out of range")
        if hand is not None and (type(hand) is not int or not 0 <= hand <= _INT_MAX):
            raise StoreError(f"an event message has hand {hand!r}: a hand is a number")
        if "\x00" in table + source:
            raise StoreError("an event message's table or source holds a NUL character")
        setup = parse_record(msg.get("record")) if seq == 1 else None
        now = clock()
        with self._core.lock:  # the commit and what follows it, with no reader in between
            with self._core.tx(checked=True) as conn:
                cur = conn.execute(
                    "INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                    " ON CONFLICT DO NOTHING",
                    (
                        table,
                        game,
                        seq,
                        at,
                        source,
                        json.dumps(inp, sort_keys=True),
                        json.dumps(finite(outputs), sort_keys=True),
                        hand,
                        1 if msg.get("evidence") else 0,
                        now,
                    ),
                )
                if cur.rowcount == 0:
                    self._reused(conn, table, game, seq, inp, at if msg.get("at") else None)
                    return False, []
                self._tables.seen(conn, table, now)
                if setup is not None:
                    self._setups.write(conn, table, game, setup)
                if self._hand_times is not None:
                    self._hand_times.write(conn, table, game, seq, at, outputs)
                raised = self._alerts.raise_for_event(conn, table, game, seq, inp, outputs, at)
            # its input, to advance the projection without reading it back
            self._projections.written(table, game, seq, inp)
            self._committed(table, game)
            return True, raised

    def _reused(
        self,
        conn: Database,
        table: str,
        game: int,
        seq: int,
        inp: JSONObject,
        at: float | None,
    ) -> None:
        """An event whose (table, game, seq) is already held: a redelivery is the same
        event (the same input, recorded at the same time) and changes nothing. Another
        one is a different game under a number the store already holds (a table whose
        log began again at game 1, for a new event in the same store): the store keeps
        the first and cannot keep this one, so it says so, loudly, once a game."""
        row = conn.execute(
            "SELECT at, input FROM events WHERE tbl = ? AND game = ? AND seq = ?",
            (table, game, seq),
        ).one()
        if row is None:
            return
        held_at, held_input = float(row[0]), json.loads(row[1])
        same_time = at is None or abs(held_at - at) < 1e-3
        if held_input == json.loads(json.dumps(inp)) and same_time:
            return
        now = self._core.clock() if at is None else at
        text = (
            f"{table} sent a game {game} that is not the game {game} this store holds (its "
            f"event {seq} differs: recorded {_when(now)}, the one held {_when(held_at)}; "
            f"the one held: {copy_words(held_input)}; the one sent now, not stored: "
            f"{copy_words(inp)}). If the table did not start a new log, someone else sent "
            "one of them as this table (a table with a registered key cannot be imitated: "
            'docs/feed.md, "Signed messages"). '
            "The store keeps one game of each number a table, so this game's events are "
            "not stored and it is missing from the results. The table's log began again "
            "at game 1: give the director a new store for a new event (--database), or "
            "let the table keep its log so that its games go on numbering"
        )
        log.warning("%s", text)
        self._alerts.raise_alert(
            conn, f"game_reused:{table}:{game}", "game_reused", table, text, now, game=game, seq=seq
        )

    def add_events(self, msgs: Iterable[EventMessage]) -> list[tuple[bool, list[int]] | StoreError]:
        """Store many ``events`` messages in one transaction (``batch``): for each, in
        order, what ``add_event`` returns, or the ``StoreError`` that says why it could
        not be stored (a bad message does not stop the others)."""
        out: list[tuple[bool, list[int]] | StoreError] = []
        with self._core.batch():
            for msg in msgs:
                try:
                    out.append(self.add_event(msg))
                except StoreUnavailable:
                    raise  # the database, not the message: the batch is taken back
                except StoreError as exc:
                    out.append(exc)
        return out

    def add_evidence(self, table: str, game: int, seq: int, png: bytes) -> bool:
        """An event's picture, sent just before it: the first one kept (a copy sent
        again, or one a table sends again from its mark, changes nothing, and never
        undoes a clearer picture stored since). False when the table's pictures are
        at their bound (the limits ``pictures_kept``, ``pictures_mb``): not stored."""
        most, most_bytes = self._limits.pictures_kept, self._limits.pictures_bytes
        with self._core.lock, self._core.tx() as conn:
            count, size = self._picture_use(conn, table)
            if count + 1 > most or size + len(png) > most_bytes:
                return False
            cur = conn.execute(
                "INSERT INTO evidence VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (table, game, seq, png),
            )
            if cur.rowcount:
                self._pictures[table] = (count + 1, size + len(png))
        return True

    def _picture_use(self, conn: Database, table: str) -> tuple[int, int]:
        """The table's pictures stored, and their bytes (read once, then kept)."""
        use = self._pictures.get(table)
        if use is None:
            row = conn.execute(
                "SELECT count(*), coalesce(sum(length(png)), 0) FROM evidence WHERE tbl = ?",
                (table,),
            ).one()
            use = (int(row[0]), int(row[1])) if row else (0, 0)
            self._pictures[table] = use
        return use

    def replace_evidence(self, table: str, game: int, seq: int, png: bytes) -> bool:
        """The table's clearer picture of an event's card (taken once the hand had left
        it), in place of the picture it sent with the event: True when stored; False
        when the event is not held (nothing is changed: a table sends a clearer picture
        only after its event, and an event sent again carries the clearer picture
        itself). Only the table named by the topic it came on can send it (the broker's
        ACL), so a table replaces only its own pictures."""
        with self._core.tx() as conn:
            held = conn.execute(
                "SELECT 1 FROM events WHERE tbl = ? AND game = ? AND seq = ?", (table, game, seq)
            ).one()
            if held is None:
                return False
            conn.execute(
                "INSERT INTO evidence VALUES (?, ?, ?, ?)"
                " ON CONFLICT (tbl, game, seq) DO UPDATE SET png = excluded.png",
                (table, game, seq, png),
            )
            self._pictures.pop(table, None)  # one picture's bytes changed: read again
        return True

    def _committed(self, table: str, game: int) -> None:
        """A new event of ``game`` is committed (in an open batch: once it commits): the
        counts, the table's games and the game's projection follow."""
        with self._core.lock:
            if self._core.in_batch:
                self._new.append((table, game))
                return
            self._count([(table, game)])
            self._projections.committed([(table, game)])

    def _after_commit(self) -> None:
        new, self._new = self._new, []
        self._count(new)
        self._projections.committed(new)

    def _count(self, new: list[tuple[str, int]]) -> None:
        """New events committed: the counts and games kept in memory follow."""
        counts = self._counts
        for table, game in new:
            if counts is not None:
                counts[table] = counts.get(table, 0) + 1
            games = self._games.get(table)
            if games is not None and game not in games:
                self._games[table] = sorted([*games, game])

    # --- reading --------------------------------------------------------------------

    def events(self, table: str, game: int | None = None, after: int = 0) -> list[StoredEvent]:
        """The table's events (of ``game``; with a seq over ``after``), in order."""
        sql = (
            "SELECT game, seq, at, source, input, outputs, hand, evidence FROM events WHERE tbl = ?"
        )
        params: tuple[str | int, ...] = (table,)
        if game is not None:
            sql += " AND game = ?"
            params += (game,)
        if after:
            sql += " AND seq > ?"
            params += (after,)
        return [
            StoredEvent(
                game=game,
                seq=seq,
                at=at,
                source=source,
                input=json.loads(inp),
                outputs=json.loads(outputs),
                hand=hand,
                evidence=bool(evidence),
            )
            for game, seq, at, source, inp, outputs, hand, evidence in self._core.rows(
                sql + " ORDER BY game, seq", params
            )
        ]

    def event_counts(self) -> dict[str, int]:
        """How many events each table has sent (the dashboard redraws a table on change).
        Counted once, then kept as events commit: the count reads every event stored."""
        with self._core.lock:
            if self._counts is None:
                counts = {
                    t: n
                    for t, n in self._core.rows("SELECT tbl, count(*) FROM events GROUP BY tbl")
                }
                if self._core.in_batch:  # it may hold rows not yet committed
                    return counts
                self._counts = counts
            return dict(self._counts)

    def count_events(self) -> int:
        return int(self._core.rows("SELECT count(*) FROM events")[0][0])

    def games(self, table: str) -> list[int]:
        """The table's games, in order. Kept in memory once read, as events commit (this
        store being its file's one writer): the dashboard asks for every table's on every
        snapshot, and the query reads every event the table has sent."""
        with self._core.lock:
            games = self._games.get(table)
            if games is None:
                games = [
                    r[0]
                    for r in self._core.rows(
                        "SELECT DISTINCT game FROM events WHERE tbl = ? ORDER BY game", (table,)
                    )
                ]
                if self._core.in_batch:  # it may hold rows not yet committed
                    return games
                self._games[table] = games
            return list(games)

    def evidence(self, table: str, game: int, seq: int) -> bytes | None:
        rows = self._core.rows(
            "SELECT png FROM evidence WHERE tbl = ? AND game = ? AND seq = ?", (table, game, seq)
        )
        return bytes(rows[0][0]) if rows else None

    def game_sizes(self) -> dict[tuple[str, int], tuple[int, int]]:
        """Each (table, game)'s events stored and its highest seq, in one query: the
        results' screens replay a game again only when these change."""
        return {
            (str(t), int(g)): (int(n), int(m))
            for t, g, n, m in self._core.rows(
                "SELECT tbl, game, count(*), max(seq) FROM events GROUP BY tbl, game"
            )
        }

    def game_arrivals(self) -> dict[tuple[str, int], float]:
        """When each (table, game)'s first event stored arrived (the director's clock):
        which of the store's events a game belongs to (``tournament.catalog``)."""
        return {
            (str(t), int(g)): float(r)
            for t, g, r in self._core.rows(
                "SELECT tbl, game, min(received) FROM events GROUP BY tbl, game"
            )
        }

    def ended_games(self, table: str) -> list[EndedGame]:
        """The stored events of ``table`` whose outputs end a game (game_ended), with the
        time the table recorded each (``at``: the hall screen holds results back by it)."""
        out: list[EndedGame] = []
        for game, seq, at, outputs in self._core.rows(
            "SELECT game, seq, at, outputs FROM events WHERE tbl = ? AND outputs LIKE ?"
            " ORDER BY game, seq",
            (table, '%"game_ended"%'),
        ):
            out.append({"game": game, "seq": seq, "at": at, "outputs": json.loads(outputs)})
        return out

    def stored_events(self, table: str, game: int, *, until: float) -> list[GameEvent]:
        """A game's stored events the table recorded at or before ``until`` (in order)."""
        return [
            GameEvent(seq=seq, at=at, input=json.loads(inp), outputs=json.loads(outputs))
            for seq, at, inp, outputs in self._core.rows(
                "SELECT seq, at, input, outputs FROM events WHERE tbl = ? AND game = ? AND at <= ?"
                " ORDER BY seq",
                (table, game, until),
            )
        ]

    def received_marks(self, table: str) -> dict[int, tuple[int, list[int]]]:
        """Per game of ``table`` (docs/feed.md, "Delivery"): the highest seq stored with
        every seq before it stored (0: seq 1 missing), and the seqs stored past the
        first gap."""
        out: dict[int, tuple[int, list[int]]] = {}
        for game, seq in self._core.rows(
            "SELECT game, seq FROM events WHERE tbl = ? ORDER BY game, seq", (table,)
        ):
            high, ahead = out.get(game, (0, []))
            if not ahead and seq == high + 1:
                out[game] = (seq, ahead)
            else:
                ahead.append(seq)
                out[game] = (high, ahead)
        return out


__all__ = ["EndedGame", "EventMessage", "FeedEvents", "GameEvent", "StoredEvent"]
