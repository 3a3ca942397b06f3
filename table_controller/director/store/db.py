"""Where the director's store keeps its rows: one SQLite file, or a PostgreSQL database.

A small event (a club night, a few tables) wants a file and nothing to run; a large one
(200 tables, several days, a database its venue already runs and backs up) wants a
server. The store's parts are written once, in the SQL both accept: ``?`` placeholders,
``INSERT ... ON CONFLICT DO NOTHING``, ``RETURNING``, savepoints. This module carries
what differs: connecting, the schema's types, the append-only triggers, the
placeholders, which errors mean "the database is not there just now" (retry, nothing was
stored) rather than "this write is wrong", and, for a server, reconnecting after it
restarts.

The target is a path (SQLite) or a ``postgresql://user:password@host:port/database``
URL. A target that already holds another program's tables is refused, so a mistyped
path or URL never writes into someone else's data.
"""

from __future__ import annotations

import contextlib
import os
import re
import sqlite3
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from table_controller.errors import TableControllerError
from table_controller.extras import missing_message

APPLICATION_ID = 0x54434452  # "TCDR": a table-controller director's store (SQLite)
APPLICATION = "table-controller director"  # the same, in a PostgreSQL database
URL_SCHEMES = ("postgresql://", "postgres://")

# The tables, in SQLite's words; PostgreSQL's are rewritten from these (``_pg_table``),
# so both hold the same columns in the same order.
TABLES = (
    "CREATE TABLE IF NOT EXISTS tables (name TEXT PRIMARY KEY, first_seen REAL NOT NULL,"
    " last_seen REAL NOT NULL, status TEXT, status_at REAL, every REAL,"
    " online INTEGER NOT NULL DEFAULT 0, rules TEXT)",
    "CREATE TABLE IF NOT EXISTS events (tbl TEXT NOT NULL, game INTEGER NOT NULL,"
    " seq INTEGER NOT NULL, at REAL NOT NULL, source TEXT NOT NULL, input TEXT NOT NULL,"
    " outputs TEXT NOT NULL, hand INTEGER, evidence INTEGER NOT NULL, received REAL NOT NULL,"
    " PRIMARY KEY (tbl, game, seq)) WITHOUT ROWID",
    # Each game's rules and players as its table's log holds them (store/games.py).
    "CREATE TABLE IF NOT EXISTS game_setups (tbl TEXT NOT NULL, game INTEGER NOT NULL,"
    " rules TEXT NOT NULL, options TEXT NOT NULL, players TEXT NOT NULL,"
    " PRIMARY KEY (tbl, game))",
    "CREATE TABLE IF NOT EXISTS status_history (tbl TEXT NOT NULL, at REAL NOT NULL,"
    " online INTEGER NOT NULL, payload TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS evidence (tbl TEXT NOT NULL, game INTEGER NOT NULL,"
    " seq INTEGER NOT NULL, png BLOB NOT NULL, PRIMARY KEY (tbl, game, seq))",
    "CREATE TABLE IF NOT EXISTS alerts (id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE,"
    " kind TEXT NOT NULL, tbl TEXT NOT NULL, game INTEGER, seq INTEGER, at REAL NOT NULL,"
    " text TEXT NOT NULL, state TEXT NOT NULL, who TEXT, changed REAL)",
    "CREATE TABLE IF NOT EXISTS rulings (ruling_id TEXT PRIMARY KEY, tbl TEXT NOT NULL,"
    " kind TEXT NOT NULL, payload TEXT NOT NULL, director TEXT NOT NULL, reason TEXT NOT NULL,"
    " at REAL NOT NULL, ack_ok INTEGER, ack_problem TEXT, ack_at REAL)",
    # Each ruling's delivery (docs/feed.md, "Rulings that always arrive"): when it was
    # last published, how often, when the table said it has it.
    "CREATE TABLE IF NOT EXISTS ruling_sends (ruling_id TEXT PRIMARY KEY,"
    " tbl TEXT NOT NULL, sent_at REAL NOT NULL, sends INTEGER NOT NULL, delivered_at REAL)",
    # The configs pushed to the fleet's tables (store/fleet_config.py), with each answer.
    "CREATE TABLE IF NOT EXISTS fleet_configs (tbl TEXT NOT NULL, seq INTEGER NOT NULL,"
    " payload TEXT NOT NULL, sent_at REAL NOT NULL, state TEXT NOT NULL, problem TEXT,"
    " answered_at REAL, PRIMARY KEY (tbl, seq))",
    "CREATE TABLE IF NOT EXISTS audit (id INTEGER PRIMARY KEY, at REAL NOT NULL,"
    " who TEXT NOT NULL, action TEXT NOT NULL, tbl TEXT, ruling_id TEXT, reason TEXT,"
    " detail TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS directors (name TEXT PRIMARY KEY, salt BLOB NOT NULL,"
    " hash BLOB NOT NULL, created REAL NOT NULL)",
    "CREATE TABLE IF NOT EXISTS sessions (token TEXT PRIMARY KEY, name TEXT NOT NULL,"
    " expires REAL NOT NULL)",
    # The event's format (tournament/admin.py): every change a new row, the last one current.
    "CREATE TABLE IF NOT EXISTS format_state (id INTEGER PRIMARY KEY, at REAL NOT NULL,"
    " who TEXT NOT NULL, action TEXT NOT NULL, reason TEXT, state TEXT NOT NULL)",
    # The latest camera picture of each kind per table (store/fleet_pictures.py).
    "CREATE TABLE IF NOT EXISTS fleet_pictures (tbl TEXT NOT NULL, kind TEXT NOT NULL,"
    " asked_at REAL, at REAL, ok INTEGER, problem TEXT, jpeg BLOB, PRIMARY KEY (tbl, kind))",
    # Fleet mode (store/fleet.py): the tables the director approved, removed ones marked.
    "CREATE TABLE IF NOT EXISTS fleet_tables (id TEXT PRIMARY KEY, name TEXT, host TEXT,"
    " address TEXT, version TEXT, key TEXT, approved_at REAL, removed_at REAL)",
    # Each table's public key what it sends must be signed with (store/table_keys.py).
    "CREATE TABLE IF NOT EXISTS table_keys (tbl TEXT PRIMARY KEY, public_key TEXT NOT NULL,"
    " source TEXT NOT NULL, registered_at REAL NOT NULL, enforced INTEGER NOT NULL)",
    # The newest place taken per table and kind of message (store/table_order.py).
    "CREATE TABLE IF NOT EXISTS table_order (tbl TEXT NOT NULL, kind TEXT NOT NULL,"
    " boot BIGINT NOT NULL, link BIGINT NOT NULL, n BIGINT NOT NULL, PRIMARY KEY (tbl, kind))",
    # Each hand's start and end at each table, and each game's end (store/hand_times.py).
    "CREATE TABLE IF NOT EXISTS hand_times (tbl TEXT NOT NULL, game INTEGER NOT NULL,"
    " seq INTEGER NOT NULL, kind TEXT NOT NULL, at REAL NOT NULL, hand INTEGER,"
    " ns INTEGER, ew INTEGER, PRIMARY KEY (tbl, game, seq, kind))",
    # The machines each table was heard from (store/fleet_machines.py): a copied card.
    "CREATE TABLE IF NOT EXISTS fleet_machines (tbl TEXT NOT NULL, machine TEXT NOT NULL,"
    " source TEXT NOT NULL, first_seen REAL NOT NULL, last_seen REAL NOT NULL,"
    " PRIMARY KEY (tbl, machine))",
    # Each game's verdicts on its decisions, as kept (store/verdicts.py).
    "CREATE TABLE IF NOT EXISTS game_verdicts (tbl TEXT NOT NULL, game INTEGER NOT NULL,"
    " kept TEXT NOT NULL, at REAL NOT NULL, PRIMARY KEY (tbl, game))",
)
# Tables no one may change or empty once written: what the trigger says when refused.
APPEND_ONLY = {"audit": "the audit log", "format_state": "the format history"}


class StoreError(TableControllerError, RuntimeError):
    """The store cannot be used, or a message cannot be taken: what and what to do."""


class StoreUnavailable(StoreError):
    """The database cannot be reached or written just now (a disk full or locked, the
    server down or restarting): nothing of the write was kept; try it again later."""


# A row as the driver returns it: each column's Python type follows the SQL that read it
# (TEXT a str, INTEGER an int, a nullable column also None), which the type checker
# cannot see; the part that wrote the SQL reads the columns as what they are.
Row = tuple[Any, ...]
# A statement's parameters: str, int, float, bytes or None, as the SQL places them.
Params = Sequence[object]


@dataclass
class Result:
    """A statement's rows (all fetched) and how many rows it changed."""

    rows: list[Row]
    rowcount: int

    def one(self) -> Row | None:
        return self.rows[0] if self.rows else None


class Database(ABC):
    """One connection to the store's database. Not thread-safe by itself: the store
    holds its lock around every use."""

    #: what the director calls this database in messages (a path, a URL without password)
    name: str
    #: a savepoint costs next to nothing (in-process SQLite), not two round trips
    savepoints_cheap: bool = True

    @abstractmethod
    def execute(self, sql: str, params: Params = ()) -> Result:
        """Run one statement of the store's SQL; raise StoreUnavailable or StoreError."""

    def begin(self) -> None:
        self.execute("BEGIN")

    def commit(self) -> None:
        self.execute("COMMIT")

    def rollback(self) -> None:
        """Take back the open transaction; quiet if the connection is already gone (the
        server took the transaction back with it)."""
        with contextlib.suppress(StoreError):
            self.execute("ROLLBACK")

    @abstractmethod
    def close(self) -> None: ...


def open_database(target: str | Path) -> Database:
    """The database for ``target``: a ``postgresql://`` URL, else a SQLite file's path."""
    text = str(target)
    if text.startswith(URL_SCHEMES):
        return PostgresDatabase(text)
    return SqliteDatabase(Path(target))


def is_url(target: str | Path | None) -> bool:
    return target is not None and str(target).startswith(URL_SCHEMES)


# --- SQLite ---------------------------------------------------------------------------


class SqliteDatabase(Database):
    """One file in WAL mode, fsync'd on every commit (synchronous = FULL)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.name = str(path)
        _create_private(path)
        try:
            self._conn = sqlite3.connect(
                path, isolation_level=None, check_same_thread=False, timeout=5
            )
            app_id = self._conn.execute("PRAGMA application_id").fetchone()[0]
            tables = self._conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
            if tables and app_id != APPLICATION_ID:
                self._conn.close()
                raise StoreError(
                    f"{path} is not a director's store (another program's database): "
                    "give the director a new file (--database)"
                )
            self._conn.execute("PRAGMA journal_mode = WAL")
            self._conn.execute("PRAGMA synchronous = FULL")
            self._conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            for statement in TABLES:
                self._conn.execute(statement)
            for table, words in APPEND_ONLY.items():
                for verb in ("UPDATE", "DELETE"):
                    self._conn.execute(
                        f"CREATE TRIGGER IF NOT EXISTS {table}_no_{verb.lower()} BEFORE {verb}"
                        f" ON {table} BEGIN SELECT RAISE(ABORT, '{words} is append-only'); END"
                    )
        except sqlite3.DatabaseError as exc:
            raise StoreError(
                f"{path}: cannot be opened as the director's store ({exc}); check the "
                "path and the disk, or give a new file (--database)"
            ) from None

    def execute(self, sql: str, params: Params = ()) -> Result:
        try:
            cur = self._conn.execute(sql, tuple(params))
            rows = cur.fetchall()
            return Result(rows, cur.rowcount)
        except sqlite3.OperationalError as exc:
            # locked, disk full, I/O: the file's trouble, not the write's
            raise StoreUnavailable(
                f"the director's store {self.name} cannot be written ({exc}): check the disk "
                "it is on (free space, permissions)"
            ) from exc
        except sqlite3.Error as exc:
            raise StoreError(f"the director's store refused a write: {exc}") from exc

    def begin(self) -> None:
        self.execute("BEGIN IMMEDIATE")  # take the write lock now, not at the first write

    def close(self) -> None:
        self._conn.close()


def _create_private(path: Path) -> None:
    """A new store is made readable by its owner only: it holds the directors' password
    hashes and sessions, and every table's held cards."""
    with contextlib.suppress(FileExistsError, OSError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))


# --- PostgreSQL -----------------------------------------------------------------------

_PG_TYPES = (
    (re.compile(r"\bINTEGER PRIMARY KEY\b"), "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"),
    (re.compile(r"\bREAL\b"), "DOUBLE PRECISION"),  # PostgreSQL's REAL is 4 bytes
    (re.compile(r"\bBLOB\b"), "BYTEA"),
    (re.compile(r" WITHOUT ROWID\b"), ""),
)


def _pg_table(statement: str) -> str:
    for pattern, words in _PG_TYPES:
        statement = pattern.sub(words, statement)
    if "TABLE IF NOT EXISTS status_history " in statement:
        # SQLite orders the history by its implicit rowid; a column of that name here
        # lets the same query order it.
        statement = statement[:-1] + ", rowid BIGINT GENERATED ALWAYS AS IDENTITY)"
    return statement


def _pg_schema() -> list[str]:
    out = [
        "CREATE TABLE IF NOT EXISTS director_store (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        *(_pg_table(s) for s in TABLES),
        "CREATE OR REPLACE FUNCTION director_append_only() RETURNS trigger LANGUAGE plpgsql"
        " AS $$ BEGIN RAISE EXCEPTION '% is append-only', TG_ARGV[0]; END $$",
    ]
    for table, words in APPEND_ONLY.items():
        out += [
            f"DROP TRIGGER IF EXISTS {table}_no_change ON {table}",
            f"CREATE TRIGGER {table}_no_change BEFORE UPDATE OR DELETE ON {table}"
            f" FOR EACH ROW EXECUTE FUNCTION director_append_only('{words}')",
            f"DROP TRIGGER IF EXISTS {table}_no_truncate ON {table}",
            f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table}"
            f" FOR EACH STATEMENT EXECUTE FUNCTION director_append_only('{words}')",
        ]
    return out


class PostgresDatabase(Database):
    savepoints_cheap = False

    """A PostgreSQL database over psycopg 3, in autocommit mode with the store's own
    BEGIN/COMMIT. After the server restarts (or the network drops) the next statement
    outside a transaction, or the next BEGIN, connects again; a statement inside a
    transaction that lost its connection raises StoreUnavailable, and the transaction
    is gone with the connection, so nothing half-written remains."""

    def __init__(self, url: str, *, connect_timeout: float = 5) -> None:
        try:
            import psycopg
            from psycopg.conninfo import conninfo_to_dict
        except ModuleNotFoundError as exc:  # the director's extra, left out
            raise StoreError(missing_message(exc.name) or str(exc)) from None
        self._psycopg = psycopg
        self._in_error = psycopg.pq.TransactionStatus.INERROR
        self.url = url
        try:
            info = conninfo_to_dict(url)
        except psycopg.ProgrammingError as exc:
            raise StoreError(
                f"the database URL cannot be read ({exc}): write it as "
                "postgresql://USER:PASSWORD@HOST:PORT/DATABASE"
            ) from None
        self.name = _redacted(info)
        self._timeout = connect_timeout
        self._in_tx = False
        self._conn: Any = None
        self._connect()
        try:
            self._schema()
        except StoreError:
            self.close()
            raise

    def _connect(self) -> None:
        try:
            self._conn = self._psycopg.connect(
                self.url,
                autocommit=True,
                connect_timeout=max(1, round(self._timeout)),
                application_name="table-controller director",
            )
        except self._psycopg.Error as exc:
            raise StoreUnavailable(
                f"cannot connect to the director's store {self.name} ({_first_line(exc)}): "
                "check that "
                "PostgreSQL runs there, and the URL's user, password and database"
            ) from None

    def _schema(self) -> None:
        found = {
            r[0]
            for r in self.execute(
                "SELECT table_name FROM information_schema.tables"
                " WHERE table_schema = current_schema()"
            ).rows
        }
        if found and "director_store" not in found:
            raise StoreError(
                f"{self.name} is not a director's store (it holds another program's tables:"
                f" {', '.join(sorted(found)[:5])}): create an empty database for the director"
                " (createdb) and give its URL (--database)"
            )
        self.begin()
        try:
            for statement in _pg_schema():
                self._run(statement, None)
            self._run(
                "INSERT INTO director_store VALUES ('application', %s)"
                " ON CONFLICT (key) DO NOTHING",
                (APPLICATION,),
            )
            self.commit()
        except BaseException:
            self.rollback()
            raise

    def _run(self, sql: str, params: Params | None) -> Result:
        psycopg = self._psycopg
        if self._conn is None or self._conn.closed or self._conn.broken:
            if self._in_tx:
                raise StoreUnavailable(
                    f"the connection to {self.name} was lost in a transaction: it was "
                    "taken back; it is tried again"
                )
            self._connect()
        try:
            try:
                cur = self._conn.execute(sql, params)
            except psycopg.OperationalError:
                if self._in_tx or not self._conn.broken:
                    raise
                # The server restarted since the last statement, outside a transaction
                # (nothing of it was done): once more on a new connection.
                self._connect()
                cur = self._conn.execute(sql, params)
            rows = cur.fetchall() if cur.description is not None else []
            return Result(rows, cur.rowcount)
        except psycopg.OperationalError as exc:
            raise StoreUnavailable(
                f"the director's store {self.name} cannot be reached or written "
                f"({_first_line(exc)}): check that PostgreSQL runs and has disk space"
            ) from exc
        except psycopg.Error as exc:
            raise StoreError(f"the director's store refused a write: {_first_line(exc)}") from exc

    def execute(self, sql: str, params: Params = ()) -> Result:
        return self._run(_placeholders(sql), tuple(params))

    def begin(self) -> None:
        self._in_tx = False  # a lost connection may be replaced before the transaction
        self._run("BEGIN", None)
        self._in_tx = True

    def commit(self) -> None:
        """COMMIT, or StoreError if a statement failed inside the transaction (the
        server would answer a COMMIT of a failed transaction by rolling it back, quietly)."""
        try:
            if self._conn is not None and self._failed():
                self._run("ROLLBACK", None)
                raise StoreError(
                    "a write failed inside the director's transaction, so none of it was "
                    "kept; it is tried again, each message on its own"
                )
            self._run("COMMIT", None)
        finally:
            self._in_tx = False

    def _failed(self) -> bool:
        return bool(self._conn.info.transaction_status == self._in_error)

    def rollback(self) -> None:
        try:
            if self._conn is not None and not self._conn.closed and not self._conn.broken:
                with contextlib.suppress(StoreError):
                    self._run("ROLLBACK", None)
        finally:
            self._in_tx = False

    def close(self) -> None:
        if self._conn is not None:
            with contextlib.suppress(Exception):
                self._conn.close()


_PLACEHOLDERS: dict[str, str] = {}


def _placeholders(sql: str) -> str:
    """The store's ``?`` placeholders as psycopg's ``%s`` (a literal % doubled)."""
    out = _PLACEHOLDERS.get(sql)
    if out is None:
        out = _PLACEHOLDERS[sql] = sql.replace("%", "%%").replace("?", "%s")
    return out


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _redacted(info: Mapping[str, object]) -> str:
    """The URL without its password, for messages and logs."""
    user = f"{info['user']}@" if info.get("user") else ""
    host = info.get("host") or "localhost"
    port = f":{info['port']}" if info.get("port") else ""
    return f"postgresql://{user}{host}{port}/{info.get('dbname', '')}"


__all__ = [
    "APPEND_ONLY",
    "TABLES",
    "Database",
    "Params",
    "PostgresDatabase",
    "Result",
    "Row",
    "SqliteDatabase",
    "StoreError",
    "StoreUnavailable",
    "is_url",
    "open_database",
]
