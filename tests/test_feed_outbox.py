"""Only event_log/ knows the log file's tables: the feed's outbox reads and keeps its
marks through ``event_log.FeedLog``, and neither it nor what uses it (the publisher, the
load generator's drain) holds a line of SQL. Read with ast, so a docstring or a comment
that names a statement does not count; a string the code could run does."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from table_controller.event_log import (
    ClearPicture,
    EventLog,
    EventRow,
    EventText,
    FeedLog,
    FeedLogError,
    GameLast,
    Mark,
    RulingAnswer,
)
from table_controller.rules.events import DealerChosen, Passed
from table_controller.seats import Seat

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "table_controller"
# The modules that read the log's tables through the outbox, never by themselves.
THROUGH_THE_OUTBOX = ("feed/outbox.py", "feed/publisher.py", "sim/loadgen.py")
SQL_WORDS = ("SELECT", "INSERT", "UPDATE", "DELETE", "FROM ", "PRAGMA", "CREATE ")


def _docstrings(tree: ast.Module) -> set[int]:
    """The ids of the string nodes that are docstrings (a body's first statement)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                found.add(id(first.value))
    return found


def sql_in(source: str) -> list[str]:
    """Each string of the code (docstrings left out) that holds an SQL word, and each
    import of sqlite3, in words."""
    tree = ast.parse(source)
    docstrings = _docstrings(tree)
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) in docstrings:
                continue
            words = [w.strip() for w in SQL_WORDS if w in node.value]
            if words:
                found.append((node.lineno, f"{', '.join(words)} in {node.value!r}"))
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if "sqlite3" in names or (
                isinstance(node, ast.ImportFrom) and node.module == "sqlite3"
            ):
                found.append((node.lineno, "imports sqlite3"))
    return [f"line {line}: {what}" for line, what in sorted(found)]


@pytest.mark.parametrize("module", THROUGH_THE_OUTBOX)
def test_the_outbox_and_its_users_hold_no_sql(module: str) -> None:
    found = sql_in((PACKAGE / module).read_text(encoding="utf-8"))
    assert found == [], (
        f"{module} runs SQL of its own: the log file's tables are event_log/'s alone; "
        "add a method to event_log.FeedLog returning a typed row and call it:\n" + "\n".join(found)
    )


def test_the_check_finds_sql_in_code_and_not_in_a_docstring() -> None:
    source = '''
"""Reads with SELECT ... FROM events (a docstring: not counted)."""
import sqlite3

class Box:
    """INSERT INTO nothing: a docstring again."""

    def read(self, table: str) -> str:
        # SELECT in a comment is not code either
        return f"SELECT game FROM {table} WHERE seq > ?"

    def mark(self) -> str:
        return "INSERT INTO feed_cursor VALUES (1, ?, ?, ?)"
'''
    assert sql_in(source) == [
        "line 3: imports sqlite3",
        "line 10: SELECT, FROM in 'SELECT game FROM '",
        "line 13: INSERT in 'INSERT INTO feed_cursor VALUES (1, ?, ?, ?)'",
    ]


def test_the_feeds_connection_gives_typed_rows_and_keeps_its_marks(tmp_path: Path) -> None:
    """What the outbox reads comes back named, never as tuples read by index."""
    log = EventLog(tmp_path / "t.sqlite", table="Club Night 3")
    log.start_game("td-tournament", {}, {s: s.name for s in Seat})
    log.append(1, 1, DealerChosen(Seat.N), source="director", recorded=10.0)
    log.append(1, 2, Passed(Seat.E), source="camera", evidence=b"first", recorded=11.0)
    log.replace_evidence(1, 2, b"clear", recorded=12.0)
    log.close()
    feed = FeedLog(tmp_path / "t.sqlite")
    try:
        first, second = feed.events_after(0, 0, 10)
        assert isinstance(first, EventRow) and first.picture is None
        assert (second.game, second.seq, second.source, second.recorded) == (1, 2, "camera", 11.0)
        assert second.picture == b"clear"  # the clearer picture stands for the first
        assert json.loads(second.event)["event"] == "passed"
        assert feed.last_events() == [GameLast(game=1, last=2)]
        assert feed.count_after(1, 1) == 1
        assert feed.event_texts(1, 0, 2) == [EventText(1, first.event)]
        row = feed.game_row(1)
        assert row is not None and row.rules == "td-tournament"
        assert feed.clear_pictures_after(0, 10) == [ClearPicture(1, 1, 2, b"clear")]
        assert feed.sent_mark() is None and feed.received_mark() is None
        feed.keep_sent_mark(1, 2, 13.0)
        feed.keep_sent_mark(1, 1, 14.0)  # forward only
        feed.keep_received_mark(1, 1, 15.0)
        assert feed.sent_mark() == Mark(1, 2) and feed.received_mark() == Mark(1, 1)
        feed.keep_answer("r1", False, "no such seat", 16.0)
        assert feed.answer_kept("r1") == RulingAnswer(ok=False, problem="no such seat")
        assert not feed.ruling_logged("r1")
    finally:
        feed.close()


def test_a_file_that_is_not_a_tables_log_is_refused_by_the_feed(tmp_path: Path) -> None:
    with pytest.raises(FeedLogError, match="is not a table's event log"):
        FeedLog(tmp_path / "other.sqlite")
