"""The event log: every input event the table accepted, in order, in one SQLite file.

The log is the table's memory. An event is written (committed and fsync'd) before the
table acts on it, so whatever the lights, the cube or the page showed can be rebuilt by
replaying the log; a table that restarts replays its last game and resumes mid-hand.

One file holds one table's games: a ``games`` row per game (its rules and players), an
append-only stream of ``events`` keyed by (game, seq), the camera's ``evidence`` images
(and, in ``evidence_clear``, the clearer picture the camera took of a card once the hand
had left it, which stands for the first) and the devices' ``faults``. Triggers refuse
every UPDATE and DELETE, so not even a stray write can change history. A file that is
not a table-controller log, is damaged, was written by a newer version or belongs to
another table is refused with a ``LogError`` saying what to do, and is left exactly as
it was. docs/event-log.md describes the file.

It sits below the table and the feed (the table writes it, the feed's outbox sends from
it, the feed's load generator writes it as a table would), so neither imports the other.
The feed reads it through ``FeedLog``, a connection of its own that also keeps the
feed's marks in small tables beside the log's (``feed_*``), so this module alone knows
the file's tables.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import stat
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, NamedTuple

from table_controller import __version__
from table_controller.errors import TableControllerError
from table_controller.rules.codec import decode_input, encode
from table_controller.rules.errors import RulesError
from table_controller.rules.events import InputEvent
from table_controller.rules.presets import preset
from table_controller.safe_json import loads_limited
from table_controller.seats import Seat

logger = logging.getLogger(__name__)

LOG_FORMAT = "table-controller-log/1"
PRIVATE = 0o600  # the log and its side files: its owner's only (players' names, a game)
SIDE_FILES = ("-wal", "-shm", "-journal")
SCHEMA_VERSION = 1  # PRAGMA user_version; LOG_FORMAT's number
APPLICATION_ID = 0x54434C47  # "TCLG" in the SQLite header: a table-controller log
SOURCES = ("camera", "button", "cube", "page", "operator", "director", "sim", "kiosk", "bot")
BUSY_TIMEOUT_MS = 5000

_SQLITE_MAGIC = b"SQLite format 3\x00"
_TABLES = ("meta", "games", "events", "evidence", "faults")
_SCHEMA = (
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE games (game INTEGER PRIMARY KEY, rules TEXT NOT NULL,"
    " options TEXT NOT NULL, players TEXT NOT NULL, started REAL NOT NULL)",
    "CREATE TABLE events (game INTEGER NOT NULL REFERENCES games (game),"
    " seq INTEGER NOT NULL, event TEXT NOT NULL, source TEXT NOT NULL,"
    " recorded REAL NOT NULL, PRIMARY KEY (game, seq)) WITHOUT ROWID",
    "CREATE TABLE evidence (game INTEGER NOT NULL, seq INTEGER NOT NULL, png BLOB NOT NULL,"
    " PRIMARY KEY (game, seq), FOREIGN KEY (game, seq) REFERENCES events (game, seq))",
    "CREATE TABLE faults (at REAL NOT NULL, device TEXT NOT NULL, problem TEXT, fix TEXT NOT NULL)",
    *(
        f"CREATE TRIGGER {table}_no_{verb.lower()} BEFORE {verb} ON {table} BEGIN"
        f" SELECT RAISE(ABORT, 'the event log is append-only: {table} cannot be changed');"
        " END"
        for table in _TABLES
        for verb in ("UPDATE", "DELETE")
    ),
)

# The director's rulings applied, each with the event that applied it, written in the same
# transaction as that event: a ruling sent again after a crash is never applied twice.
# Created on open, so a log from before it is kept as it is until a table writes to it.
_RULINGS = (
    "CREATE TABLE IF NOT EXISTS rulings (ruling_id TEXT PRIMARY KEY, game INTEGER NOT NULL,"
    " seq INTEGER NOT NULL, FOREIGN KEY (game, seq) REFERENCES events (game, seq))",
    *(
        f"CREATE TRIGGER IF NOT EXISTS rulings_no_{verb.lower()} BEFORE {verb} ON rulings"
        " BEGIN SELECT RAISE(ABORT, 'the event log is append-only: rulings cannot be changed');"
        " END"
        for verb in ("UPDATE", "DELETE")
    ),
)

# The camera's clearer picture of a card, taken once the hand that laid it had left it
# (vision/evidence.py): at most one an event, written after the event and read in place
# of its first picture, which stays (the log only grows). Created on open, as rulings.
_CLEAR = (
    "CREATE TABLE IF NOT EXISTS evidence_clear (game INTEGER NOT NULL, seq INTEGER NOT NULL,"
    " png BLOB NOT NULL, recorded REAL NOT NULL, PRIMARY KEY (game, seq),"
    " FOREIGN KEY (game, seq) REFERENCES evidence (game, seq))",
    *(
        f"CREATE TRIGGER IF NOT EXISTS evidence_clear_no_{verb.lower()} BEFORE {verb}"
        " ON evidence_clear BEGIN SELECT RAISE(ABORT, 'the event log is append-only:"
        " evidence_clear cannot be changed'); END"
        for verb in ("UPDATE", "DELETE")
    ),
)


class LogError(TableControllerError, RuntimeError):
    """What is wrong with the log and what to do; a refused file is left untouched.
    ``game`` and ``seq`` name the event concerned, where there is one."""

    def __init__(self, message: str, *, game: int | None = None, seq: int | None = None):
        super().__init__(message)
        self.game = game
        self.seq = seq


class LogConflict(LogError):
    """The (game, seq) is already written: someone else wrote this game's next event."""


@dataclass(frozen=True)
class GameRecord:
    game: int
    rules_name: str
    options: dict[str, Any]
    players: dict[Seat, str]
    started: float  # wall clock (Unix time)


@dataclass(frozen=True)
class LoggedEvent:
    game: int
    seq: int
    event: InputEvent
    source: str
    recorded: float  # wall clock (Unix time)
    has_evidence: bool


class EventLog:
    """One table's log file. Safe to share between threads (one lock, one connection)."""

    table: str
    path: Path

    def __init__(self, path: str | Path, *, table: str, create: bool = True) -> None:
        if not table.strip():
            raise LogError("the table has no name: give it one (config [table] name)")
        self._open(Path(path), table=table, create=create, read_only=False)

    @classmethod
    def open_existing(cls, path: str | Path) -> EventLog:
        """An existing log, read-only (for export and checks): never creates or changes it."""
        log = cls.__new__(cls)
        log._open(Path(path), table=None, create=False, read_only=True)
        return log

    # --- opening --------------------------------------------------------------------

    def _open(self, path: Path, *, table: str | None, create: bool, read_only: bool) -> None:
        self.path = path
        self.read_only = read_only
        self._lock = threading.Lock()
        self._clear_table = False  # the file has evidence_clear (known once seen)
        if not path.exists():
            if not create:
                raise LogError(f"{path}: no such log file; check the path")
            assert table is not None
            _create(path, table)
        if not read_only:
            _tighten(path)
        found = _check(path)
        if table is not None and found != table:
            raise LogError(
                f"{path} is the log of table {found!r}, not {table!r}: give each table its "
                "own log file ([table] log in its config), or use this table's name"
            )
        self.table = found
        try:
            if read_only:
                self._conn = _connect_read_only(path)
            else:
                self._conn = sqlite3.connect(
                    path, isolation_level=None, check_same_thread=False, timeout=5
                )
                self._conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
                mode = self._conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
                if mode != "wal":
                    raise sqlite3.OperationalError(f"journal mode {mode}, not wal")
                self._conn.execute("PRAGMA synchronous = FULL")
                self._conn.execute("PRAGMA foreign_keys = ON")
                for statement in (*_RULINGS, *_CLEAR):  # a log from before them
                    self._conn.execute(statement)
        except sqlite3.Error as exc:
            raise LogError(f"{path}: cannot be opened ({exc}); {_DISK_FIX}") from None

    # --- writing --------------------------------------------------------------------

    def start_game(
        self,
        rules_name: str,
        options: Mapping[str, Any],
        players: Mapping[Seat, str],
        *,
        started: float | None = None,
    ) -> int:
        """A new game under a rule preset; its number (1 for the log's first)."""
        try:
            preset(rules_name, options)
        except RulesError as exc:
            raise LogError(f"cannot start a game: {exc}") from None
        try:
            options_json = json.dumps(dict(options), sort_keys=True)
        except (TypeError, ValueError) as exc:
            raise LogError(f"cannot start a game: the rule options are not JSON ({exc})") from None
        players_json = json.dumps({Seat(s).name: str(n) for s, n in players.items()})
        when = time.time() if started is None else started
        with self._write("start a game") as conn:
            (last,) = conn.execute("SELECT coalesce(max(game), 0) FROM games").fetchone()
            game = int(last) + 1
            conn.execute(
                "INSERT INTO games VALUES (?, ?, ?, ?, ?)",
                (game, rules_name, options_json, players_json, when),
            )
        return game

    def append(
        self,
        game: int,
        seq: int,
        event: InputEvent,
        *,
        source: str,
        evidence: bytes | None = None,
        recorded: float | None = None,
        ruling_id: str | None = None,
    ) -> None:
        """Write the game's event ``seq`` (``next_seq(game)``); committed and fsync'd when
        this returns. ``LogConflict`` if it is taken; ``LogError`` if it cannot be written
        (nothing of it is then written). ``ruling_id``: the director's ruling it applies,
        kept with it (``ruling_applied``)."""
        if source not in SOURCES:
            raise LogError(f"unknown event source {source!r}: one of " + ", ".join(SOURCES))
        try:
            text = json.dumps(encode(event))
        except TypeError as exc:
            raise LogError(f"{event!r} cannot be written: {exc}") from None
        when = time.time() if recorded is None else recorded
        with self._write(f"record game {game}'s event {seq}") as conn:
            if conn.execute("SELECT 1 FROM games WHERE game = ?", (game,)).fetchone() is None:
                raise LogError(f"{self.path} has no game {game}: start_game() first")
            (last,) = conn.execute(
                "SELECT coalesce(max(seq), 0) FROM events WHERE game = ?", (game,)
            ).fetchone()
            if seq <= last:
                raise LogConflict(
                    f"game {game}'s event {seq} is already in {self.path}: another program "
                    "is writing this table's log; run one table per log file"
                )
            if seq != last + 1:
                raise LogError(
                    f"game {game}'s next event is {last + 1}, not {seq}: events are "
                    "numbered without gaps (use next_seq)"
                )
            conn.execute(
                "INSERT INTO events VALUES (?, ?, ?, ?, ?)", (game, seq, text, source, when)
            )
            if evidence is not None:
                conn.execute("INSERT INTO evidence VALUES (?, ?, ?)", (game, seq, evidence))
            if ruling_id is not None:
                conn.execute("INSERT INTO rulings VALUES (?, ?, ?)", (ruling_id, game, seq))

    def replace_evidence(
        self, game: int, seq: int, picture: bytes, *, recorded: float | None = None
    ) -> None:
        """Keep the camera's clearer ``picture`` of event ``seq``'s card, read from now
        on in place of the picture logged with it (which stays in ``evidence``: the log
        only grows). Committed and fsync'd when this returns. ``LogError`` if the event
        has no picture to replace, or was given its clearer one already (one at most)."""
        when = time.time() if recorded is None else recorded
        with self._write(f"record the clearer picture of game {game}'s event {seq}") as conn:
            if (
                conn.execute(
                    "SELECT 1 FROM evidence WHERE game = ? AND seq = ?", (game, seq)
                ).fetchone()
                is None
            ):
                raise LogError(
                    f"game {game}'s event {seq} has no picture in {self.path}: a clearer "
                    "one replaces only the picture logged with its event",
                    game=game,
                    seq=seq,
                )
            if (
                conn.execute(
                    "SELECT 1 FROM evidence_clear WHERE game = ? AND seq = ?", (game, seq)
                ).fetchone()
                is not None
            ):
                raise LogConflict(
                    f"game {game}'s event {seq} has its clearer picture already: one at most",
                    game=game,
                    seq=seq,
                )
            conn.execute(
                "INSERT INTO evidence_clear VALUES (?, ?, ?, ?)", (game, seq, picture, when)
            )

    def ruling_applied(self, ruling_id: str) -> tuple[int, int] | None:
        """The (game, seq) of the event that applied this ruling, or None."""
        try:
            rows = self._read("SELECT game, seq FROM rulings WHERE ruling_id = ?", (ruling_id,))
        except LogError:
            return None  # an old log, opened read-only: it has no rulings table
        return (int(rows[0][0]), int(rows[0][1])) if rows else None

    def record_fault(self, device: str, problem: str | None, fix: str, at: float) -> None:
        """A device's fault raised (or, with ``problem`` None, cleared) at wall time ``at``."""
        with self._write("record a fault") as conn:
            conn.execute("INSERT INTO faults VALUES (?, ?, ?, ?)", (at, device, problem, fix))

    @contextmanager
    def _write(self, doing: str) -> Iterator[sqlite3.Connection]:
        """One transaction, committed (and, with synchronous=FULL, fsync'd) on exit."""
        if self.read_only:
            raise LogError(f"{self.path} was opened read-only (for export): cannot {doing}")
        with self._lock:
            conn = self._conn
            try:
                conn.execute("BEGIN IMMEDIATE")
                yield conn
                conn.execute("COMMIT")
            except BaseException as exc:
                if conn.in_transaction:
                    with suppress(sqlite3.Error):  # the failed write may have rolled back
                        conn.execute("ROLLBACK")
                if isinstance(exc, sqlite3.Error):
                    raise LogError(_write_problem(self.path, doing, exc)) from None
                raise

    # --- reading --------------------------------------------------------------------

    def games(self) -> list[GameRecord]:
        rows = self._read("SELECT * FROM games ORDER BY game")
        return [self._game_record(r) for r in rows]

    def game(self, game: int) -> GameRecord:
        rows = self._read("SELECT * FROM games WHERE game = ?", (game,))
        if not rows:
            have = [g.game for g in self.games()]
            known = f"games {have[0]} to {have[-1]}" if have else "no games yet"
            raise LogError(f"{self.path} has no game {game} ({known})")
        return self._game_record(rows[0])

    def last_game(self) -> GameRecord | None:
        rows = self._read("SELECT * FROM games ORDER BY game DESC LIMIT 1")
        return self._game_record(rows[0]) if rows else None

    def next_seq(self, game: int) -> int:
        rows = self._read("SELECT coalesce(max(seq), 0) FROM events WHERE game = ?", (game,))
        return int(rows[0][0]) + 1

    def events(self, game: int) -> list[LoggedEvent]:
        """The game's events in order; a row that no longer decodes is a ``LogError``."""
        events, problems = self.readable_events(game)
        if problems:
            raise problems[0]
        return events

    def readable_events(self, game: int) -> tuple[list[LoggedEvent], list[LogError]]:
        """The events that decode, and a ``LogError`` for each that does not (a row
        edited by hand): export and check go on past a bad row."""
        rows = self._read(
            "SELECT e.game, e.seq, e.event, e.source, e.recorded, v.seq IS NOT NULL"
            " FROM events e LEFT JOIN evidence v ON v.game = e.game AND v.seq = e.seq"
            " WHERE e.game = ? ORDER BY e.seq",
            (game,),
        )
        events: list[LoggedEvent] = []
        problems: list[LogError] = []
        for g, seq, text, source, recorded, has_evidence in rows:
            try:
                event = decode_input(loads_limited(text))
            except (ValueError, TypeError) as exc:  # JSONLimitError, CodecError
                why = str(exc)
                problems.append(
                    LogError(
                        f"{self.path}: game {g}, event {seq} cannot be read ({why}); "
                        "the log was changed outside table-controller: restore it from a "
                        "backup, or export the game without that event",
                        game=g,
                        seq=seq,
                    )
                )
                continue
            events.append(LoggedEvent(g, seq, event, source, recorded, bool(has_evidence)))
        return events, problems

    def evidence(self, game: int, seq: int) -> bytes | None:
        """The picture of event ``seq``: the clearer one where the camera took one, else
        the one logged with the event; None when it has none."""
        if self._has_clear():
            rows = self._read(
                "SELECT coalesce(c.png, v.png) FROM evidence v LEFT JOIN evidence_clear c"
                " ON c.game = v.game AND c.seq = v.seq WHERE v.game = ? AND v.seq = ?",
                (game, seq),
            )
            return bytes(rows[0][0]) if rows else None
        return self.first_evidence(game, seq)

    def first_evidence(self, game: int, seq: int) -> bytes | None:
        """The picture logged with event ``seq`` itself, even where a clearer one came."""
        rows = self._read("SELECT png FROM evidence WHERE game = ? AND seq = ?", (game, seq))
        return bytes(rows[0][0]) if rows else None

    def clear_evidence(self, game: int, seq: int) -> bytes | None:
        """The clearer picture of event ``seq``, if the camera took one."""
        if not self._has_clear():
            return None
        rows = self._read("SELECT png FROM evidence_clear WHERE game = ? AND seq = ?", (game, seq))
        return bytes(rows[0][0]) if rows else None

    def _has_clear(self) -> bool:
        """Whether the file has ``evidence_clear`` (a log opened read-only from before
        it may not; one opened to write always has)."""
        if not self._clear_table:
            rows = self._read(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'evidence_clear'"
            )
            self._clear_table = bool(rows)
        return self._clear_table

    def faults(self) -> list[tuple[float, str, str | None, str]]:
        """(at, device, problem or None for cleared, fix), in the order recorded."""
        rows = self._read("SELECT at, device, problem, fix FROM faults ORDER BY rowid")
        return [(float(a), str(d), p, str(f)) for a, d, p, f in rows]

    def integrity_problems(self) -> list[str]:
        """SQLite's full integrity check: empty when the file is sound."""
        rows = self._read("PRAGMA integrity_check")
        found = [str(r[0]) for r in rows]
        return [] if found == ["ok"] else found

    def _read(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        with self._lock:
            try:
                return self._conn.execute(sql, params).fetchall()
            except sqlite3.Error as exc:
                raise LogError(f"{self.path}: cannot be read ({exc}); {_DISK_FIX}") from None

    def _game_record(self, row: Any) -> GameRecord:
        game, rules, options, players, started = row
        try:
            opts = loads_limited(options)
            seats = {Seat.parse(k): str(v) for k, v in loads_limited(players).items()}
            if not isinstance(opts, dict):
                raise ValueError("the options are not a JSON object")
        except (ValueError, AttributeError) as exc:
            raise LogError(
                f"{self.path}: game {game}'s rules or players cannot be read ({exc}); "
                "the log was changed outside table-controller: restore it from a backup"
            ) from None
        return GameRecord(int(game), str(rules), opts, seats, float(started))

    # --- closing --------------------------------------------------------------------

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> EventLog:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


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


_DISK_FIX = "check the disk (is it full, read-only or unplugged?) and the file's permissions"


def _write_problem(path: Path, doing: str, exc: sqlite3.Error) -> str:
    text = str(exc)
    if "full" in text:
        why = "the disk is full: free some space (old logs can be copied elsewhere)"
    elif "readonly" in text or "read-only" in text:
        why = "the file or its folder is read-only: make it writable"
    elif "locked" in text or "busy" in text:
        why = "another program holds the log: close it (only one table may write a log)"
    else:
        why = _DISK_FIX
    return f"{path}: cannot {doing} ({text}); nothing of it was written; {why}"


def _create(path: Path, table: str) -> None:
    """A new, empty log, built under a temporary name and moved into place whole, so a
    crash while creating never leaves a half-made log at ``path``."""
    temp = path.with_name(f".{path.name}.creating-{os.getpid()}")
    try:
        if not path.parent.exists():  # a folder the table makes: its owner's only
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        for leftover in (temp, *(Path(f"{temp}{side}") for side in SIDE_FILES)):
            leftover.unlink(missing_ok=True)
        # The file made 0600 before SQLite opens it: SQLite gives its -journal, -wal and
        # -shm files the mode of the database file, so they are private from birth too.
        os.close(os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE))
        conn = sqlite3.connect(temp, isolation_level=None)
        try:
            # Header fields first, in rollback mode, so the file's own header says what it
            # is even before the first checkpoint of the write-ahead log.
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            conn.execute("PRAGMA synchronous = FULL")
            conn.execute("BEGIN")
            for statement in _SCHEMA:
                conn.execute(statement)
            conn.executemany(
                "INSERT INTO meta VALUES (?, ?)",
                [
                    ("format", LOG_FORMAT),
                    ("table", table),
                    ("created", repr(time.time())),
                    ("software", f"table-controller {__version__}"),
                ],
            )
            conn.execute("COMMIT")
            conn.execute("PRAGMA journal_mode = WAL")
        finally:
            conn.close()
        _fsync(temp)
        try:
            os.link(temp, path)  # fails if another process made the log meanwhile
            temp.unlink()
        except FileExistsError:
            temp.unlink()
        except OSError:  # no hard links (a FAT USB stick): move it instead
            if path.exists():
                temp.unlink()
            else:
                os.replace(temp, path)
        _fsync(path.parent)
    except (OSError, sqlite3.Error) as exc:
        with suppress(OSError):
            temp.unlink(missing_ok=True)
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise LogError(
            f"cannot create the log {path} ({why}): choose a folder that exists and "
            "can be written ([table] log in the config), or free some disk space"
        ) from None


def _tighten(path: Path) -> None:
    """A log (or a side file) that others may read, from before logs were made 0600 or
    copied in with a looser mode: made its owner's only, and said in the log, since the
    log holds the players' names and every game."""
    for file in (path, *(Path(f"{path}{side}") for side in SIDE_FILES)):
        try:
            mode = stat.S_IMODE(file.stat().st_mode)
            if mode & 0o077:
                file.chmod(mode & 0o700 or PRIVATE)
                logger.warning(
                    "%s could be read by other users of this machine (mode %o): made its "
                    "owner's only (%o)",
                    file,
                    mode,
                    mode & 0o700 or PRIVATE,
                )
        except FileNotFoundError:
            continue
        except OSError as exc:  # another user's file, or a FAT stick: said, not fatal
            logger.warning(
                "%s can be read by other users of this machine and cannot be made "
                "private (%s): run `chmod 600 %s` as its owner, or keep it on a disk "
                "with file modes",
                file,
                exc.strerror or exc,
                file,
            )


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _check(path: Path) -> str:
    """The table a log belongs to, after checking it is a sound log of this format;
    ``LogError`` otherwise. Reads only: the file is never changed here."""
    refuse = "it is left untouched: give the table another log file, or move this one away"
    if path.is_dir():
        raise LogError(f"{path} is a folder: give the log a file name such as table.sqlite")
    try:
        with path.open("rb") as fh:
            header = fh.read(100)
    except OSError as exc:
        raise LogError(f"{path}: cannot be read ({exc.strerror}); {_DISK_FIX}") from None
    if not header:
        raise LogError(f"{path} is an empty file, not a table-controller log; {refuse}")
    if len(header) < 100 or not header.startswith(_SQLITE_MAGIC):
        raise LogError(f"{path} is not a table-controller log (not a SQLite file); {refuse}")
    app_id = int.from_bytes(header[68:72], "big")
    version = int.from_bytes(header[60:64], "big")
    if app_id != APPLICATION_ID:
        raise LogError(f"{path} is an SQLite database but not a table-controller log; {refuse}")
    if version > SCHEMA_VERSION:
        raise LogError(
            f"{path} was written by a newer table-controller (log format {version}; this "
            f"version reads {SCHEMA_VERSION}): upgrade table-controller to open it"
        )
    try:
        conn = _connect_read_only(path)
        try:
            problems = [str(r[0]) for r in conn.execute("PRAGMA quick_check").fetchall()]
            if problems != ["ok"]:
                raise sqlite3.DatabaseError("; ".join(problems[:3]))
            names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
            missing = [t for t in _TABLES if t not in names]
            if missing:
                raise sqlite3.DatabaseError("no table " + ", ".join(missing))
            meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        finally:
            conn.close()
    except sqlite3.Error as exc:
        raise LogError(
            f"{path} is damaged ({exc}): it is left untouched; restore it from a backup, "
            "and give the table a new log file meanwhile"
        ) from None
    if meta.get("format") != LOG_FORMAT:
        raise LogError(
            f"{path} is in log format {meta.get('format')!r}, not {LOG_FORMAT!r}: "
            "upgrade table-controller to open it"
        )
    table = meta.get("table")
    if not table:
        raise LogError(f"{path} does not say which table it belongs to; {refuse}")
    return str(table)


def _connect_read_only(path: Path) -> sqlite3.Connection:
    """A read-only connection. A log closed cleanly (no -wal file) is opened immutable,
    which creates no -wal/-shm files beside it; one in use or after a crash is opened
    mode=ro, which reads its write-ahead log too."""
    from urllib.parse import quote

    uri = "file:" + quote(str(path.resolve()))
    wal = Path(f"{path}-wal")
    uri += "?mode=ro" if wal.exists() else "?immutable=1"
    conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    return conn
