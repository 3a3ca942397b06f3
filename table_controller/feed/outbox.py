"""The feed's outbox: the event log itself, a cursor of what the broker has taken, and
the director's mark of what is safe.

Nothing is copied into a queue of its own: the log already holds every event in order,
durably, before the table counts it. The outbox keeps, in a small table of its own in
the same SQLite file (``feed_cursor``; the log's own tables are only read), the
(game, seq) of the last event whose messages the broker acknowledged (PUBACK). The
backlog is every logged event after it, in order. A table that lost the broker, or was
killed, sends from the cursor on when it connects again; an event sent twice at worst
(its PUBACK lost) carries the same (table, game, seq), which the director drops.

The broker's PUBACK is not the end of the road: a broker killed (kill -9, a power cut)
forgets what it took since its last save. So the outbox also keeps the director's own
mark (``feed_received``): the last event of the log the director has stored with
nothing missing before it (computed here from the director's per-game marks, checked
against this log). Everything after it is not yet safe, and every connection sends
from it (docs/feed.md, "Delivery").

The rulings the table has answered are kept here too (``feed_rulings``), so a ruling
delivered twice is answered the same way and applied once; one applied but not yet
answered when the table stopped is found in the log's own ``rulings`` (written with
the event that applied it).

The number of the feed's last start is kept too (``feed_boot``): each start takes a
higher one (feed/table_order.py), so the director can tell a message of this start
from an old one sent again, whatever the table's clock says.

The camera's clearer pictures (the log's ``evidence_clear``, one at most an event,
written after it) are read in the order written, with a cursor of their own
(``feed_pictures``): the rowid of the last one the broker acknowledged. An event read
after its clearer picture was written carries that picture itself.

A message's outputs are not stored: they are what the rules make of the logged events,
so the outbox replays each game as it reads it (as resume.py does at start).
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict

from table_controller.errors import TableControllerError
from table_controller.feed.table_order import next_boot
from table_controller.rules.codec import decode_input, encode
from table_controller.rules.errors import RulesError
from table_controller.rules.game import Game
from table_controller.rules.presets import preset
from table_controller.rules.replay import OnError, replay

Position = tuple[int, int]  # (game, seq); (0, 0) is before the first event


class GameSent(TypedDict):
    """What the table's log says a game is played under and by: its preset, options and
    players (seat letter -> name). Sent with the game's first event, so the director
    replays the game under the rules the table played, never a guess of its own."""

    rules: str
    options: dict[str, Any]
    players: dict[str, str]


BUSY_TIMEOUT_MS = 5000

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS feed_cursor (id INTEGER PRIMARY KEY CHECK (id = 1),"
    " game INTEGER NOT NULL, seq INTEGER NOT NULL, at REAL NOT NULL)",
    "CREATE TABLE IF NOT EXISTS feed_rulings (ruling_id TEXT PRIMARY KEY, ok INTEGER NOT NULL,"
    " problem TEXT, at REAL NOT NULL)",
    "CREATE TABLE IF NOT EXISTS feed_received (id INTEGER PRIMARY KEY CHECK (id = 1),"
    " game INTEGER NOT NULL, seq INTEGER NOT NULL, at REAL NOT NULL)",
    "CREATE TABLE IF NOT EXISTS feed_pictures (id INTEGER PRIMARY KEY CHECK (id = 1),"
    " n INTEGER NOT NULL, at REAL NOT NULL)",
    "CREATE TABLE IF NOT EXISTS feed_boot (id INTEGER PRIMARY KEY CHECK (id = 1),"
    " boot INTEGER NOT NULL)",
)


class OutboxError(TableControllerError, RuntimeError):
    """The outbox cannot read the log or keep its cursor; the message says what to do."""


@dataclass(frozen=True)
class Pending:
    """One logged event ready to send: its position, its payload parts, its evidence."""

    game: int
    seq: int
    recorded: float
    source: str
    input: dict[str, Any]  # codec-encoded (secrets are removed by messages.py)
    outputs: list[dict[str, Any]]
    hand: int | None
    evidence: bytes | None
    record: GameSent | None = None  # the game's rules and players: with its first event

    @property
    def position(self) -> Position:
        return (self.game, self.seq)


@dataclass(frozen=True)
class ClearPicture:
    """A clearer picture of event (game, seq)'s card, the ``n``-th written to the log."""

    n: int
    game: int
    seq: int
    picture: bytes

    @property
    def position(self) -> Position:
        return (self.game, self.seq)


class _Replay:
    """One game's rules state, advanced as the outbox reads the game's events."""

    def __init__(self, game_no: int, game: Game | None) -> None:
        self.game_no = game_no
        self.game = game  # None: the game's rules cannot be built (outputs left empty)
        self.seq = 0


class Outbox:
    """The backlog of one table's log. Use it from one thread (the publisher's)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self._conn = sqlite3.connect(
                str(self.path), isolation_level=None, check_same_thread=False
            )
            self._conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            # A cursor lost to a power cut only resends what the director already has.
            self._conn.execute("PRAGMA synchronous = NORMAL")
            names = {r[0] for r in self._conn.execute("SELECT name FROM sqlite_master")}
            if "events" not in names or "games" not in names:
                raise OutboxError(
                    f"{self.path} is not a table's event log: start the table once to "
                    "create it, or check [table] log in the configuration"
                )
            for statement in _SCHEMA:
                self._conn.execute(statement)
        except sqlite3.Error as exc:
            raise OutboxError(
                f"{self.path}: the feed cannot use the event log ({exc}); check the disk"
            ) from None
        self._replay: _Replay | None = None
        self._clear_table = False  # the log has evidence_clear (known once seen)

    # --- the cursor --------------------------------------------------------------------

    def cursor(self) -> Position:
        """The last event the broker acknowledged, in order; (0, 0) before any."""
        row = self._one("SELECT game, seq FROM feed_cursor WHERE id = 1")
        return (int(row[0]), int(row[1])) if row else (0, 0)

    def acknowledge(self, position: Position, at: float) -> None:
        """The broker has every message up to ``position``: move the cursor there
        (forward only: a resend from the director's mark does not move it back)."""
        game, seq = position
        self._exec(
            "INSERT INTO feed_cursor VALUES (1, ?, ?, ?) ON CONFLICT (id) DO UPDATE"
            " SET game = excluded.game, seq = excluded.seq, at = excluded.at"
            " WHERE excluded.game > feed_cursor.game OR (excluded.game = feed_cursor.game"
            " AND excluded.seq > feed_cursor.seq)",
            (game, seq, at),
        )

    # --- the director's mark -----------------------------------------------------------

    def safe(self) -> Position:
        """The last event the director confirmed it holds, with all before it; (0, 0)."""
        row = self._one("SELECT game, seq FROM feed_received WHERE id = 1")
        return (int(row[0]), int(row[1])) if row else (0, 0)

    def confirm(self, position: Position, at: float) -> None:
        """The director's mark, as ``safe_from`` read it (it may go back: the director
        is the judge of what it holds)."""
        game, seq = position
        self._exec(
            "INSERT INTO feed_received VALUES (1, ?, ?, ?) ON CONFLICT (id) DO UPDATE"
            " SET game = excluded.game, seq = excluded.seq, at = excluded.at",
            (game, seq, at),
        )

    def safe_from(self, games: dict[int, int]) -> Position:
        """The director's per-game marks (game -> highest seq held with all before it)
        read against this log: the last logged event the director holds with every
        logged event before it."""
        position: Position = (0, 0)
        for game, last in self._all(
            "SELECT game, max(seq) FROM events GROUP BY game ORDER BY game"
        ):
            held = min(int(games.get(int(game), 0)), int(last))
            if held < 1:
                break
            position = (int(game), held)
            if held < int(last):
                break
        return position

    def backlog(self, after: Position | None = None) -> int:
        """How many logged events come after ``after`` (the cursor by default)."""
        game, seq = self.cursor() if after is None else after
        row = self._one(
            "SELECT count(*) FROM events WHERE game > ? OR (game = ? AND seq > ?)",
            (game, game, seq),
        )
        return int(row[0]) if row else 0

    # --- reading the backlog -----------------------------------------------------------

    def after(self, position: Position, limit: int) -> list[Pending]:
        """Up to ``limit`` logged events after ``position``, in order, with outputs."""
        game, seq = position
        picture, clear = "v.png", ""
        if self._has_clear():  # the clearer picture where the camera took one
            picture = "coalesce(c.png, v.png)"
            clear = " LEFT JOIN evidence_clear c ON c.game = e.game AND c.seq = e.seq"
        rows = self._all(
            f"SELECT e.game, e.seq, e.event, e.source, e.recorded, {picture}"
            " FROM events e LEFT JOIN evidence v ON v.game = e.game AND v.seq = e.seq"
            f"{clear} WHERE e.game > ? OR (e.game = ? AND e.seq > ?)"
            " ORDER BY e.game, e.seq LIMIT ?",
            (game, game, seq, limit),
        )
        return [self._pending(*row) for row in rows]

    # --- the clearer pictures ------------------------------------------------------------

    def pictures_cursor(self) -> int:
        """The last clearer picture the broker acknowledged (its ``n``); 0 before any."""
        row = self._one("SELECT n FROM feed_pictures WHERE id = 1")
        return int(row[0]) if row else 0

    def acknowledge_picture(self, n: int, at: float) -> None:
        """The broker has the clearer picture ``n`` (forward only)."""
        self._exec(
            "INSERT INTO feed_pictures VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE"
            " SET n = excluded.n, at = excluded.at WHERE excluded.n > feed_pictures.n",
            (n, at),
        )

    def pictures_after(self, n: int, limit: int) -> list[ClearPicture]:
        """Up to ``limit`` clearer pictures written after the ``n``-th, in order."""
        if not self._has_clear():
            return []
        rows = self._all(
            "SELECT rowid, game, seq, png FROM evidence_clear WHERE rowid > ?"
            " ORDER BY rowid LIMIT ?",
            (n, limit),
        )
        return [ClearPicture(int(r), int(g), int(s), bytes(p)) for r, g, s, p in rows]

    def _has_clear(self) -> bool:
        """Whether the log has ``evidence_clear`` (a log from before it has not, until a
        table opens it to write)."""
        if not self._clear_table:
            self._clear_table = bool(
                self._all(
                    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'evidence_clear'"
                )
            )
        return self._clear_table

    def _pending(
        self, game: int, seq: int, text: str, source: str, recorded: float, png: Any
    ) -> Pending:
        state = self._replay_at(game, seq)
        outputs: list[dict[str, Any]] = []
        hand: int | None = None
        try:
            encoded = json.loads(text)
            event = decode_input(encoded)
        except (ValueError, TypeError):  # a row edited by hand: sent as written
            encoded = {"event": "unreadable", "text": text}
            event = None
        if state.game is not None and event is not None:
            # One the rules refuse is skipped at the table too (resume.py): no outputs.
            outputs = [encode(o) for o in replay(state.game, [event], OnError.SKIP).outputs]
            current = state.game.hand or state.game.last_hand
            hand = current.number if current is not None else None
        state.seq = seq
        return Pending(
            game=int(game),
            seq=int(seq),
            recorded=float(recorded),
            source=str(source),
            input=encoded if isinstance(encoded, dict) else {"event": "unreadable"},
            outputs=outputs,
            hand=hand,
            evidence=bytes(png) if png is not None else None,
            record=self._record(game) if seq == 1 else None,
        )

    def _record(self, game_no: int) -> GameSent | None:
        row = self._one("SELECT rules, options, players FROM games WHERE game = ?", (game_no,))
        if row is None:
            return None
        options, players = _loaded_json(row[1]), _loaded_json(row[2])
        return GameSent(
            rules=str(row[0]),
            options=dict(options) if isinstance(options, dict) else {},
            players=(
                {str(k): str(v) for k, v in players.items()} if isinstance(players, dict) else {}
            ),
        )

    def _replay_at(self, game_no: int, seq: int) -> _Replay:
        """The game's replay with every event before ``seq`` pushed."""
        state = self._replay
        if state is None or state.game_no != game_no or state.seq >= seq:
            state = self._replay = _Replay(game_no, self._new_game(game_no))
        if state.seq < seq - 1:
            rows = self._all(
                "SELECT seq, event FROM events WHERE game = ? AND seq > ? AND seq < ? ORDER BY seq",
                (game_no, state.seq, seq),
            )
            if state.game is not None:
                # An event the rules refuse (or a row that does not read) was skipped at
                # the table too.
                replay(state.game, [_loaded(text) for _, text in rows], OnError.SKIP)
            if rows:
                state.seq = int(rows[-1][0])
        return state

    def _new_game(self, game_no: int) -> Game | None:
        row = self._one("SELECT rules, options FROM games WHERE game = ?", (game_no,))
        if row is None:
            return None
        try:
            options = json.loads(row[1])
            return Game(preset(str(row[0]), options if isinstance(options, dict) else {}))
        except (ValueError, TypeError, RulesError):
            return None

    # --- the feed's starts ---------------------------------------------------------------

    def start_boot(self, now: float) -> int:
        """A new start of the feed: its number (``table_order.next_boot`` of the last
        one and the clock ``now``), kept before it is used."""
        row = self._one("SELECT boot FROM feed_boot WHERE id = 1")
        boot = next_boot(int(row[0]) if row else None, now)
        # On disk before it is used (the log's other writes may be lost to a power cut:
        # they are sent again; a start's number used twice would refuse the second).
        self._exec("PRAGMA synchronous = FULL", ())
        try:
            self._exec(
                "INSERT INTO feed_boot VALUES (1, ?) ON CONFLICT (id) DO UPDATE"
                " SET boot = excluded.boot",
                (boot,),
            )
        finally:
            self._exec("PRAGMA synchronous = NORMAL", ())
        return boot

    # --- rulings answered ----------------------------------------------------------------

    def answered(self, ruling_id: str) -> tuple[bool, str | None] | None:
        """How the table answered this ruling before (ok, problem), or None."""
        row = self._one("SELECT ok, problem FROM feed_rulings WHERE ruling_id = ?", (ruling_id,))
        if row:
            return (bool(row[0]), row[1])
        # Applied, and the table stopped before its answer was kept: the log says so.
        with contextlib.suppress(OutboxError):  # a log from before rulings were kept
            if self._one("SELECT 1 FROM rulings WHERE ruling_id = ?", (ruling_id,)):
                return (True, None)
        return None

    def answer(self, ruling_id: str, ok: bool, problem: str | None, at: float) -> None:
        self._exec(
            "INSERT OR IGNORE INTO feed_rulings VALUES (?, ?, ?, ?)",
            (ruling_id, int(ok), problem, at),
        )

    # --- SQLite ------------------------------------------------------------------------

    def _one(self, sql: str, params: tuple[Any, ...] = ()) -> Any:
        rows = self._all(sql, params)
        return rows[0] if rows else None

    def _all(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        try:
            return self._conn.execute(sql, params).fetchall()
        except sqlite3.Error as exc:
            raise OutboxError(f"{self.path}: the feed cannot read the log ({exc})") from None

    def _exec(self, sql: str, params: tuple[Any, ...]) -> None:
        try:
            self._conn.execute(sql, params)
        except sqlite3.Error as exc:
            raise OutboxError(
                f"{self.path}: the feed cannot record what was sent ({exc}); check the disk"
            ) from None

    def close(self) -> None:
        self._conn.close()


def _loaded_json(text: str) -> Any:
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return None


def _loaded(text: str) -> Any:
    """A logged row's JSON; one that does not parse is left for the replay to skip."""
    try:
        return json.loads(text)
    except (ValueError, TypeError):
        return None


__all__ = ["ClearPicture", "Outbox", "OutboxError", "Pending", "Position"]
