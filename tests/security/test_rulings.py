"""Rulings that always arrive, once, for the game and hand they were made for.

A real mosquitto from `feed broker-config`'s files, the director's real service and
SQLite store, a real table process (tests/ruled_table.py: the table app, its log, its
feed). Before: a ruling sent to a table that was away was lost for good (clean session,
no resend), a ruling named no game or hand, and a ruling whose answer was not yet kept
when the table stopped was applied again when sent again."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from mosquitto import Mosquitto

from security.feed_event import (
    TableProcess,
    broker_files,
    director,
    start_broker,
    table_config,
    wait_until,
)
from table_controller.cli import main
from table_controller.director.dashboard import RulingError
from table_controller.director.service import BrokerConfig, DirectorService
from table_controller.director.store import DirectorStore
from table_controller.event_log import EventLog
from table_controller.feed.signing import Ruling, sign

TABLE = "table-1"


@dataclass
class Venue:
    folder: Path  # the broker's files
    broker: Mosquitto
    store: DirectorStore
    service: DirectorService
    table: TableProcess
    log: Path

    def restart_director(self) -> None:
        self.service.stop()
        self.service = director(self.store, self.folder, self.broker.port)

    def state(self, ruling_id: str) -> str:
        (r,) = [r for r in self.store.rulings.rulings(TABLE) if r["ruling_id"] == ruling_id]
        return str(r["state"])

    def online(self) -> bool:
        return any(t["online"] for t in self.store.tables.tables() if t["table"] == TABLE)

    def adjustments(self) -> list[tuple[int, int]]:
        """The score adjustments in the table's own log: (game, seq) each."""
        log = EventLog.open_existing(self.log)
        try:
            return [(1, e.seq) for e in log.events(1) if type(e.event).__name__ == "ScoreAdjusted"]
        finally:
            log.close()


@pytest.fixture
def venue(tmp_path: Path) -> Iterator[Venue]:
    folder = broker_files(tmp_path / "broker")
    broker = start_broker(folder)
    store = DirectorStore(tmp_path / "director.sqlite")
    service = director(store, folder, broker.port)
    config = table_config(tmp_path / "table", folder, broker.port)
    table = TableProcess(config).start()
    v = Venue(folder, broker, store, service, table, config.parent / "table.sqlite")
    try:
        wait_until("the table plays hand 1", lambda: store.tables.table_position(TABLE) == (1, 1))
        yield v
    finally:
        v.table.kill()
        v.service.stop()
        broker.kill()
        store.close()


def adjust(v: Venue, points: int = 2) -> str:
    sent = v.service.send_ruling(
        director="ann",
        table=TABLE,
        kind="adjust_score",
        reason="a card was exposed",
        team="NS",
        points=points,
    )
    return str(sent["ruling_id"])


def test_a_ruling_to_a_table_that_is_away_arrives_when_it_returns(venue: Venue) -> None:
    v = venue
    v.table.stop()
    wait_until("the table is away", lambda: not v.online())
    rid = adjust(v)
    assert (v.state(rid), v.adjustments()) == ("pending", [])
    # The broker restarted meanwhile: it holds nothing for the table (nor did it).
    v.broker.kill()
    v.broker.start()
    wait_until("the director is back on the broker", v.service.connected.is_set)
    assert v.state(rid) == "pending"
    v.table.start()
    wait_until("the ruling applied", lambda: v.state(rid) == "applied")
    assert len(v.adjustments()) == 1
    (r,) = v.store.rulings.rulings(TABLE)
    assert (r["game"], r["hand"], r["delivered_at"] is not None) == (1, 1, True)
    assert r["sends"] >= 2  # sent when made, and again when the table came back


def test_a_ruling_is_applied_once_across_a_table_restart(venue: Venue) -> None:
    v = venue
    rid = adjust(v)
    wait_until("the ruling applied", lambda: v.state(rid) == "applied")
    # The table killed as it applied it: its answer never kept (only the log's event),
    # and the director never heard it (it restarts from a store without the answer).
    v.table.kill()
    with sqlite3.connect(v.log) as conn:
        conn.execute("DELETE FROM feed_rulings")
    v.service.stop()
    v.store.db.execute(
        "UPDATE rulings SET ack_ok = NULL, ack_problem = NULL, ack_at = NULL WHERE ruling_id = ?",
        (rid,),
    )
    assert v.state(rid) != "applied"
    v.service = director(v.store, v.folder, v.broker.port)
    v.table.start()  # the director sends it again; the table's log says it is applied
    wait_until("the table's answer", lambda: v.state(rid) == "applied")
    assert len(v.adjustments()) == 1  # applied once, not twice


def test_a_ruling_for_another_game_or_hand_is_refused_with_the_reason(venue: Venue) -> None:
    v = venue
    key = (v.folder / "director.key").read_bytes()
    at = time.time()
    wrong = {
        "another game": (2, 1, "adjust_score"),
        "a hand not dealt": (1, 5, "adjust_score"),
        "a void of another hand": (1, 2, "void_hand"),
    }
    v.service.stop()
    for rid, (game, hand, kind) in wrong.items():
        event = (
            {"event": "hand_voided", "reason": "x"}
            if kind == "void_hand"
            else {"event": "score_adjusted", "team": "NS", "points": 2, "reason": "x"}
        )
        r = Ruling(rid, TABLE, kind, event, "x", "ann", at, game=game, hand=hand)
        v.store.rulings.add_ruling(sign(r, key))
    v.service = director(v.store, v.folder, v.broker.port)
    refused = {}
    for rid in wrong:
        wait_until(f"{rid} answered", lambda rid=rid: v.state(rid) == "refused")
        (r,) = [r for r in v.store.rulings.rulings(TABLE) if r["ruling_id"] == rid]
        refused[rid] = r["ack_problem"]
    assert "about game 2, and this table is playing game 1" in refused["another game"]
    assert "hand 5, not yet dealt" in refused["a hand not dealt"]
    assert "voids hand 2, and this table is on hand 1" in refused["a void of another hand"]
    assert v.adjustments() == []
    # A score ruling about this game's hand in play is taken.
    rid = adjust(v)
    wait_until("the good ruling applied", lambda: v.state(rid) == "applied")


@pytest.mark.parametrize("name", ["Table #3", "Table+3", "a/b", "nul\x00"])
def test_a_table_name_with_a_topic_wildcard_is_refused_where_it_is_configured(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "table.toml"
    config.write_text(f'[table]\nname = "{name.replace(chr(0), chr(92) + "u0000")}"\n')
    assert main(["config", "check", str(config)]) == 2
    err = capsys.readouterr().err
    assert "table.name" in err and ("not # + /" in err or "control character" in err)
    out = tmp_path / "broker"
    assert main(["feed", "broker-config", "--event", "e", "--tables", name, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "not # + / or control characters" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("table", ["table#3", "table+3", "euchre/#", "t\x00", ""])
def test_the_director_refuses_a_ruling_for_a_table_id_no_topic_can_hold(
    table: str, tmp_path: Path
) -> None:
    store = DirectorStore(tmp_path / "director.sqlite")
    key = tmp_path / "keys"
    assert main(["feed", "keys", "--out", str(key)]) == 0
    never = BrokerConfig(host="127.0.0.1", port=1)  # never started: nothing is sent
    svc = DirectorService(store, never, private_key=(key / "director.key").read_bytes())
    try:
        with pytest.raises(RulingError, match="only lowercase letters, digits and single '-'"):
            svc.send_ruling(director="ann", table=table, kind="void_hand", reason="misdeal")
        assert store.rulings.rulings() == []  # nothing stored that could never be sent
    finally:
        store.close()
