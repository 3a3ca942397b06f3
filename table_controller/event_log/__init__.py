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

The package: ``file.py`` (what a log file is: its format, schema and checks),
``log.py`` (``EventLog``, the table's side) and ``feed.py`` (``FeedLog``, the feed's).
Outsiders import from here.
"""

from __future__ import annotations

from table_controller.event_log.feed import (
    ClearPicture,
    EventRow,
    EventText,
    FeedLog,
    FeedLogError,
    GameLast,
    GameRow,
    Mark,
    RulingAnswer,
)
from table_controller.event_log.file import (
    APPLICATION_ID,
    BUSY_TIMEOUT_MS,
    LOG_FORMAT,
    PRIVATE,
    SCHEMA_VERSION,
    SIDE_FILES,
    SOURCES,
    LogConflict,
    LogError,
)
from table_controller.event_log.log import EventLog, GameRecord, LoggedEvent

__all__ = [
    "APPLICATION_ID",
    "BUSY_TIMEOUT_MS",
    "LOG_FORMAT",
    "PRIVATE",
    "SCHEMA_VERSION",
    "SIDE_FILES",
    "SOURCES",
    "ClearPicture",
    "EventLog",
    "EventRow",
    "EventText",
    "FeedLog",
    "FeedLogError",
    "GameLast",
    "GameRecord",
    "GameRow",
    "LogConflict",
    "LogError",
    "LoggedEvent",
    "Mark",
    "RulingAnswer",
]
