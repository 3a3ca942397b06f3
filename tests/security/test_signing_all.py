"""Everything a table sends, signed and checked, over a real mosquitto with the files
`feed broker-config` writes, the director's real service and store, and the table's
real feed (feed/publisher.py, here in the test's process) signing with the key
broker-config made for it.

Before: only a table's events and status were signed. One with its broker password
(sniffed on the hall's network) could replace the picture of a card held as evidence
(a "clearer picture"), answer the director's ruling as applied while the table never
saw it, and send the fleet view a camera answer; and anyone who captured a signed
status could send it again later, and the director took it as the table's state now
(a table gone shown as back, at a hand it had left)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from security.feed_event import (
    TOPICS,
    broker_files,
    connect,
    director,
    password,
    start_broker,
    wait_until,
)
from table_controller.cards import Card
from table_controller.director.cli import register_table_keys
from table_controller.director.service import DirectorService
from table_controller.director.store import DirectorStore
from table_controller.event_log import EventLog
from table_controller.feed import messages
from table_controller.feed.picture_signing import sign_picture
from table_controller.feed.publisher import FeedSettings, Publisher
from table_controller.feed.signing import Ruling
from table_controller.feed.table_order import Places, placed
from table_controller.feed.table_signing import load_private, new_table_key, sign_message
from table_controller.rules.events import CardPlayed, DealerChosen
from table_controller.seats import Seat

T = "table-1"
FIRST = b"\xff\xd8\xff the first picture of the card"
CLEAR = b"\xff\xd8\xff the clearer picture of the card"
YEARS_BEHIND = 10 * 365 * 86400.0


def event_files(tmp_path: Path) -> Path:
    """broker-config's files, table-1 also let write its fleet answers (as the fleet's
    broker that `director start` runs lets each table)."""
    folder = broker_files(tmp_path / "broker")
    acl = folder / "acl"
    line = f"topic write {TOPICS.acks(T)}\n"
    acl.write_text(acl.read_text().replace(line, line + f"topic write {TOPICS.table(T)}/fleet/#\n"))
    return folder


def table_log(path: Path) -> EventLog:
    """Table 1's log: a game with one card played, its picture kept as evidence."""
    log = EventLog(path, table="Table 1")
    log.start_game("td-tournament", {}, {s: s.name for s in Seat})
    log.append(1, 1, DealerChosen(Seat.N), source="director")
    log.append(1, 2, CardPlayed(Seat.E, Card.parse("JH")), source="camera", evidence=FIRST)
    return log


class RealTable:
    """Table 1's own feed, with its password and its signing key; it applies every
    ruling the director signed, and plays hand ``hand``."""

    def __init__(
        self, folder: Path, port: int, log: Path, clock: Callable[[], float] = time.time
    ) -> None:
        settings = FeedSettings(
            table=T, topics=TOPICS, broker="127.0.0.1", port=port, username=T,
            password=password(folder, T), director_key=(folder / "director.pub").read_bytes(),
            signing_key=(folder / "secrets" / f"{T}.signing.key").read_bytes(), heartbeat=0.2,
        )  # fmt: skip
        self.feed = Publisher(settings, log, on_ruling=self._rule, clock=clock)
        self.feed.set_status(self.status(1))
        self.feed.start()
        wait_until("the table connected", self.feed.connected_event.is_set)

    def _rule(self, ruling: Ruling) -> None:
        self.feed.answer(ruling.ruling_id, True, None)

    @staticmethod
    def status(hand: int) -> dict[str, Any]:
        return {"game": 1, "hand": hand, "phase": "playing", "scores": (0, 0),
                "players": {}, "faults": [], "name": "Table 1"}  # fmt: skip

    def stop(self) -> None:
        self.feed.stop()


def alerted(store: DirectorStore, kind: str) -> Callable[[], bool]:
    """Whether an alert of ``kind`` is open (what a refusal raises)."""
    return lambda: any(a["kind"] == kind for a in store.alerts.alerts())


def close_alert(store: DirectorStore, kind: str) -> str:
    (alert,) = [a for a in store.alerts.alerts() if a["kind"] == kind]
    store.alerts.set_alert(alert["id"], "closed", "ann", "seen")
    return str(alert["text"])


def online(store: DirectorStore) -> bool:
    return bool([t for t in store.tables.tables() if t["table"] == T and t["online"]])


def test_forged_pictures_acks_and_answers_are_refused_and_the_tables_own_taken(
    tmp_path: Path,
) -> None:
    folder = event_files(tmp_path)
    broker = start_broker(folder)
    store = DirectorStore(tmp_path / "director.sqlite")
    assert register_table_keys(store, folder / "table-keys.json") == 2
    svc = director(store, folder, broker.port)
    log = table_log(tmp_path / "table.sqlite")
    table = RealTable(folder, broker.port, log.path)
    try:
        wait_until("the table's picture stored", lambda: store.events.evidence(T, 1, 2) == FIRST)
        log.replace_evidence(1, 2, CLEAR)
        table.feed.notify()
        wait_until("its clearer picture stored", lambda: store.events.evidence(T, 1, 2) == CLEAR)
        wait_until("its status stored", lambda: store.tables.table_position(T) == (1, 1))
        table.stop()
        wait_until("the table offline", lambda: not online(store))
        ruling = svc.send_ruling(
            director="ann", table=T, kind="confirm_renege", reason="the renege is proven"
        )
        # One with table-1's broker password, while the table is away.
        forger = connect(broker.port, T, password(folder, T))
        other_key = load_private(new_table_key().private_pem)
        mine = load_private((folder / "secrets" / f"{T}.signing.key").read_bytes())
        camera = {"table": T, "id": "c1", "kind": "camera-view", "ok": False,
                  "problem": "the camera is covered", "jpeg": None, "at": time.time()}  # fmt: skip
        forged: list[tuple[str, Any, str]] = [
            (TOPICS.clear_evidence(T, 1, 2), b"\xff\xd8\xff another card",
             "a clearer picture came without the table's signature (game 1, event 2)"),
            (TOPICS.acks(T), messages.ack_message(table=T, ruling_id=ruling["ruling_id"],
             ok=True, problem=None, at=time.time()),
             "an answer to a ruling came without the table's signature"),
            (TOPICS.fleet(T, "camera"), sign_message("fleet/camera", placed(camera,
             Places(int(time.time()) + 9).next()), other_key),
             "a camera answer came signed by another key than the one registered for "
             "table-1"),
            # The table's own picture of event 2 (the same bytes), sent as event 3's.
            (TOPICS.evidence(T, 1, 3), sign_picture("evidence", T, 1, 2, FIRST, mine),
             "a picture of game 1's event 3 came with a signature that is not the one "
             "registered for table-1 on that picture"),
        ]  # fmt: skip
        try:
            for n, (topic, payload, words) in enumerate(forged, 1):
                forger.publish(topic, payload)
                wait_until(f"forgery {n} refused", alerted(store, "signature"))
                text = close_alert(store, "signature")
                assert text.startswith(f"table-1: {words}"), text
                assert "it was not stored" in text and "give the table a new password" in text
        finally:
            forger.close()
        assert store.events.evidence(T, 1, 2) == CLEAR and store.events.evidence(T, 1, 3) is None
        assert [r["state"] for r in store.rulings.rulings(T)] == ["pending"]
        assert store.pictures.fleet_pictures() == {}
        # The table back: the ruling sent again reaches it, its signed answers are taken.
        table = RealTable(folder, broker.port, log.path)
        wait_until("the ruling applied", lambda: store.rulings.rulings(T)[0]["state"] == "applied")
        table.feed.send("camera", {**camera, "problem": "the real table's words"})
        wait_until("its camera answer kept", lambda: T in store.pictures.fleet_pictures())
        assert (
            store.pictures.fleet_pictures()[T]["camera-view"]["problem"] == "the real table's words"
        )
        assert store.events.evidence(T, 1, 2) == CLEAR
        assert [a for a in store.alerts.alerts() if a["kind"] in ("signature", "replay")] == []
    finally:
        table.stop()
        log.close()
        svc.stop()
        store.close()
        broker.kill()


def send_copy(port: int, folder: Path, store: DirectorStore, copy: Any, what: str) -> None:
    """The captured ``copy`` sent again with the table's sniffed password; waits for the
    director's "sent again" alert."""
    forger = connect(port, T, password(folder, T))
    try:
        forger.publish(TOPICS.status(T), copy)
        wait_until(what, alerted(store, "replay"))
    finally:
        forger.close()


def test_a_captured_status_sent_again_is_refused_also_after_the_directors_restart(
    tmp_path: Path,
) -> None:
    folder = event_files(tmp_path)
    broker = start_broker(folder)
    database = tmp_path / "director.sqlite"
    store = DirectorStore(database)
    register_table_keys(store, folder / "table-keys.json")
    svc: DirectorService | None = director(store, folder, broker.port)
    log = table_log(tmp_path / "table.sqlite")
    table: RealTable | None = RealTable(folder, broker.port, log.path)
    assert table is not None and svc is not None
    try:
        wait_until("hand 1 stored", lambda: store.tables.table_position(T) == (1, 1))
        table.feed.set_status(RealTable.status(2))
        wait_until("hand 2 stored", lambda: store.tables.table_position(T) == (1, 2))
        # What a listener on the hall's network captured: a genuine, signed heartbeat of
        # hand 1 (the director's own copy of it holds the same JSON).
        captured = next(
            h["status"] for h in store.tables.status_history(T) if h["status"].get("hand") == 1
        )
        assert captured["sig"] and captured["order"]
        table.stop()
        table = None
        wait_until("the table offline", lambda: not online(store))
        send_copy(broker.port, folder, store, captured, "the copy refused")
        assert not online(store) and store.tables.table_position(T) == (1, 2)
        text = close_alert(store, "replay")
        assert text.startswith("table-1: a status came that is not after the newest the "
                               "director took from it (start "), text  # fmt: skip
        assert "an old one sent again. It was not stored" in text
        # The director restarted (its store and its broker session kept): still refused.
        svc.stop()
        svc = None
        store.close()
        store = DirectorStore(database)
        svc = director(store, folder, broker.port)
        send_copy(broker.port, folder, store, captured, "the copy refused again")
        assert not online(store) and store.tables.table_position(T) == (1, 2)
        assert "not after the newest" in close_alert(store, "replay")
        # The real table again, its clock now ten years behind: taken all the same.
        table = RealTable(folder, broker.port, log.path, clock=lambda: time.time() - YEARS_BEHIND)
        table.feed.set_status(RealTable.status(3))
        wait_until(
            "hand 3 stored", lambda: store.tables.table_position(T) == (1, 3) and online(store)
        )
        assert [a for a in store.alerts.alerts() if a["kind"] in ("signature", "replay")] == []
    finally:
        if table is not None:
            table.stop()
        log.close()
        if svc is not None:
            svc.stop()
        store.close()
        broker.kill()
