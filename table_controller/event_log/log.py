"""``EventLog``: the table's own side of the file. It writes every accepted input event
(committed and fsync'd before the table acts on it), the camera's evidence, rulings and
faults, and reads them back to replay a game."""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from table_controller.event_log.file import (
    BUSY_TIMEOUT_MS,
    CLEAR_SCHEMA,
    DISK_FIX,
    RULINGS_SCHEMA,
    SOURCES,
    LogConflict,
    LogError,
    check_file,
    connect_read_only,
    create_file,
    tighten,
    write_problem,
)
from table_controller.rules.codec import decode_input, encode
from table_controller.rules.errors import RulesError
from table_controller.rules.events import InputEvent
from table_controller.rules.presets import preset
from table_controller.safe_json import loads_limited
from table_controller.seats import Seat

logger = logging.getLogger(__name__)


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
            create_file(path, table)
        if not read_only:
            tighten(path)
        found = check_file(path)
        if table is not None and found != table:
            raise LogError(
                f"{path} is the log of table {found!r}, not {table!r}: give each table its "
                "own log file ([table] log in its config), or use this table's name"
            )
        self.table = found
        try:
            if read_only:
                self._conn = connect_read_only(path)
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
                for statement in (*RULINGS_SCHEMA, *CLEAR_SCHEMA):  # a log from before them
                    self._conn.execute(statement)
        except sqlite3.Error as exc:
            raise LogError(f"{path}: cannot be opened ({exc}); {DISK_FIX}") from None

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
                    raise LogError(write_problem(self.path, doing, exc)) from None
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
                raise LogError(f"{self.path}: cannot be read ({exc}); {DISK_FIX}") from None

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
