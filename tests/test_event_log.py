"""The event log (table_controller/event_log/) on real SQLite files: every input event
round-trips, history cannot be changed, and a file that is not this table's sound log is
refused with a clear error and left exactly as it was."""

from __future__ import annotations

import hashlib
import io
import os
import random
import sqlite3
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from table_controller.cards import Card
from table_controller.event_log import (
    LOG_FORMAT,
    SCHEMA_VERSION,
    EventLog,
    LogConflict,
    LogError,
)
from table_controller.rules.events import (
    INPUT_EVENTS,
    CardPlayed,
    DealerChosen,
    HandDealt,
    InputEvent,
)
from table_controller.rules.game import Game
from table_controller.rules.presets import PRESETS, preset
from table_controller.seats import Seat
from table_controller.simulate import play
from table_controller.transcript import load

TRANSCRIPTS = sorted((Path(__file__).parent / "transcripts").glob("*.jsonl"))
PLAYERS = {Seat.N: "Ann", Seat.E: "Bob", Seat.S: "Cy", Seat.W: "Di"}
WRITER = Path(__file__).with_name("log_writer.py")


def png(seed: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (4, 4), (seed % 256, 7, 9)).save(out, format="PNG")
    return out.getvalue()


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def siblings(path: Path) -> list[str]:
    return sorted(p.name for p in path.parent.iterdir())


def new_log(tmp_path: Path, events: list[InputEvent] | None = None) -> Path:
    """A closed log of table 'Table 1' with one td-tournament game of ``events``."""
    path = tmp_path / "table.sqlite"
    with EventLog(path, table="Table 1") as log:
        game = log.start_game("td-tournament", {}, PLAYERS, started=1700000000.0)
        for seq, event in enumerate(events or [DealerChosen(Seat.N)], start=1):
            log.append(game, seq, event, source="sim")
    return path


# --- writing and reading back ---------------------------------------------------------


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=[p.stem for p in TRANSCRIPTS])
def test_a_transcripts_events_round_trip(tmp_path: Path, path: Path) -> None:
    transcript = load(path)
    log_path = tmp_path / "t.sqlite"
    with EventLog(log_path, table="T") as log:
        game = log.start_game(transcript.rules_name or "td-tournament", transcript.options, {})
        for seq, event in enumerate(transcript.events, start=1):
            log.append(game, seq, event, source="camera")
    with EventLog(log_path, table="T") as log:  # a new connection reads the file
        assert [e.event for e in log.events(game)] == transcript.events
        assert [e.seq for e in log.events(game)] == list(range(1, len(transcript.events) + 1))
        assert log.game(game).rules_name == (transcript.rules_name or "td-tournament")
        assert log.game(game).options == transcript.options


def test_the_transcripts_hold_every_input_event_kind() -> None:
    kinds = {type(e) for p in TRANSCRIPTS for e in load(p).events}
    assert kinds == set(INPUT_EVENTS)


def test_a_new_log_is_empty_and_numbers_games_and_events(tmp_path: Path) -> None:
    with EventLog(tmp_path / "new.sqlite", table="Table 1") as log:
        assert log.table == "Table 1"
        assert log.games() == [] and log.last_game() is None
        first = log.start_game("td-tournament", {}, PLAYERS, started=100.0)
        second = log.start_game("nmu-tournament", {"hands_per_game": 4}, {Seat.S: "Cy"})
        assert (first, second) == (1, 2)
        assert log.next_seq(second) == 1
        log.append(second, 1, DealerChosen(Seat.E), source="director", recorded=5.0)
        assert log.next_seq(second) == 2 and log.next_seq(first) == 1
        last = log.last_game()
        assert last is not None
        assert (last.game, last.rules_name, last.options) == (
            2,
            "nmu-tournament",
            {"hands_per_game": 4},
        )
        assert last.players == {Seat.S: "Cy"}
        assert log.game(1).players == PLAYERS and log.game(1).started == 100.0
        (event,) = log.events(second)
        assert (event.source, event.recorded, event.has_evidence) == ("director", 5.0, False)


def test_evidence_is_stored_and_read_back(tmp_path: Path) -> None:
    image = png(3)
    with EventLog(tmp_path / "e.sqlite", table="T") as log:
        game = log.start_game("td-tournament", {}, {})
        log.append(game, 1, DealerChosen(Seat.N), source="sim")
        log.append(game, 2, HandDealt(Card.parse("9C")), source="camera", evidence=image)
    with EventLog.open_existing(tmp_path / "e.sqlite") as log:
        assert log.evidence(game, 2) == image
        assert log.evidence(game, 1) is None and log.evidence(game, 9) is None
        assert [e.has_evidence for e in log.events(game)] == [False, True]


def test_a_clearer_picture_stands_for_the_first_once_at_most(tmp_path: Path) -> None:
    """The camera's clearer picture of a card, written after its event, is read in place
    of the first (which stays: the log only grows); one at most an event, and only for
    an event logged with a picture."""
    first, clear = png(3), png(4)
    path = tmp_path / "c.sqlite"
    with EventLog(path, table="T") as log:
        game = log.start_game("td-tournament", {}, {})
        log.append(game, 1, DealerChosen(Seat.N), source="sim")
        log.append(game, 2, HandDealt(Card.parse("9C")), source="camera", evidence=first)
        assert log.evidence(game, 2) == first and log.clear_evidence(game, 2) is None
        log.replace_evidence(game, 2, clear, recorded=7.0)
        assert log.evidence(game, 2) == clear and log.first_evidence(game, 2) == first
        with pytest.raises(LogConflict, match="one at most"):
            log.replace_evidence(game, 2, png(5))
        for seq in (1, 3):  # no picture to replace: the event has none, or is not logged
            with pytest.raises(LogError, match="no picture"):
                log.replace_evidence(game, seq, png(5))
        assert log.evidence(game, 1) is None and log.evidence(game, 3) is None
    with EventLog.open_existing(path) as log:
        assert log.evidence(game, 2) == clear and log.first_evidence(game, 2) == first
        assert [e.has_evidence for e in log.events(game)] == [False, True]


def test_a_log_from_before_clearer_pictures_reads_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    with EventLog(path, table="T") as log:
        game = log.start_game("td-tournament", {}, {})
        log.append(game, 1, HandDealt(Card.parse("9C")), source="camera", evidence=png(3))
    conn = sqlite3.connect(path)  # as a log written before the table existed
    conn.execute("DROP TRIGGER evidence_clear_no_update")
    conn.execute("DROP TRIGGER evidence_clear_no_delete")
    conn.execute("DROP TABLE evidence_clear")
    conn.close()
    with EventLog.open_existing(path) as log:  # read-only: nothing added
        assert log.evidence(game, 1) == png(3) and log.clear_evidence(game, 1) is None
    with EventLog(path, table="T") as log:  # opened to write: the table is made
        log.replace_evidence(game, 1, png(4))
        assert log.evidence(game, 1) == png(4)


def test_faults_are_recorded_raised_and_cleared(tmp_path: Path) -> None:
    with EventLog(tmp_path / "f.sqlite", table="T") as log:
        log.record_fault("camera", "no frames for 3 s", "check the ribbon cable", 10.0)
        log.record_fault("camera", None, "", 12.5)
        assert log.faults() == [
            (10.0, "camera", "no frames for 3 s", "check the ribbon cable"),
            (12.5, "camera", None, ""),
        ]


@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 10_000), name=st.sampled_from(sorted(PRESETS)))
def test_a_random_game_replays_from_its_log(
    tmp_path_factory: pytest.TempPathFactory, seed: int, name: str
) -> None:
    rules = preset(name)
    played = [e for e, _ in play(rules, random.Random(seed))]
    path = tmp_path_factory.mktemp("game") / "g.sqlite"
    with EventLog(path, table="T") as log:
        game = log.start_game(name, {}, PLAYERS)
        for seq, event in enumerate(played, start=1):
            log.append(game, seq, event, source="sim")
    with EventLog(path, table="T") as log:
        resumed = Game.replay(rules, [e.event for e in log.events(game)])
    assert resumed.state_key() == Game.replay(rules, played).state_key()


# --- the sequence is the log's -----------------------------------------------------------


def test_a_taken_seq_is_a_conflict_and_changes_nothing(tmp_path: Path) -> None:
    path = new_log(tmp_path)
    with EventLog(path, table="Table 1") as log:
        with pytest.raises(LogConflict, match="game 1's event 1 is already in"):
            log.append(1, 1, DealerChosen(Seat.S), source="sim")
        assert [e.event for e in log.events(1)] == [DealerChosen(Seat.N)]


def test_gaps_unknown_games_and_sources_are_refused(tmp_path: Path) -> None:
    with EventLog(new_log(tmp_path), table="Table 1") as log:
        with pytest.raises(LogError, match="next event is 2, not 5"):
            log.append(1, 5, DealerChosen(Seat.S), source="sim")
        with pytest.raises(LogError, match="no game 7: start_game"):
            log.append(7, 1, DealerChosen(Seat.S), source="sim")
        with pytest.raises(LogError, match="unknown event source 'robot'"):
            log.append(1, 2, DealerChosen(Seat.S), source="robot")
        with pytest.raises(LogError, match="no game 3 \\(games 1 to 1\\)"):
            log.game(3)
        assert log.next_seq(1) == 2


def test_a_game_must_have_rules_it_can_replay(tmp_path: Path) -> None:
    with EventLog(tmp_path / "r.sqlite", table="T") as log:
        with pytest.raises(LogError, match="unknown rule preset 'pinochle'"):
            log.start_game("pinochle", {}, {})
        with pytest.raises(LogError, match="unknown rule option 'jokers'"):
            log.start_game("td-tournament", {"jokers": True}, {})
        assert log.games() == []


def test_an_export_connection_cannot_write(tmp_path: Path) -> None:
    with (
        EventLog.open_existing(new_log(tmp_path)) as log,
        pytest.raises(LogError, match="opened read-only"),
    ):
        log.append(1, 2, DealerChosen(Seat.S), source="sim")


# --- append-only ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "sql",
    [
        'UPDATE events SET event = \'{"event": "dealer_chosen", "seat": "S"}\'',
        "DELETE FROM events",
        "UPDATE games SET rules = 'bid-euchre'",
        "DELETE FROM games",
        "UPDATE meta SET value = 'Table 2' WHERE key = 'table'",
        "DELETE FROM evidence",
        "UPDATE evidence_clear SET png = x'00'",
        "DELETE FROM evidence_clear",
        "DELETE FROM faults",
    ],
)
def test_history_cannot_be_changed_even_by_a_stray_write(tmp_path: Path, sql: str) -> None:
    path = new_log(tmp_path)
    with EventLog(path, table="Table 1") as log:
        log.append(1, 2, HandDealt(Card.parse("9C")), source="camera", evidence=png(1))
        log.replace_evidence(1, 2, png(2))
        log.record_fault("cube", "unplugged", "plug it in", 1.0)
    conn = sqlite3.connect(path)
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute(sql)
    conn.close()
    with EventLog(path, table="Table 1") as log:
        assert [e.event for e in log.events(1)] == [
            DealerChosen(Seat.N),
            HandDealt(Card.parse("9C")),
        ]
        assert log.evidence(1, 2) == png(2) and log.first_evidence(1, 2) == png(1)
        assert len(log.faults()) == 1
        assert log.table == "Table 1" and log.game(1).rules_name == "td-tournament"


# --- files that are refused, untouched -----------------------------------------------------


def test_creating_and_closing_leaves_only_the_log_file(tmp_path: Path) -> None:
    path = new_log(tmp_path)
    assert siblings(path) == ["table.sqlite"]
    with EventLog.open_existing(path) as log:
        assert log.games()
    assert siblings(path) == ["table.sqlite"]  # reading creates no -wal/-shm


def refused(path: Path, match: str, table: str = "Table 1") -> None:
    before, names = digest(path), siblings(path)
    with pytest.raises(LogError, match=match):
        EventLog(path, table=table)
    with pytest.raises(LogError, match=match):
        EventLog.open_existing(path)
    assert digest(path) == before, "a refused file was changed"
    assert siblings(path) == names, "refusing a file created files beside it"


def test_a_foreign_sqlite_database_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "shop.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE events (id INTEGER, name TEXT)")
    conn.execute("INSERT INTO events VALUES (1, 'sale')")
    conn.commit()
    conn.close()
    refused(path, "an SQLite database but not a table-controller log")


def test_a_foreign_database_in_wal_mode_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("CREATE TABLE t (x)")
    conn.commit()
    conn.close()
    refused(path, "not a table-controller log")


def test_random_bytes_are_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "noise.sqlite"
    path.write_bytes(random.Random(1).randbytes(5000))
    refused(path, "not a table-controller log \\(not a SQLite file\\)")


def test_an_empty_file_or_a_folder_is_refused(tmp_path: Path) -> None:
    empty = tmp_path / "empty.sqlite"
    empty.touch()
    refused(empty, "is an empty file")
    folder = tmp_path / "logs"
    folder.mkdir()
    with pytest.raises(LogError, match="is a folder: give the log a file name"):
        EventLog(folder, table="T")


@pytest.mark.parametrize("keep", [0.5, 0.25, 50 / 80_000])
def test_a_truncated_log_is_refused_untouched(tmp_path: Path, keep: float) -> None:
    played = [e for e, _ in play(preset("td-tournament"), random.Random(4))]
    path = new_log(tmp_path, played)
    with EventLog(path, table="Table 1") as log:  # fill some pages with evidence
        game = log.start_game("td-tournament", {}, {})
        for seq in range(1, 40):
            log.append(game, seq, played[seq - 1], source="camera", evidence=png(seq) * 40)
    data = path.read_bytes()
    path.write_bytes(data[: int(len(data) * keep)])
    refused(path, "is damaged|not a SQLite file")


def test_a_log_in_a_newer_format_says_to_upgrade(tmp_path: Path) -> None:
    path = new_log(tmp_path)
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    refused(path, "written by a newer table-controller .*upgrade table-controller")


def test_a_log_whose_format_row_is_newer_says_to_upgrade(tmp_path: Path) -> None:
    path = new_log(tmp_path)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("DROP TRIGGER meta_no_update")
    conn.execute("UPDATE meta SET value = 'table-controller-log/2' WHERE key = 'format'")
    conn.close()
    refused(path, f"not '{LOG_FORMAT}': upgrade table-controller")


def test_another_tables_log_is_refused_untouched(tmp_path: Path) -> None:
    path = new_log(tmp_path)
    refused_match = "the log of table 'Table 1', not 'Table 2': give each table its own"
    before = digest(path)
    with pytest.raises(LogError, match=refused_match):
        EventLog(path, table="Table 2")
    assert digest(path) == before and siblings(path) == ["table.sqlite"]


def test_a_missing_log_is_created_only_when_asked(tmp_path: Path) -> None:
    with pytest.raises(LogError, match="no such log file"):
        EventLog(tmp_path / "none.sqlite", table="T", create=False)
    with pytest.raises(LogError, match="no such log file"):
        EventLog.open_existing(tmp_path / "none.sqlite")
    assert siblings(tmp_path / "x") == []
    with EventLog(tmp_path / "deep" / "er" / "new.sqlite", table="T") as log:
        assert log.path.exists()  # its folders are made


def test_a_row_that_no_longer_decodes_names_game_and_seq(tmp_path: Path) -> None:
    path = new_log(tmp_path, [DealerChosen(Seat.N), HandDealt(Card.parse("9C"))])
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("DROP TRIGGER events_no_update")
    conn.execute(
        'UPDATE events SET event = \'{"event": "hand_dealt", "upcard": "1X"}\' WHERE seq = 2'
    )
    conn.close()
    with EventLog(path, table="Table 1") as log:
        with pytest.raises(LogError, match="game 1, event 2 cannot be read") as caught:
            log.events(1)
        assert (caught.value.game, caught.value.seq) == (1, 2)
        events, problems = log.readable_events(1)
        assert [e.seq for e in events] == [1] and len(problems) == 1


# --- disk errors ---------------------------------------------------------------------------


def test_a_log_where_no_file_can_be_made_says_so(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    with pytest.raises(LogError, match="cannot create the log .*choose a folder that exists"):
        EventLog(blocker / "table.sqlite", table="T")
    with pytest.raises(LogError, match="cannot create the log"):
        EventLog("/proc/no-such-folder/table.sqlite", table="T")
    assert siblings(blocker) == ["a-file"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write to a read-only folder")
def test_a_read_only_folder_says_so(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        with pytest.raises(LogError, match="cannot create the log"):
            EventLog(folder / "t.sqlite", table="T")
    finally:
        folder.chmod(0o755)


def test_a_full_disk_at_append_is_a_log_error_and_writes_nothing(tmp_path: Path) -> None:
    """The writer runs with a file-size limit (RLIMIT_FSIZE), so the operating system
    refuses its writes as a full disk would."""
    path = tmp_path / "full.sqlite"
    EventLog(path, table="crash test table").close()
    result = subprocess.run(
        [sys.executable, str(WRITER), str(path), "1", "--file-size-limit", "200000"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])},
        check=False,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[-1].startswith("refused "), lines[-3:]
    assert "nothing of it was written" in lines[-1]
    acked = [line.split(" ", 3) for line in lines if line.startswith("acked ")]
    assert len(acked) > 5
    with EventLog(path, table="crash test table") as log:
        events = log.events(1)
        assert len(events) == len(acked)  # the refused event is not there, not even half
        # with the space back, the table goes on from where it was
        log.append(1, len(acked) + 1, CardPlayed(Seat.N, Card.parse("9C")), source="sim")
        assert log.next_seq(1) == len(acked) + 2


# --- the file's mode: its owner's only ------------------------------------------------


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def usual_umask() -> Iterator[None]:
    """The umask most machines have (022: new files readable by everyone), whatever this
    one's is, so the test shows the log does not rely on it."""
    old = os.umask(0o022)
    yield
    os.umask(old)


def test_a_new_log_its_side_files_and_its_folder_are_private(
    tmp_path: Path, usual_umask: None
) -> None:
    """Finding 7: the table's log was created 0644 (and its -wal and -shm with it), so any
    user of the machine could read the players' names and every game."""
    path = tmp_path / "logs" / "table.sqlite"
    with EventLog(path, table="Table 1") as log:
        game = log.start_game("td-tournament", {}, PLAYERS)
        log.append(game, 1, DealerChosen(Seat.E), source="director")
        sides = [Path(f"{path}{side}") for side in ("-wal", "-shm")]
        assert all(side.exists() for side in sides)  # written, not yet checkpointed
        assert {p.name: _mode(p) for p in (path, *sides)} == {p.name: 0o600 for p in (path, *sides)}
    assert _mode(path.parent) == 0o700
    assert not [p for p in path.parent.iterdir() if _mode(p) & 0o077]


def test_a_readable_log_is_made_private_on_open_and_said(
    tmp_path: Path, usual_umask: None, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "table.sqlite"
    EventLog(path, table="Table 1").close()
    path.chmod(0o644)  # a log from before, or copied in
    with EventLog(path, table="Table 1") as log:
        log.start_game("td-tournament", {}, PLAYERS)
        assert _mode(path) == 0o600 and _mode(Path(f"{path}-wal")) == 0o600
    said = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert any("could be read by other users" in s and "owner's only" in s for s in said)
