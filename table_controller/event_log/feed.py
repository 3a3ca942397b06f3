"""``FeedLog``: the feed's side of the file. The outbox reads the log through it, on a
connection of its own, and keeps its marks (what was sent, what the director confirmed,
the clearer pictures and rulings answered) in small tables beside the log's."""

from __future__ import annotations

import logging
import sqlite3
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from table_controller.errors import TableControllerError
from table_controller.event_log.file import BUSY_TIMEOUT_MS

logger = logging.getLogger(__name__)


# --- the feed's side of the file ----------------------------------------------------------

# The feed's own marks, kept in small tables of the same file beside the log's (which it
# only reads): see FeedLog.
_FEED_SCHEMA = (
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


class FeedLogError(TableControllerError, RuntimeError):
    """The feed cannot read the log or keep its marks beside it; the message says what
    to do. (Not a ``LogError``: the table goes on logging while its feed is stopped.)"""


class Mark(NamedTuple):
    """A (game, seq) the feed keeps: how far the broker, or the director, has the log."""

    game: int
    seq: int


class GameLast(NamedTuple):
    """A logged game and the number of its last event."""

    game: int
    last: int


class GameRow(NamedTuple):
    """A ``games`` row as written: the options and players still JSON text, read
    leniently by the feed (a row edited by hand is sent as it reads, never refused)."""

    rules: str
    options: str
    players: str


class EventRow(NamedTuple):
    """A logged event as the feed sends it: the event still its JSON text, and its
    picture (the clearer one where the camera took one), or None."""

    game: int
    seq: int
    event: str
    source: str
    recorded: float
    picture: bytes | None


class EventText(NamedTuple):
    """A logged event's number and JSON text, for the feed's replay of its game."""

    seq: int
    event: str


@dataclass(frozen=True)
class ClearPicture:
    """A clearer picture of event (game, seq)'s card, the ``n``-th written to the log."""

    n: int
    game: int
    seq: int
    picture: bytes

    @property
    def position(self) -> tuple[int, int]:
        return (self.game, self.seq)


class RulingAnswer(NamedTuple):
    """How the table answered a director's ruling: applied or not, and why not."""

    ok: bool
    problem: str | None


class FeedLog:
    """The feed's own connection to a table's log file: what its outbox reads of the
    log, and the marks it keeps beside it (``feed_cursor``: the broker's; ``feed_received``:
    the director's; ``feed_pictures``: the broker's of the clearer pictures; ``feed_boot``:
    the feed's last start; ``feed_rulings``: the rulings answered). docs/feed.md,
    "Delivery", says what each is for.

    The feed runs in a thread of its own, so it keeps a connection of its own, in
    autocommit (each statement its own transaction), with ``synchronous = NORMAL``: a
    mark lost to a power cut only sends again what the director already has. The log's
    own tables are only read here; the table alone writes them (``EventLog``). Use it
    from one thread."""

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
                raise FeedLogError(
                    f"{self.path} is not a table's event log: start the table once to "
                    "create it, or check [table] log in the configuration"
                )
            for statement in _FEED_SCHEMA:
                self._conn.execute(statement)
        except sqlite3.Error as exc:
            raise FeedLogError(
                f"{self.path}: the feed cannot use the event log ({exc}); check the disk"
            ) from None
        self._clear_table = False  # the log has evidence_clear (known once seen)

    # --- the broker's mark ----------------------------------------------------------------

    def sent_mark(self) -> Mark | None:
        """The last event the broker acknowledged, in order; None before any."""
        row = self._one("SELECT game, seq FROM feed_cursor WHERE id = 1")
        return Mark(int(row[0]), int(row[1])) if row else None

    def keep_sent_mark(self, game: int, seq: int, at: float) -> None:
        """Move the broker's mark to (game, seq), forward only."""
        self._exec(
            "INSERT INTO feed_cursor VALUES (1, ?, ?, ?) ON CONFLICT (id) DO UPDATE"
            " SET game = excluded.game, seq = excluded.seq, at = excluded.at"
            " WHERE excluded.game > feed_cursor.game OR (excluded.game = feed_cursor.game"
            " AND excluded.seq > feed_cursor.seq)",
            (game, seq, at),
        )

    # --- the director's mark --------------------------------------------------------------

    def received_mark(self) -> Mark | None:
        """The director's mark as last kept; None before any."""
        row = self._one("SELECT game, seq FROM feed_received WHERE id = 1")
        return Mark(int(row[0]), int(row[1])) if row else None

    def keep_received_mark(self, game: int, seq: int, at: float) -> None:
        """Keep the director's mark (it may go back: the director judges what it holds)."""
        self._exec(
            "INSERT INTO feed_received VALUES (1, ?, ?, ?) ON CONFLICT (id) DO UPDATE"
            " SET game = excluded.game, seq = excluded.seq, at = excluded.at",
            (game, seq, at),
        )

    # --- the log's events -----------------------------------------------------------------

    def last_events(self) -> list[GameLast]:
        """Each logged game with the number of its last event, in order of games."""
        rows = self._all("SELECT game, max(seq) FROM events GROUP BY game ORDER BY game")
        return [GameLast(int(game), int(last)) for game, last in rows]

    def count_after(self, game: int, seq: int) -> int:
        """How many logged events come after (game, seq)."""
        row = self._one(
            "SELECT count(*) FROM events WHERE game > ? OR (game = ? AND seq > ?)",
            (game, game, seq),
        )
        return int(row[0]) if row else 0

    def events_after(self, game: int, seq: int, limit: int) -> list[EventRow]:
        """Up to ``limit`` logged events after (game, seq), in order, each with its
        picture: the clearer one where the camera took one."""
        picture, clear = "v.png", ""
        if self._has_clear():
            picture = "coalesce(c.png, v.png)"
            clear = " LEFT JOIN evidence_clear c ON c.game = e.game AND c.seq = e.seq"
        rows = self._all(
            f"SELECT e.game, e.seq, e.event, e.source, e.recorded, {picture}"
            " FROM events e LEFT JOIN evidence v ON v.game = e.game AND v.seq = e.seq"
            f"{clear} WHERE e.game > ? OR (e.game = ? AND e.seq > ?)"
            " ORDER BY e.game, e.seq LIMIT ?",
            (game, game, seq, limit),
        )
        return [
            EventRow(
                int(g),
                int(s),
                text,
                str(source),
                float(recorded),
                bytes(png) if png is not None else None,
            )
            for g, s, text, source, recorded, png in rows
        ]

    def event_texts(self, game: int, after: int, before: int) -> list[EventText]:
        """The game's events numbered between ``after`` and ``before`` (both left out),
        in order, as written."""
        rows = self._all(
            "SELECT seq, event FROM events WHERE game = ? AND seq > ? AND seq < ? ORDER BY seq",
            (game, after, before),
        )
        return [EventText(int(seq), text) for seq, text in rows]

    def game_row(self, game: int) -> GameRow | None:
        """The game's rules, options and players as written; None for no such game."""
        row = self._one("SELECT rules, options, players FROM games WHERE game = ?", (game,))
        return GameRow(str(row[0]), row[1], row[2]) if row is not None else None

    # --- the clearer pictures -------------------------------------------------------------

    def pictures_mark(self) -> int | None:
        """The last clearer picture the broker acknowledged (its ``n``); None before any."""
        row = self._one("SELECT n FROM feed_pictures WHERE id = 1")
        return int(row[0]) if row else None

    def keep_pictures_mark(self, n: int, at: float) -> None:
        """The broker has the clearer picture ``n`` (forward only)."""
        self._exec(
            "INSERT INTO feed_pictures VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE"
            " SET n = excluded.n, at = excluded.at WHERE excluded.n > feed_pictures.n",
            (n, at),
        )

    def clear_pictures_after(self, n: int, limit: int) -> list[ClearPicture]:
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

    # --- the feed's starts ----------------------------------------------------------------

    def last_boot(self) -> int | None:
        """The number of the feed's last start; None before the first."""
        row = self._one("SELECT boot FROM feed_boot WHERE id = 1")
        return int(row[0]) if row else None

    def keep_boot(self, boot: int) -> None:
        """Keep a start's number, on disk before this returns (the other marks may be
        lost to a power cut: they are sent again; a start's number used twice would
        refuse the second)."""
        self._exec("PRAGMA synchronous = FULL", ())
        try:
            self._exec(
                "INSERT INTO feed_boot VALUES (1, ?) ON CONFLICT (id) DO UPDATE"
                " SET boot = excluded.boot",
                (boot,),
            )
        finally:
            self._exec("PRAGMA synchronous = NORMAL", ())

    # --- rulings answered -----------------------------------------------------------------

    def answer_kept(self, ruling_id: str) -> RulingAnswer | None:
        """How the table answered this ruling, as kept; None if no answer is."""
        row = self._one("SELECT ok, problem FROM feed_rulings WHERE ruling_id = ?", (ruling_id,))
        return RulingAnswer(bool(row[0]), row[1]) if row else None

    def ruling_logged(self, ruling_id: str) -> bool:
        """Whether the log holds the event that applied this ruling (written with it);
        False for a log from before rulings were kept."""
        with suppress(FeedLogError):
            if self._one("SELECT 1 FROM rulings WHERE ruling_id = ?", (ruling_id,)):
                return True
        return False

    def keep_answer(self, ruling_id: str, ok: bool, problem: str | None, at: float) -> None:
        """Keep the table's answer to a ruling; the first kept stands."""
        self._exec(
            "INSERT OR IGNORE INTO feed_rulings VALUES (?, ?, ?, ?)",
            (ruling_id, int(ok), problem, at),
        )

    # --- SQLite ---------------------------------------------------------------------------

    def _one(self, sql: str, params: tuple[Any, ...] = ()) -> Any:
        rows = self._all(sql, params)
        return rows[0] if rows else None

    def _all(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        try:
            return self._conn.execute(sql, params).fetchall()
        except sqlite3.Error as exc:
            raise FeedLogError(f"{self.path}: the feed cannot read the log ({exc})") from None

    def _exec(self, sql: str, params: tuple[Any, ...]) -> None:
        try:
            self._conn.execute(sql, params)
        except sqlite3.Error as exc:
            raise FeedLogError(
                f"{self.path}: the feed cannot record what was sent ({exc}); check the disk"
            ) from None

    def close(self) -> None:
        self._conn.close()
