"""The log's file: its format and schema, the checks that refuse a file that is not a
table's log (or is damaged, newer, or another table's), and creating, tightening and
opening it. ``EventLog`` (log.py) and ``FeedLog`` (feed.py) both open the file through
these, so what a log file is has one definition."""

from __future__ import annotations

import logging
import os
import sqlite3
import stat
import time
from contextlib import suppress
from pathlib import Path

from table_controller import __version__
from table_controller.errors import TableControllerError

logger = logging.getLogger(__name__)


LOG_FORMAT = "table-controller-log/1"
PRIVATE = 0o600  # the log and its side files: its owner's only (players' names, a game)
SIDE_FILES = ("-wal", "-shm", "-journal")
SCHEMA_VERSION = 1  # PRAGMA user_version; LOG_FORMAT's number
APPLICATION_ID = 0x54434C47  # "TCLG" in the SQLite header: a table-controller log
SOURCES = ("camera", "button", "cube", "page", "operator", "director", "sim", "kiosk", "bot")
BUSY_TIMEOUT_MS = 5000

SQLITE_MAGIC = b"SQLite format 3\x00"
LOG_TABLES = ("meta", "games", "events", "evidence", "faults")
SCHEMA = (
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
        for table in LOG_TABLES
        for verb in ("UPDATE", "DELETE")
    ),
)

# The director's rulings applied, each with the event that applied it, written in the same
# transaction as that event: a ruling sent again after a crash is never applied twice.
# Created on open, so a log from before it is kept as it is until a table writes to it.
RULINGS_SCHEMA = (
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
CLEAR_SCHEMA = (
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


DISK_FIX = "check the disk (is it full, read-only or unplugged?) and the file's permissions"


def write_problem(path: Path, doing: str, exc: sqlite3.Error) -> str:
    text = str(exc)
    if "full" in text:
        why = "the disk is full: free some space (old logs can be copied elsewhere)"
    elif "readonly" in text or "read-only" in text:
        why = "the file or its folder is read-only: make it writable"
    elif "locked" in text or "busy" in text:
        why = "another program holds the log: close it (only one table may write a log)"
    else:
        why = DISK_FIX
    return f"{path}: cannot {doing} ({text}); nothing of it was written; {why}"


def create_file(path: Path, table: str) -> None:
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
            for statement in SCHEMA:
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
        fsync_file(temp)
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
        fsync_file(path.parent)
    except (OSError, sqlite3.Error) as exc:
        with suppress(OSError):
            temp.unlink(missing_ok=True)
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise LogError(
            f"cannot create the log {path} ({why}): choose a folder that exists and "
            "can be written ([table] log in the config), or free some disk space"
        ) from None


def tighten(path: Path) -> None:
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


def fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def check_file(path: Path) -> str:
    """The table a log belongs to, after checking it is a sound log of this format;
    ``LogError`` otherwise. Reads only: the file is never changed here."""
    refuse = "it is left untouched: give the table another log file, or move this one away"
    if path.is_dir():
        raise LogError(f"{path} is a folder: give the log a file name such as table.sqlite")
    try:
        with path.open("rb") as fh:
            header = fh.read(100)
    except OSError as exc:
        raise LogError(f"{path}: cannot be read ({exc.strerror}); {DISK_FIX}") from None
    if not header:
        raise LogError(f"{path} is an empty file, not a table-controller log; {refuse}")
    if len(header) < 100 or not header.startswith(SQLITE_MAGIC):
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
        conn = connect_read_only(path)
        try:
            problems = [str(r[0]) for r in conn.execute("PRAGMA quick_check").fetchall()]
            if problems != ["ok"]:
                raise sqlite3.DatabaseError("; ".join(problems[:3]))
            names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
            missing = [t for t in LOG_TABLES if t not in names]
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


def connect_read_only(path: Path) -> sqlite3.Connection:
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
