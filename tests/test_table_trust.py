"""What the director takes from a table with a registered key (director/table_trust.py,
through the service's ``handle``): every kind a table sends only when signed by its key,
pictures too (stored without their signature), and a status, an answer to a ruling or
a fleet answer only after the newest of its kind, also once the director is restarted
(on both databases the store can use).
The same over a real mosquitto: tests/security/test_signing_all.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from table_controller.director.service import BrokerConfig, DirectorService
from table_controller.director.store import DirectorStore, FleetUpdates
from table_controller.feed import messages
from table_controller.feed.picture_signing import sign_picture
from table_controller.feed.table_order import Places, is_ordered, next_boot, placed
from table_controller.feed.table_signing import (
    TableKeyPair,
    load_private,
    new_table_key,
    sign_message,
)

TOPICS = messages.Topics.of("euchre", "trust")
T = "table-1"
BOOT = 1_767_000_000
PNG = b"\xff\xd8\xff" + b"the card's picture" * 100


class Table:
    """The table's side, as its feed signs: its key and its count of places."""

    def __init__(self, pair: TableKeyPair, boot: int = BOOT) -> None:
        self.pair = pair
        self.key = load_private(pair.private_pem)
        self.places = Places(boot)
        self.places.connected()

    def restarted(self, boot: int) -> Table:
        """The same table started again: its next start's count."""
        return Table(self.pair, boot)

    def signed(self, kind: str, payload: dict[str, Any], *, last_word: bool = False) -> bytes:
        if is_ordered(kind):
            place = self.places.last_word() if last_word else self.places.next()
            payload = placed(payload, place)
        return json.dumps(sign_message(kind, payload, self.key)).encode()

    def picture(self, kind: str, game: int, seq: int, png: bytes = PNG) -> bytes:
        return sign_picture(kind, T, game, seq, png, self.key)


def status(hand: int, at: float = 1_000.0) -> dict[str, Any]:
    return messages.status_message(
        table=T, at=at, every=5.0, game=1, hand=hand, phase="playing", scores=(0, 0),
        players={}, faults=[], backlog=0,
    )  # fmt: skip


def event(seq: int, evidence: bool = False) -> dict[str, Any]:
    return messages.event_message(
        table=T, game=1, seq=seq, at=1_000.0, source="camera",
        input_event={"event": "card_played", "seat": "N", "card": "JH"}, outputs=[], hand=1,
        evidence=evidence,
    )  # fmt: skip


def ruling(rid: str) -> dict[str, Any]:
    return {
        "v": 1, "ruling_id": rid, "table": T, "kind": "confirm_renege", "event": None,
        "reason": "proven", "director": "ann", "at": 5.0, "sig": "AA==",
    }  # fmt: skip


def ack(rid: str, ok: bool | None) -> dict[str, Any]:
    return messages.ack_message(table=T, ruling_id=rid, ok=ok, problem=None, at=6.0)


def open_alerts(store: DirectorStore, kind: str) -> list[dict[str, Any]]:
    return [a for a in store.alerts.alerts() if a["kind"] == kind]


def close(store: DirectorStore, kind: str) -> str:
    """The one open alert of ``kind``, closed (so the next one raises its own); its text."""
    (alert,) = open_alerts(store, kind)
    store.alerts.set_alert(alert["id"], "closed", "ann", "seen")
    return str(alert["text"])


def setup(
    target: str | Path, *, enforced: bool = True
) -> tuple[DirectorStore, DirectorService, Table]:
    """A store at ``target`` (a SQLite file's folder: a file in it) with table-1's key."""
    store = DirectorStore(target / "director.sqlite" if isinstance(target, Path) else target)
    pair = new_table_key()
    store.keys.register_key(T, pair.public_pem.decode(), source="test", enforced=enforced)
    return store, DirectorService(store, BrokerConfig(port=1), prefix=TOPICS.prefix), Table(pair)


def config_answer(seq: int, state: str) -> dict[str, Any]:
    return {"table": T, "seq": seq, "state": state, "problem": None, "at": 7.0}


def camera_answer() -> dict[str, Any]:
    return {"table": T, "id": "c1", "kind": "camera-view", "ok": False,
            "problem": "no picture yet", "jpeg": None, "at": 8.0}  # fmt: skip


def update_answer(state: str, at: float) -> dict[str, Any]:
    return {"table": T, "id": "u1", "version": "0.2.0", "running": "0.1.0", "state": state,
            "problem": None, "at": at}  # fmt: skip


def test_every_kind_a_table_sends_is_taken_only_signed_each_refusal_said_in_words(
    tmp_path: Path,
) -> None:
    store, svc, table = setup(tmp_path)
    store.rulings.add_ruling(ruling("r1"))
    store.fleet_configs.fleet_config_add(T, lambda seq: {"table": T, "seq": seq})
    try:
        forged: list[tuple[str, bytes, str]] = [
            (TOPICS.evidence(T, 1, 1), PNG, "a picture came without the table's signature"
             " (game 1, event 1)"),
            (TOPICS.acks(T), json.dumps(ack("r1", True)).encode(),
             "an answer to a ruling came without the table's signature"),
            (TOPICS.fleet(T, "config"), json.dumps(config_answer(1, "applied")).encode(),
             "an answer to a config came without the table's signature"),
            (TOPICS.fleet(T, "camera"), json.dumps(camera_answer()).encode(),
             "a camera answer came without the table's signature"),
            (TOPICS.fleet(T, "update"), json.dumps(update_answer("running", 9.0)).encode(),
             "an update's progress came without the table's signature"),
            (TOPICS.fleet(T, "camera"), Table(new_table_key()).signed("fleet/camera",
             camera_answer()), "a camera answer came signed by another key than the one"
             " registered for table-1"),
        ]  # fmt: skip
        for n, (topic, payload, words) in enumerate(forged, 1):
            svc.handle(topic, payload)
            text = close(store, "signature")
            assert text.startswith(f"table-1: {words}, and it was not stored"), text
            assert "give the table a new password" in text
            assert svc.refused == n
        assert store.events.evidence(T, 1, 1) is None
        assert store.rulings.rulings(T)[0]["state"] == "pending"
        assert store.fleet_configs.fleet_config_state(T)["state"] == "sent"  # type: ignore[index]
        assert store.pictures.fleet_pictures() == {}
        assert FleetUpdates(store.core).latest(T) is None
        # The table's own, signed: each taken.
        svc.handle(TOPICS.evidence(T, 1, 1), table.picture("evidence", 1, 1))
        assert store.events.evidence(T, 1, 1) == PNG  # stored without its signature
        svc.handle(TOPICS.events(T), table.signed("events", event(1, evidence=True)))
        svc.handle(TOPICS.clear_evidence(T, 1, 1), table.picture("evidence/clear", 1, 1, b"x"))
        assert store.events.evidence(T, 1, 1) == b"x"
        svc.handle(TOPICS.acks(T), table.signed("acks", ack("r1", None)))
        svc.handle(TOPICS.acks(T), table.signed("acks", ack("r1", True)))
        assert store.rulings.rulings(T)[0]["state"] == "applied"
        svc.handle(
            TOPICS.fleet(T, "config"), table.signed("fleet/config", config_answer(1, "applied"))
        )
        assert store.fleet_configs.fleet_config_state(T)["state"] == "applied"  # type: ignore[index]
        svc.handle(TOPICS.fleet(T, "camera"), table.signed("fleet/camera", camera_answer()))
        assert store.pictures.fleet_pictures()[T]["camera-view"]["problem"] == "no picture yet"
        svc.handle(
            TOPICS.fleet(T, "update"), table.signed("fleet/update", update_answer("running", 9.0))
        )
        assert FleetUpdates(store.core).latest(T)["state"] == "running"  # type: ignore[index]
        # A picture signed for another event, or as a clearer one, is not taken.
        svc.handle(TOPICS.evidence(T, 1, 2), table.picture("evidence", 1, 3))
        assert store.events.evidence(T, 1, 2) is None
        assert "not the one registered for table-1 on that picture" in close(store, "signature")
        assert store.alerts.alerts() == []
    finally:
        store.close()


def test_a_status_sent_again_is_refused_with_one_alert_and_after_the_directors_restart(
    store_target: str,
) -> None:
    store, svc, table = setup(store_target)
    first, second = table.signed("status", status(1)), table.signed("status", status(2))
    try:
        svc.handle(TOPICS.status(T), first)
        svc.handle(TOPICS.status(T), second)
        assert store.tables.table_position(T) == (1, 2)
        svc.handle(TOPICS.status(T), first)  # captured, sent again
        svc.handle(TOPICS.status(T), second)  # the newest, sent again: not after it either
        assert store.tables.table_position(T) == (1, 2) and len(store.tables.status_history(T)) == 2
        (alert,) = open_alerts(store, "replay")  # one for the two
        assert alert["text"].startswith(
            "table-1: a status came that is not after the newest the director took from it "
            f"(start {BOOT}, connection 1, message 1; the newest taken: start {BOOT}, "
            "connection 1, message 2): an old one sent again. It was not stored"
        )
        assert "set its clock right" in alert["text"] and svc.refused == 2
        close(store, "replay")
        # The broker's retained copy (sent when the director subscribes): dropped, no alert.
        svc.handle(TOPICS.status(T), first, retained=True)
        assert open_alerts(store, "replay") == [] and store.tables.table_position(T) == (1, 2)
        # The connection's last will comes after everything numbered on it.
        svc.handle(TOPICS.status(T), table.signed("status", messages.offline_message(
            table=T, at=1_010.0), last_word=True))  # fmt: skip
        assert store.tables.tables()[0]["online"] is False
    finally:
        store.close()
    # The director restarted: what it took last is in its store.
    store = DirectorStore(store_target)
    svc = DirectorService(store, BrokerConfig(port=1), prefix=TOPICS.prefix)
    try:
        svc.handle(TOPICS.status(T), second)
        assert store.tables.tables()[0]["online"] is False
        assert "the newest taken: start 1767000000, connection 1, its last will" in close(
            store, "replay"
        )
        # The table started again, its clock now years behind: its start still counts up.
        again = table.restarted(next_boot(BOOT, 1_000.0))
        svc.handle(TOPICS.status(T), again.signed("status", status(3, at=1_000.0)))
        assert (
            store.tables.table_position(T) == (1, 3) and store.tables.tables()[0]["online"] is True
        )
        assert store.alerts.alerts() == []
    finally:
        store.close()


def test_a_signed_status_without_its_place_is_taken_only_until_the_table_sent_one(
    tmp_path: Path,
) -> None:
    store, svc, table = setup(tmp_path)

    def placeless(hand: int) -> bytes:  # as a table of the release before places signs
        return json.dumps(sign_message("status", status(hand), table.key)).encode()

    captured = placeless(1)
    try:
        svc.handle(TOPICS.status(T), captured)
        assert store.tables.table_position(T) == (1, 1) and store.alerts.alerts() == []
        # Updated: its first status with its place, and from then on none without.
        svc.handle(TOPICS.status(T), table.signed("status", status(2)))
        svc.handle(TOPICS.status(T), captured)
        assert store.tables.table_position(T) == (1, 2)
        text = close(store, "replay")
        assert text.startswith(
            "table-1: a status came without its place in the table's order, though the "
            "table has sent its places before: an old message of an older release sent "
            "again, or the table was put back to an older release. It was not stored"
        ), text
    finally:
        store.close()


def test_answers_are_refused_when_sent_again_each_kind_against_its_own_newest(
    tmp_path: Path,
) -> None:
    store, svc, table = setup(tmp_path)
    store.rulings.add_ruling(ruling("r1"))
    try:
        early_status = table.signed("status", status(1))  # numbered before the answers
        delivered = table.signed("acks", ack("r1", None))
        svc.handle(TOPICS.acks(T), delivered)
        svc.handle(
            TOPICS.fleet(T, "update"),
            table.signed("fleet/update", update_answer("installing", 9.0)),
        )
        # Each kind against its own newest: a status numbered before them is taken.
        svc.handle(TOPICS.status(T), early_status)
        svc.handle(TOPICS.acks(T), delivered)  # sent again
        assert "an answer to a ruling came that is not after the newest" in close(store, "replay")
        update_old = table.signed("fleet/update", update_answer("downloading", 8.0))
        svc.handle(
            TOPICS.fleet(T, "update"), table.signed("fleet/update", update_answer("running", 10.0))
        )
        svc.handle(TOPICS.fleet(T, "update"), update_old)  # out of its order: refused
        assert FleetUpdates(store.core).latest(T)["state"] == "running"  # type: ignore[index]
        assert "an update's progress came that is not after" in close(store, "replay")
        assert store.tables.table_position(T) == (1, 1) and store.alerts.alerts() == []
        # Another key registered for the table (set up again): its count starts afresh.
        pair = new_table_key()
        store.keys.register_key(T, pair.public_pem.decode(), source="test")
        fresh = Table(pair, boot=5)
        svc.handle(TOPICS.status(T), fresh.signed("status", status(2)))
        assert store.tables.table_position(T) == (1, 2) and store.alerts.alerts() == []
    finally:
        store.close()


def test_a_fleet_key_not_yet_enforced_takes_unsigned_messages_until_the_table_signs(
    tmp_path: Path,
) -> None:
    store, svc, table = setup(tmp_path, enforced=False)
    store.rulings.add_ruling(ruling("r1"))
    try:
        # A table of an older release ignores the key its approval gave it.
        svc.handle(TOPICS.evidence(T, 1, 1), PNG)
        svc.handle(TOPICS.acks(T), json.dumps(ack("r1", None)).encode())
        svc.handle(TOPICS.status(T), json.dumps(status(1)).encode())
        assert (
            store.events.evidence(T, 1, 1) == PNG
            and store.rulings.rulings(T)[0]["state"] == "delivered"
        )
        assert store.tables.table_position(T) == (1, 1) and store.alerts.alerts() == []
        # Updated, it signs: from then on it must.
        svc.handle(TOPICS.acks(T), table.signed("acks", ack("r1", True)))
        assert store.keys.table_keys()[0]["enforced"] == 1
        svc.handle(TOPICS.evidence(T, 1, 2), PNG)
        assert store.events.evidence(T, 1, 2) is None
        assert "a picture came without the table's signature" in close(store, "signature")
    finally:
        store.close()


def test_a_table_without_a_key_is_taken_as_before_its_signature_taken_off_a_picture(
    tmp_path: Path,
) -> None:
    store = DirectorStore(tmp_path / "director.sqlite")
    svc = DirectorService(store, BrokerConfig(port=1), prefix=TOPICS.prefix)
    table = Table(new_table_key())  # a key the director was not given
    try:
        svc.handle(TOPICS.evidence(T, 1, 1), table.picture("evidence", 1, 1))
        svc.handle(TOPICS.evidence(T, 1, 2), PNG)
        assert store.events.evidence(T, 1, 1) == PNG and store.events.evidence(T, 1, 2) == PNG
        first = table.signed("status", status(1))
        svc.handle(TOPICS.status(T), table.signed("status", status(2)))
        svc.handle(TOPICS.status(T), first)  # no key, no order kept: taken as it comes
        assert store.tables.table_position(T) == (1, 1) and store.alerts.alerts() == []
    finally:
        store.close()
